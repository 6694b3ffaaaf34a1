// Many games at once on a server with 4 network threads: players, spectators, lobby subscribers
// and HTTP readers all hit rooms, the hub and storage from different threads at the same time.
// Under the tsan preset (`make tsan`) this is the run that gives ThreadSanitizer races to find;
// everywhere it checks that no event is lost or reordered under concurrency.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame } from './harness.mjs';

const GAMES = 8;
const PLIES = 24;
const VARIANTS = ['chess', 'xiangqi', 'draughts'];

let server;
before(async () => (server = await startServer({ args: ['--threads', '4', '--rate', '100000', '--burst', '100000'] })));
after(async () => assert.equal((await server.stop()).code, 0));

// Plays up to PLIES moves picked from the server's own `legal` lists; returns the moves played.
async function playRandom(game, a, b, state, seed) {
  const played = [];
  let legal = state.legal;
  let [mover, other] = [a, b];
  for (let ply = 0; ply < PLIES && legal.length > 0; ply++) {
    const move = legal[(seed * 31 + ply * 17) % legal.length];
    const reply = await mover.ok({ type: 'move', game, move, ply });
    assert.equal(reply.type, 'moved');
    await other.nextOf('moved', (m) => m.game === game && m.ply === ply + 1);
    played.push(reply.move);
    legal = reply.legal;
    [mover, other] = [other, mover];
  }
  return played;
}

async function oneGame(index) {
  const variant = VARIANTS[index % VARIANTS.length];
  const a = await Client.connect(server.url, `A${index}`);
  const b = await Client.connect(server.url, `B${index}`);
  const { game, stateA } = await startGame(a, b, { variant });
  const watchers = await Promise.all([0, 1].map((i) => Client.connect(server.url, `W${index}${i}`)));
  await Promise.all(watchers.map((w) => w.ok({ type: 'watch', game })));
  const played = await playRandom(game, a, b, stateA, index + 1);
  // Every spectator saw every move, in order, with increasing seq.
  for (const watcher of watchers) {
    const seen = [];
    while (seen.length < played.length) {
      seen.push(await watcher.nextOf('moved', (m) => m.game === game));
    }
    assert.deepEqual(seen.map((m) => m.move), played);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i].seq > seen[i - 1].seq);
  }
  await a.ok({ type: 'resign', game });
  await Promise.all([a, b, ...watchers].map((c) => c.close()));
  return { game, played };
}

// Lobby subscribers and HTTP readers run beside the games until they end.
async function readers(done) {
  const lobby = await Client.connect(server.url, 'Lobby');
  await lobby.ok({ type: 'lobby' });
  let reads = 0;
  while (!done.value) {
    const [games, metrics] = await Promise.all([
      fetch(`${server.http}/api/games?limit=20`),
      fetch(`${server.http}/metrics`),
    ]);
    assert.equal(games.status, 200);
    assert.equal(metrics.status, 200);
    await Promise.all([games.json(), metrics.text()]);
    await lobby.ok({ type: 'games', limit: 10 });
    reads++;
  }
  // The games were listed and unlisted from several threads at once. Lists reach a subscriber
  // in the order they were made, so the last update it holds is the lobby as it is now (the
  // reply to a new subscription), and none comes after that reply.
  // (The first subscription's reply counts as the first list: the games may all have come and
  // gone before it.)
  const now = await lobby.ok({ type: 'lobby' });
  await lobby.ok({ type: 'ping' });
  const lists = lobby.messages.filter((m) => m.type === 'lobby');
  const replyAt = lists.indexOf(now);
  assert.equal(replyAt, lists.length - 1, 'no update after the current lobby');
  assert.deepEqual(lists[replyAt - 1].games, now.games, 'the last update is the current lobby');
  await lobby.close();
  return reads;
}

test('concurrent games, spectators, lobby and HTTP readers lose and reorder nothing', async () => {
  const done = { value: false };
  const reading = readers(done);
  const results = await Promise.all(Array.from({ length: GAMES }, (_, i) => oneGame(i)));
  done.value = true;
  assert.ok((await reading) > 0);
  for (const { game, played } of results) {
    const record = await (await fetch(`${server.http}/api/games/${game}`)).json();
    assert.deepEqual(record.moves.map((m) => m.move), played, 'storage has every move');
  }
});

test('players who leave and come back at once race their game leaving memory: nothing is lost', async () => {
  // With --disconnect-timeout 0 a game everyone left leaves memory a millisecond later. The new
  // connections are open before the old ones close and resume at varied moments, so a resume
  // reaches the room before the leaves, between them and the unloading, or after it (routed to
  // the game brought back from storage). Each time the game must go on from where it was.
  const fast = await startServer({ args: ['--threads', '4', '--rate', '100000', '--burst', '100000', '--disconnect-timeout', '0'] });
  try {
    let a = await Client.connect(fast.url, 'Ana');
    let b = await Client.connect(fast.url, 'Bo');
    const { game, tokenA, tokenB, stateA } = await startGame(a, b, { variant: 'draughts' });
    const played = [];
    let legal = stateA.legal;
    for (let round = 0; round < 40 && legal.length > 0; round++) {
      const [a2, b2] = await Promise.all([Client.connect(fast.url, 'Ana'), Client.connect(fast.url, 'Bo')]);
      const closing = Promise.all([a.close(), b.close()]);
      // Resume at once, or once the server may have seen the leaves, or some milliseconds after
      // the game left memory (1 ms after the leaves, plus the timer's latency).
      if (round % 3 >= 1) await closing;
      if (round % 3 === 2) await new Promise((r) => setTimeout(r, round % 5));
      const [sa, sb] = await Promise.all([
        a2.ok({ type: 'resume', game, token: tokenA }),
        b2.ok({ type: 'resume', game, token: tokenB }),
      ]);
      await closing;
      for (const state of [sa, sb]) {
        assert.equal(state.status, 'playing');
        assert.deepEqual(state.moves, played, `round ${round}: the moves so far`);
      }
      [a, b] = [a2, b2];
      const [mover, other] = played.length % 2 === 0 ? [a, b] : [b, a];
      const reply = await mover.ok({ type: 'move', game, move: legal[round % legal.length], ply: played.length });
      await other.nextOf('moved', (m) => m.game === game && m.ply === played.length + 1);
      played.push(reply.move);
      legal = reply.legal;
    }
    const record = await (await fetch(`${fast.http}/api/games/${game}`)).json();
    assert.deepEqual(record.moves.map((m) => m.move), played, 'storage has every move');
    for (const client of [a, b]) await client.close();
  } finally {
    assert.equal((await fast.stop()).code, 0);
  }
});
