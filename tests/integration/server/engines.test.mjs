// Engine opponents: full games against Stockfish, Fairy-Stockfish and the builtin
// engine; an engine killed mid-game; fake UCI engines that answer illegal moves, hang or crash;
// what an engine process inherits and leaves behind, and --max-engine-processes.
// The human side plays random moves from the server's `legal` lists.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, repoRoot, startServer } from './harness.mjs';
import { scrape, metric } from './prometheus.mjs';

const stockfish = '/usr/games/stockfish';
const fairy = '/usr/games/fairy-stockfish';
const haveEngines = existsSync(stockfish) && existsSync(fairy);
const fakeDir = mkdtempSync(path.join(tmpdir(), 'arbiter-fake-uci-'));
const fakeModes = ['illegal', 'hang', 'crash', 'silent', 'none', 'opening-hang', 'opening-illegal'];

function fakeEngine(mode) {
  const file = path.join(fakeDir, `fake-${mode}.sh`);
  writeFileSync(file, `#!/bin/sh\nexec python3 ${path.join(repoRoot, 'tests/integration/server/fake_uci.py')} ${mode}\n`);
  chmodSync(file, 0o755);
  return file;
}

let server;
before(async () => {
  // Short enough that the fake engines' failures end their games in seconds, long enough that a
  // Stockfish restarted after a SIGKILL answers in time on a loaded machine: with 500 ms the
  // restarted engine missed its margin once under ctest -j2 next to the browser suites, and the
  // kill test saw a second failure end its game at ply 5.
  const args = ['--engine-margin-ms', '2000', '--engine-timeout-ms', '4000'];
  if (haveEngines) args.push('--engine', `stockfish=${stockfish}`, '--engine', `fairy-stockfish=${fairy}`);
  for (const mode of fakeModes) args.push('--engine', `${mode.replace('-', '_')}=${fakeEngine(mode)}`);
  server = await startServer({ args });
});
after(async () => {
  const result = await server.stop();
  rmSync(fakeDir, { recursive: true, force: true });
  assert.equal(result.code, 0, 'the server stops cleanly with engines running');
});

const pick = (list) => list[Math.floor(Math.random() * list.length)];

/** The server's children (engine processes) as [pid, command name]. */
function serverChildren(pid) {
  const children = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    for (const child of text ? text.split(/\s+/) : []) {
      let name = '';
      try {
        name = readFileSync(`/proc/${child}/comm`, 'utf8').trim();
      } catch {
        continue; // gone meanwhile
      }
      children.push([Number(child), name]);
    }
  }
  return children;
}

/** Waits until no child of the server has a name containing `name` (killed and reaped). */
async function noChildNamed(name, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = serverChildren(server.proc.pid).filter(([, comm]) => comm.includes(name));
    if (left.length === 0) return;
    if (Date.now() > deadline) assert.fail(`engine processes left after the game: ${JSON.stringify(left)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Creates a game against an engine and plays the human side with random legal moves until the
 * game ends (or resigns at `maxPlies`). Every engine move must be one of the legal moves the
 * server listed for that position. Returns the ending and what was seen.
 */
async function playEngineGame(client, create, { maxPlies = 200, afterMove = async () => {} } = {}) {
  const created = await client.ok({ type: 'create', ...create });
  const game = created.game;
  const seat = created.seat;
  let state = await client.nextOf('state', (s) => s.game === game);
  assert.equal(state.status, 'playing', 'a game against an engine starts at once');
  const engineSeat = Object.keys(state.players).find((key) => key !== seat);
  assert.equal(state.players[engineSeat].engine, true);
  assert.equal(state.players[engineSeat].connected, true);
  assert.equal(state.players[seat].engine, undefined);
  let { legal, turn, ply } = state;
  let engineMoves = 0;
  let ended = null;
  const endedOrMoved = (m) => m.game === game && (m.type === 'ended' || (m.type === 'moved' && m.ply === ply + 1));
  while (!ended) {
    let moved;
    if (ply >= maxPlies) {
      ended = await client.ok({ type: 'resign', game });
      break;
    }
    if (turn === seat) {
      moved = await client.request({ type: 'move', game, move: pick(legal), ply });
      if (moved.type === 'error') {
        // The engine side may have ended the game meanwhile (engine_failure).
        assert.equal(moved.code, 'game_over', JSON.stringify(moved));
        ended = await client.nextOf('ended', (m) => m.game === game);
        break;
      }
      await afterMove({ game, ply: moved.ply, byEngine: false });
    } else {
      moved = await client.next(endedOrMoved, 60000);
      if (moved.type === 'ended') {
        ended = moved;
        break;
      }
      assert.ok(legal.includes(moved.move), `engine move ${moved.move} was not legal at ply ${ply}`);
      engineMoves += 1;
      await afterMove({ game, ply: moved.ply, byEngine: true });
    }
    ({ legal, turn, ply } = moved);
    if (legal.length === 0) ended = await client.nextOf('ended', (m) => m.game === game, 60000);
  }
  const record = await client.ok({ type: 'replay', game });
  assert.equal(record.status, ended.status);
  assert.equal(record.result, ended.result);
  assert.equal(record.players[engineSeat].engine, true, 'the stored game says which seat is the engine');
  return { game, seat, engineSeat, ended, engineMoves, record, ply };
}

test('welcome lists the builtin engine and the configured ones', async () => {
  const client = await Client.connect(server.url);
  const welcome = await client.ok({ type: 'hello', name: 'Ana' });
  const names = welcome.engines.map((engine) => engine.name);
  assert.deepEqual(welcome.engines[0], { name: 'builtin', variants: ['chess', 'xiangqi', 'draughts'] });
  if (haveEngines) {
    assert.deepEqual(welcome.engines.find((e) => e.name === 'stockfish').variants, ['chess']);
    assert.deepEqual(welcome.engines.find((e) => e.name === 'fairy-stockfish').variants, ['xiangqi']);
  }
  assert.ok(names.includes('illegal'));
  await client.close();
});

test('an engine that is not offered, or not for that variant, creates nothing', async () => {
  const client = await Client.connect(server.url, 'Ana');
  const unknown = await client.request({ type: 'create', variant: 'chess', opponent: { engine: 'gnuchess', level: 3 } });
  assert.equal(unknown.code, 'engine_unavailable');
  const wrongVariant = await client.request({ type: 'create', variant: 'draughts', opponent: { engine: 'illegal', level: 3 } });
  assert.equal(wrongVariant.code, 'engine_unavailable');
  const badLevel = await client.request({ type: 'create', variant: 'chess', opponent: { engine: 'builtin', level: 9 } });
  assert.equal(badLevel.code, 'bad_request');
  await client.close();
});

test('chess against Stockfish reaches a legal end', { skip: !haveEngines }, async () => {
  const client = await Client.connect(server.url, 'Ana');
  const result = await playEngineGame(client, {
    variant: 'chess', side: 'first', clock: { initial_ms: 20000, increment_ms: 100 },
    opponent: { engine: 'stockfish', level: 1 },
  }, { maxPlies: 160 });
  assert.ok(result.engineMoves > 0);
  assert.match(result.record.players.black.name, /^Stockfish \(level 1\)$/);
  assert.equal(result.ended.status, 'ended');
  console.log(`chess vs stockfish: ${result.ended.result} by ${result.ended.reason} after ${result.ply} plies`);
  await noChildNamed('stockfish'); // the game's engine was killed and reaped when it ended
  await client.close();
});

test('xiangqi against Fairy-Stockfish reaches a legal end', { skip: !haveEngines }, async () => {
  const client = await Client.connect(server.url, 'Li');
  const result = await playEngineGame(client, {
    variant: 'xiangqi', side: 'second', opponent: { engine: 'fairy-stockfish', level: 1 },
  }, { maxPlies: 160 });
  assert.ok(result.engineMoves > 0);
  assert.equal(result.record.players.red.name, 'Fairy-Stockfish (level 1)');
  assert.equal(result.ended.status, 'ended');
  console.log(`xiangqi vs fairy-stockfish: ${result.ended.result} by ${result.ended.reason} after ${result.ply} plies`);
  await client.close();
});

test('draughts against the builtin engine reaches a legal end', async () => {
  const client = await Client.connect(server.url, 'Bo');
  const result = await playEngineGame(client, {
    variant: 'draughts', side: 'first', opponent: { engine: 'builtin', level: 2 },
  }, { maxPlies: 160 });
  assert.ok(result.engineMoves > 0);
  assert.equal(result.record.players.black.name, 'Arbiter builtin (level 2)');
  assert.equal(result.ended.status, 'ended');
  console.log(`draughts vs builtin: ${result.ended.result} by ${result.ended.reason} after ${result.ply} plies`);
  await client.close();
});

test('a killed engine is restarted: the game goes on and other games keep working', { skip: !haveEngines }, async () => {
  const client = await Client.connect(server.url, 'Ana');
  const bystander = await Client.connect(server.url, 'Bo');
  let kills = 0;
  const result = await playEngineGame(client, {
    variant: 'chess', side: 'first', opponent: { engine: 'stockfish', level: 4 },
  }, {
    maxPlies: 12,
    // Killed once while idle (after its move) and once while thinking (right after ours).
    afterMove: async ({ ply }) => {
      if (ply !== 2 && ply !== 5) return;
      const engines = serverChildren(server.proc.pid).filter(([, name]) => name.includes('stockfish'));
      assert.ok(engines.length >= 1, 'the Stockfish child is found under the server');
      for (const [pid] of engines) process.kill(pid, 'SIGKILL');
      kills += 1;
      // Another game is served meanwhile.
      const other = await bystander.ok({ type: 'create', variant: 'draughts', opponent: { engine: 'builtin', level: 1 } });
      assert.equal(other.type, 'created');
    },
  });
  assert.equal(kills, 2);
  // The engine moved after each kill (ply 6 follows the kill at ply 5), and the game ended by
  // the rules or at the ply cap, never by the engine's failure.
  assert.ok(result.ply >= 6, `the engine kept moving after being killed (ended at ply ${result.ply})`);
  assert.ok(result.engineMoves >= 3);
  assert.notEqual(result.ended.reason, 'engine_failure');
  await noChildNamed('stockfish');
  await client.close();
  await bystander.close();
});

for (const [engine, side, status, result] of [
  ['illegal', 'second', 'aborted', null],
  ['crash', 'second', 'aborted', null],
  ['silent', 'second', 'aborted', null],
  ['none', 'second', 'aborted', null],
  ['opening_hang', 'first', 'ended', '1-0'],
  ['opening_illegal', 'second', 'ended', '0-1'],
]) {
  test(`an engine that fails twice (${engine}) ends the game with engine_failure`, async () => {
    const client = await Client.connect(server.url, 'Ana');
    const played = await playEngineGame(client, { variant: 'chess', side, opponent: { engine, level: 1 } });
    assert.equal(played.ended.reason, 'engine_failure');
    assert.equal(played.ended.status, status);
    assert.equal(played.ended.result, result);
    // The server still answers at once.
    assert.equal((await client.ok({ type: 'ping' })).type, 'pong');
    await client.close();
  });
}

test('the engine declines draws and takebacks and accepts a rematch', async () => {
  const client = await Client.connect(server.url, 'Ana');
  const created = await client.ok({ type: 'create', variant: 'draughts', side: 'first', opponent: { engine: 'builtin', level: 1 } });
  const game = created.game;
  const state = await client.nextOf('state', (s) => s.game === game);
  await client.ok({ type: 'move', game, move: state.legal[0], ply: 0 });
  await client.nextOf('moved', (m) => m.game === game && m.ply === 2, 30000);
  for (const kind of ['draw', 'takeback']) {
    const offered = await client.ok({ type: kind, game, action: 'offer' });
    assert.equal(offered.action, 'offer');
    const declined = await client.nextOf('offer', (m) => m.game === game && m.kind === kind && m.action === 'decline');
    assert.equal(declined.by, 'black');
  }
  await client.ok({ type: 'resign', game });
  await client.ok({ type: 'rematch', game, action: 'offer' });
  const rematch = await client.nextOf('rematch', (m) => m.game === game);
  const joined = await client.nextOf('joined', (m) => m.game === rematch.next);
  assert.equal(joined.seat, 'black', 'seats swap in the rematch');
  const next = await client.nextOf('state', (s) => s.game === rematch.next);
  assert.equal(next.players.white.engine, true);
  assert.equal(next.players.white.name, 'Arbiter builtin (level 1)');
  // The engine moves first in the rematch.
  await client.nextOf('moved', (m) => m.game === rematch.next && m.ply === 1, 30000);
  await client.close();
});

test('one player\'s strong builtin games do not hold up another game\'s engine', async () => {
  // The server runs one builtin worker. Three level-8 games (up to 5 s a move) keep it busy, their
  // creator answering each engine move at once. Waiting first in first out, a level-2 engine in
  // another game would wait for all three each move; it is due sooner, so it cuts in.
  const hog = await Client.connect(server.url, 'Hog');
  const hogGames = [];
  for (let i = 0; i < 3; i++) {
    const created = await hog.ok({ type: 'create', variant: 'chess', side: 'second', opponent: { engine: 'builtin', level: 8 } });
    hogGames.push(created.game);
  }
  let hogging = true;
  const hogLoop = (async () => {
    while (hogging) {
      let moved;
      try {
        moved = await hog.next((m) => m.type === 'moved' && hogGames.includes(m.game) && m.turn === 'black', 500);
      } catch {
        continue; // no engine move within the half second: look again
      }
      if (moved.legal.length > 0) hog.send({ type: 'move', game: moved.game, move: pick(moved.legal), ply: moved.ply });
    }
  })();
  const player = await Client.connect(server.url, 'Pat');
  const created = await player.ok({ type: 'create', variant: 'chess', side: 'first', clock: { initial_ms: 60000, increment_ms: 0 }, opponent: { engine: 'builtin', level: 2 } });
  const game = created.game;
  let { legal, ply } = await player.nextOf('state', (s) => s.game === game);
  const waits = [];
  for (let i = 0; i < 4; i++) {
    const mine = await player.ok({ type: 'move', game, move: pick(legal), ply });
    const sent = Date.now();
    const reply = await player.nextOf('moved', (m) => m.game === game && m.ply === mine.ply + 1, 30000);
    waits.push(Date.now() - sent);
    ({ legal, ply } = reply);
    if (legal.length === 0) break;
  }
  hogging = false;
  await hogLoop;
  for (const hogGame of hogGames) await hog.request({ type: 'resign', game: hogGame });
  await player.request({ type: 'resign', game });
  // A level-2 search is given 250 ms and cuts in after at most 200 ms of a level-8 one.
  assert.ok(Math.max(...waits) < 2500, `the level-2 engine answered after ${waits.join(', ')} ms`);
  await hog.close();
  await player.close();
});

test('a game against an engine survives a server restart: the engine is asked again', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-engine-restart-'));
  const db = path.join(dir, 'arbiter.db');
  try {
    let first = await startServer({ db });
    let client = await Client.connect(first.url, 'Ana');
    const created = await client.ok({ type: 'create', variant: 'chess', side: 'first', opponent: { engine: 'builtin', level: 8 } });
    const game = created.game;
    let state = await client.nextOf('state', (s) => s.game === game);
    await client.ok({ type: 'move', game, move: 'e2e4', ply: 0 });
    // Stop at once: the engine is most likely still thinking about ply 1.
    assert.equal((await first.stop()).code, 0);
    const second = await startServer({ db });
    try {
      client = await Client.connect(second.url, 'Ana');
      state = await client.ok({ type: 'resume', game, token: created.token });
      assert.equal(state.players.black.engine, true);
      if (state.turn === 'white') {
        await client.ok({ type: 'move', game, move: state.legal[0], ply: state.ply });
      }
      const moved = await client.nextOf('moved', (m) => m.game === game && m.turn === 'white', 30000);
      assert.ok(moved.ply >= 2);
      await client.close();
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The descriptors of process `pid` that are sockets. */
function socketsOf(pid) {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false; // closed meanwhile
    }
  });
}

/** Whether process `pid` has ended: gone, or a zombie its new parent (pid 1 here) never reaps. */
function ended(pid) {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] === 'Z';
  } catch {
    return true;
  }
}

/** Waits for the game's engine process (a child of the server named `name`) to start. */
async function engineChild(name, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = serverChildren(server.proc.pid).find(([, comm]) => comm.includes(name));
    if (found) return found[0];
    if (Date.now() > deadline) assert.fail(`no engine process named ${name} under the server`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('an engine process holds none of the server\'s sockets', async () => {
  const client = await Client.connect(server.url, 'Ana');
  const created = await client.ok({ type: 'create', variant: 'chess', side: 'second', opponent: { engine: 'hang', level: 1 } });
  const engine = await engineChild('python');
  // Inherited, the listening socket and every connection (this one included) stayed open in the
  // engine after the server closed them, or exited.
  assert.deepEqual(socketsOf(engine), [], `engine ${engine} holds sockets`);
  await client.ok({ type: 'abort', game: created.game });
  await noChildNamed('python');
  await client.close();
});

test('what an engine started ends with it', async () => {
  // A wrapper script that starts a helper (as engines with worker processes do) and then runs
  // the engine: the helper is in the engine's process group.
  const wrapper = path.join(fakeDir, 'with-helper.sh');
  writeFileSync(wrapper, `#!/bin/sh\nsleep 600 </dev/null >/dev/null 2>&1 &\nexec python3 ${path.join(repoRoot, 'tests/integration/server/fake_uci.py')} hang\n`);
  chmodSync(wrapper, 0o755);
  const own = await startServer({ args: ['--engine', `helped=${wrapper}`] });
  let helper = null;
  try {
    const client = await Client.connect(own.url, 'Ana');
    const created = await client.ok({ type: 'create', variant: 'chess', side: 'second', opponent: { engine: 'helped', level: 1 } });
    const deadline = Date.now() + 5000;
    while (helper === null && Date.now() < deadline) {
      for (const [pid] of serverChildren(own.proc.pid)) {
        let text = '';
        try {
          text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
        } catch {
          continue; // gone meanwhile
        }
        if (text) helper = Number(text.split(/\s+/)[0]);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(helper !== null && !ended(helper), 'the engine\'s helper runs');
    await client.ok({ type: 'abort', game: created.game });
    const until = Date.now() + 5000;
    while (!ended(helper) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(ended(helper), `the helper ${helper} outlived its engine`);
    await client.close();
  } finally {
    if (helper !== null && !ended(helper)) process.kill(helper, 'SIGKILL');
    assert.equal((await own.stop()).code, 0);
  }
});

test('--max-engine-processes bounds the engines running at once', async () => {
  // Games are accepted while no process runs, and each engine starts when first asked: the
  // bound must hold there. An engine that needs a process while all run stops the one idle
  // longest (its game's engine starts again when asked) rather than fail its move.
  const own = await startServer({
    // A handshake timeout with room for a loaded machine (the sanitizer build under CI took more
    // than 1 s to start the first engine). Info level: the test reads the log.
    args: ['--max-engine-processes', '1', '--engine-timeout-ms', '4000', '--engine', `lim=${fakeEngine('opening-hang')}`],
    logLevel: 'info',
  });
  let most = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      most = Math.max(most, serverChildren(own.proc.pid).length);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    const client = await Client.connect(own.url, 'Ana');
    const create = { type: 'create', variant: 'chess', side: 'first', opponent: { engine: 'lim', level: 1 } };
    const first = await client.ok(create);
    const second = await client.ok(create);
    // The first game's engine answers and stays (idle) in the one place.
    await client.ok({ type: 'move', game: first.game, move: 'e2e4', ply: 0 });
    await client.nextOf('moved', (m) => m.game === first.game && m.ply === 2);
    const refused = await client.request(create);
    assert.equal(refused.code, 'engine_unavailable', 'a game is refused while every process runs');
    // The second game's engine finds no free process: it stops the first game's idle one and
    // answers in its place.
    await client.ok({ type: 'move', game: second.game, move: 'e2e4', ply: 0 });
    const answered = await client.nextOf('moved', (m) => m.game === second.game && m.ply === 2, 20000);
    assert.equal(answered.move, 'g8f6');
    assert.match(own.stderr(), /idle process stopped for another game's engine/);
    // A host sees the bound reached in /metrics.
    const seen = await scrape(own.http);
    assert.equal(metric(seen, 'arbiter_engine_idle_stops_total'), 1);
    assert.equal(metric(seen, 'arbiter_engine_processes'), 1);
    // And back: the first game's engine takes the process from the second's, now idle. This fake
    // hangs from its third ply on, so its restart shows as a search, not an answer.
    await client.ok({ type: 'move', game: first.game, move: 'd2d4', ply: 2 });
    const deadline = Date.now() + 20000;
    while ((own.stderr().match(/idle process stopped for another game's engine/g) ?? []).length < 2) {
      assert.ok(Date.now() < deadline, 'the first game\'s engine took the process back');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(client.pending().filter((m) => m.type === 'ended').length, 0, 'no game ended');
    // Both engines now have a question, and the one process goes to one of them, whose search
    // hangs (for 2 s, the margin): the other waits, trying every 100 ms. A wait is logged once,
    // not once a try: at most one more line (none when the engine that was waiting already got
    // the process, and the second game's engine waits instead).
    const waits = () => (own.stderr().match(/all engine processes run; waiting for one/g) ?? []).length;
    const before = waits();
    await client.ok({ type: 'move', game: second.game, move: 'd2d4', ply: 2 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.ok(waits() - before <= 1, own.stderr());
    await client.close();
  } finally {
    sampling = false;
    await sampler;
    assert.equal((await own.stop()).code, 0);
  }
  assert.equal(most, 1, 'engine processes running at once');
});

test('the builtin engine does not let the player complete a repetition that loses it the game', async () => {
  // Xiangqi: red's chariot checks the black general up and down the back ranks, which keeps the
  // black chariots from taking the horse and the cannon. Checking on is a perpetual check: the
  // player's general steps back into the start position a third time and red loses
  // (perpetual_check). The engine must give up a piece instead; it used to judge the reply that
  // completes the repetition without the game's history and walked into the loss.
  const client = await Client.connect(server.url, 'Ana');
  const created = await client.ok({
    type: 'create', variant: 'xiangqi', side: 'second', position: 'R8/4k4/9/2r3r2/9/9/2N3C2/9/9/3K5 w - - 0 1',
    opponent: { engine: 'builtin', level: 3 },
  });
  const game = created.game;
  const cycle = ['e9e10', 'e10e9'];
  let ended = null;
  for (let ply = 1; ply < 16 && !ended; ply += 2) {
    const moved = await client.nextOf('moved', (m) => m.game === game && m.ply === ply, 30000);
    const reply = cycle[((ply - 1) / 2) % 2];
    if (!moved.legal.includes(reply)) break; // the engine left the cycle
    await client.ok({ type: 'move', game, move: reply, ply });
    ended = client.pending().find((m) => m.type === 'ended' && m.game === game) ?? null;
    if (!ended) {
      ended = await client.nextOf('ended', (m) => m.game === game, 300).catch(() => null);
    }
  }
  assert.equal(ended, null, `the engine lost by ${ended?.reason}: ${JSON.stringify(ended)}`);
  await client.request({ type: 'resign', game });
  await client.close();
});

test('a rematch the engine accepts does not open more games than --max-open-games', async () => {
  // The engine accepts every rematch at once, so the offer alone opens a game. With one game
  // finished, one created in its place and the limit reached, a rematch of the finished game
  // must not open a third.
  const own = await startServer({ args: ['--max-open-games', '2'] });
  try {
    const client = await Client.connect(own.url, 'Ana');
    const create = { type: 'create', variant: 'chess', side: 'first', opponent: { engine: 'builtin', level: 1 } };
    const first = await client.ok(create);
    await client.ok(create);
    await client.ok({ type: 'resign', game: first.game });
    await client.ok(create);
    assert.equal((await client.request(create)).code, 'not_allowed', 'the limit is reached');
    await client.ok({ type: 'resume', game: first.game, token: first.token });
    const offer = await client.request({ type: 'rematch', game: first.game, action: 'offer' });
    assert.equal(offer.code, 'not_allowed', JSON.stringify(offer));
    const rematch = await client.nextOf('rematch', (m) => m.game === first.game, 2000).catch(() => null);
    assert.equal(rematch, null, `a rematch opened game ${rematch?.next} beyond the limit (offer answered ${offer.type})`);
    await client.close();
  } finally {
    assert.equal((await own.stop()).code, 0);
  }
});

test('the builtin engine does not lose on time counting on an increment it has not received', async () => {
  // 2 s and 10 s a move: the engine's first timed move (ply 3) has 2 s on its clock, and the
  // increment only comes after the move. Planning on half the increment, it searched for 5 s and
  // lost on time.
  const client = await Client.connect(server.url, 'Ana');
  const created = await client.ok({
    type: 'create', variant: 'chess', side: 'first', clock: { initial_ms: 2000, increment_ms: 10000 },
    opponent: { engine: 'builtin', level: 8 },
  });
  const game = created.game;
  let { legal, ply } = await client.nextOf('state', (s) => s.game === game);
  for (let i = 0; i < 3; i++) {
    const mine = await client.ok({ type: 'move', game, move: pick(legal), ply });
    const reply = await client.next((m) => m.game === game && (m.type === 'ended' || (m.type === 'moved' && m.ply === mine.ply + 1)), 30000);
    assert.equal(reply.type, 'moved', `the engine's reply at ply ${mine.ply}: ${JSON.stringify(reply)}`);
    ({ legal, ply } = reply);
    if (legal.length === 0) break;
  }
  await client.request({ type: 'resign', game });
  await client.close();
});

/**
 * Plays `moves` of the first seat against an engine in a timed game (random legal moves, at
 * once) and returns how long the engine took for each answer, in ms: from our move's
 * acknowledgement to the engine's `moved`.
 */
async function engineThinkTimes(create, moves) {
  const client = await Client.connect(server.url, 'Timer');
  const created = await client.ok({ type: 'create', side: 'first', ...create });
  const game = created.game;
  let { legal, ply } = await client.nextOf('state', (s) => s.game === game);
  const times = [];
  for (let i = 0; i < moves && legal.length > 0; i++) {
    const mine = await client.ok({ type: 'move', game, move: pick(legal), ply });
    const asked = Date.now();
    const reply = await client.next((m) => m.game === game && (m.type === 'ended' || (m.type === 'moved' && m.ply === mine.ply + 1)), 60000);
    if (reply.type === 'ended') break;
    times.push(Date.now() - asked);
    ({ legal, ply } = reply);
  }
  await client.request({ type: 'resign', game });
  await client.close();
  return times;
}

// Levels 1-3 answer within a second or two at any time control: the level's think time caps
// the engine's own time management, which by the clock alone took 26-30 s a move (Stockfish at
// level 3, 5+3) and 42 s (Fairy-Stockfish). Level 8 keeps to its 2 s.
const controls = [
  ['1+0', { initial_ms: 60000, increment_ms: 0 }],
  ['3+2', { initial_ms: 180000, increment_ms: 2000 }],
  ['15+10', { initial_ms: 900000, increment_ms: 10000 }],
];
for (const [engine, variant] of [['stockfish', 'chess'], ['fairy-stockfish', 'xiangqi'], ['builtin', 'draughts']]) {
  test(`${engine} at levels 1 and 3 answers within its think time at 1+0, 3+2 and 15+10`, { skip: engine !== 'builtin' && !haveEngines }, async () => {
    for (const [name, clock] of controls) {
      for (const level of [1, 3]) {
        const times = await engineThinkTimes({ variant, clock, opponent: { engine, level } }, 4);
        console.log(`${engine} level ${level} at ${name}: think ms ${times.join(' ')}`);
        assert.ok(times.length > 0);
        for (const ms of times) assert.ok(ms < 1500, `${engine} level ${level} at ${name} took ${ms} ms: ${times}`);
      }
    }
  });
}

test('stockfish at level 8 keeps to its 2 s at 15+10', { skip: !haveEngines }, async () => {
  const times = await engineThinkTimes(
    { variant: 'chess', clock: controls[2][1], opponent: { engine: 'stockfish', level: 8 } }, 3);
  console.log(`stockfish level 8 at 15+10: think ms ${times.join(' ')}`);
  assert.ok(times.length > 0);
  for (const ms of times) assert.ok(ms < 3000, `level 8 took ${ms} ms: ${times}`);
});
