// Games people leave: a connection may hold only so many open games (waiting for an opponent,
// or against an engine); a waiting game whose creator left and did not come back within the disconnect timeout is aborted (reason
// abandoned); and a game in play that everyone left leaves memory until someone asks for it.
// Without these, clients could fill memory and the lobby with games nobody plays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame, play } from './harness.mjs';
import { scrape, scrapeUntil, gamesInMemory } from './prometheus.mjs';

const args = ['--disconnect-timeout', '1', '--max-open-games', '3'];
let server;
before(async () => (server = await startServer({ args })));
after(async () => assert.equal((await server.stop()).code, 0));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitingIds(client) {
  const listed = await client.ok({ type: 'games', status: 'waiting', limit: 200 });
  return listed.games.map((g) => g.game).sort();
}

test('a connection may hold only so many open games; a refused create changes nothing', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const created = [];
  for (let i = 0; i < 3; i++) created.push((await a.ok({ type: 'create', variant: 'chess' })).game);
  const before = await waitingIds(b);
  const refused = await a.request({ type: 'create', variant: 'xiangqi' });
  assert.equal(refused.code, 'not_allowed');
  assert.match(refused.message, /already has 3 open games/);
  assert.deepEqual(await waitingIds(b), before, 'the refused create stored and listed nothing');

  const vsEngine = { type: 'create', variant: 'chess', side: 'first', opponent: { engine: 'builtin', level: 1 } };
  assert.equal((await a.request(vsEngine)).code, 'not_allowed', 'a game against the engine counts too');

  // A waiting game that is aborted or joined frees its place; a game against the engine, once
  // it is over.
  await a.ok({ type: 'abort', game: created[0] });
  const engine = await a.ok(vsEngine);
  assert.equal((await a.request({ type: 'create', variant: 'chess' })).code, 'not_allowed');
  await a.ok({ type: 'abort', game: engine.game });
  created.push((await a.ok({ type: 'create', variant: 'draughts' })).game);
  await b.ok({ type: 'join', game: created[1] });
  created.push((await a.ok({ type: 'create', variant: 'chess', private: true })).game);
  assert.equal((await a.request({ type: 'create', variant: 'chess' })).code, 'not_allowed');

  // The bound is per connection.
  const c = await Client.connect(server.url, 'Cy');
  const other = await c.ok({ type: 'create', variant: 'chess' });
  for (const game of [created[2], created[3], created[4]]) await a.ok({ type: 'abort', game });
  await c.ok({ type: 'abort', game: other.game });
  await b.ok({ type: 'resign', game: created[1] });
  for (const client of [a, b, c]) await client.close();
});

test('a waiting game whose creator does not come back is aborted as abandoned', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const { game } = await a.ok({ type: 'create', variant: 'chess', side: 'first' });
  const watcher = await Client.connect(server.url);
  await watcher.ok({ type: 'watch', game });
  const left = Date.now();
  await a.close();
  const presence = await watcher.nextOf('presence', (m) => m.connected === false);
  assert.equal(presence.seat, 'white');
  const ended = await watcher.nextOf('ended', (m) => m.game === game, 5000);
  assert.ok(Date.now() - left >= 950, `aborted ${Date.now() - left} ms after the creator left`);
  assert.equal(ended.status, 'aborted');
  assert.equal(ended.reason, 'abandoned');
  assert.equal(ended.result, null);
  assert.ok(!(await waitingIds(watcher)).includes(game), 'it left the lobby');
  const join = await watcher.request({ type: 'join', game });
  assert.equal(join.code, 'game_over');
  await watcher.close();
});

test('an abandoned game with nobody in it leaves memory, and storage still has it', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const { game } = await a.ok({ type: 'create', variant: 'draughts' });
  await scrapeUntil(server.http, (now) => gamesInMemory(now, 'waiting', 'draughts') === 1, 'the waiting game');
  await a.close();
  await scrapeUntil(
    server.http,
    (now) =>
      gamesInMemory(now, 'waiting', 'draughts') === 0 &&
      gamesInMemory(now, 'aborted', 'draughts') === 0,
    'the abandoned game to leave memory',
  );
  const watcher = await Client.connect(server.url);
  const state = await watcher.ok({ type: 'watch', game });
  assert.equal(state.status, 'aborted');
  assert.equal(state.reason, 'abandoned');
  await watcher.close();
});

test('a creator who comes back in time keeps the game', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const { game, token } = await a.ok({ type: 'create', variant: 'xiangqi' });
  await a.close();
  await sleep(300);
  const back = await Client.connect(server.url, 'Ana');
  const state = await back.ok({ type: 'resume', game, token });
  assert.equal(state.status, 'waiting');
  await sleep(1500); // past the timeout counted from the first leave
  const b = await Client.connect(server.url, 'Bo');
  await b.ok({ type: 'join', game });
  assert.equal((await back.nextOf('state', (m) => m.game === game && m.status === 'playing')).status, 'playing');
  await b.ok({ type: 'resign', game });
  for (const client of [back, b]) await client.close();
});

test('after a restart, a waiting game nobody resumes is aborted a timeout later', async () => {
  const first = await startServer({ args });
  const a = await Client.connect(first.url, 'Ana');
  const { game } = await a.ok({ type: 'create', variant: 'chess' });
  await first.kill();
  const again = await startServer({ db: first.database, args });
  try {
    const watcher = await Client.connect(again.url);
    const state = await watcher.ok({ type: 'watch', game });
    assert.equal(state.status, 'waiting', 'restored as it was');
    const ended = await watcher.nextOf('ended', (m) => m.game === game, 5000);
    assert.equal(ended.status, 'aborted');
    assert.equal(ended.reason, 'abandoned');
    await watcher.close();
  } finally {
    await again.stop();
    first.cleanup();
  }
});

test('an untimed game everyone left leaves memory, and comes back as it was for a resume', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game, tokenA, tokenB } = await startGame(a, b, { variant: 'xiangqi' });
  await play(game, a, b, ['h3e3', 'h10g8']);
  await scrapeUntil(server.http, (now) => gamesInMemory(now, 'playing', 'xiangqi') === 1, 'the game in memory');
  const watcher = await Client.connect(server.url);
  await watcher.ok({ type: 'watch', game });
  await a.close();
  await b.close();
  await sleep(1300);
  let now = await scrape(server.http);
  assert.equal(gamesInMemory(now, 'playing', 'xiangqi'), 1, 'a spectator keeps it');
  await watcher.close();
  await scrapeUntil(server.http, (now) => gamesInMemory(now, 'playing', 'xiangqi') === 0, 'the game to leave memory');

  const a2 = await Client.connect(server.url, 'Ana');
  const b2 = await Client.connect(server.url, 'Bo');
  const state = await a2.ok({ type: 'resume', game, token: tokenA });
  assert.equal(state.status, 'playing');
  assert.deepEqual(state.moves, ['h3e3', 'h10g8']);
  await b2.ok({ type: 'resume', game, token: tokenB });
  await play(game, a2, b2, ['h1g3', 'i10h10'], 2);
  now = await scrape(server.http);
  assert.equal(gamesInMemory(now, 'playing', 'xiangqi'), 1, 'one room for the game');
  await a2.ok({ type: 'resign', game });
  for (const client of [a2, b2]) await client.close();
});

test('requests sent at once to a game out of memory are answered in the order sent', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game, tokenA, tokenB } = await startGame(a, b, { variant: 'chess' });
  await play(game, a, b, ['e2e4', 'e7e5']);
  await a.close();
  await b.close();
  await scrapeUntil(server.http, (now) => gamesInMemory(now, 'playing', 'chess') === 0, 'the game to leave memory');

  // The resume and the move that relies on it go out together, before the game is read back;
  // so do a watch and the unwatch that takes it back.
  const a2 = await Client.connect(server.url, 'Ana');
  const b2 = await Client.connect(server.url, 'Bo');
  const w = await Client.connect(server.url);
  w.send({ type: 'watch', game, id: 'watch' });
  w.send({ type: 'unwatch', game });
  a2.send({ type: 'resume', game, token: tokenA, id: 'resume' });
  a2.send({ type: 'move', game, move: 'g1f3', ply: 2, id: 'move' });
  b2.send({ type: 'watch', game: 'nosuchgame0', id: 'unknown' });
  b2.send({ type: 'resume', game, token: tokenB, id: 'resume' });
  assert.equal((await a2.next((m) => m.id === 'resume')).type, 'state');
  const moved = await a2.next((m) => m.id === 'move');
  assert.equal(moved.type, 'moved', JSON.stringify(moved));
  assert.equal(moved.ply, 3);
  const unknown = await b2.next((m) => m.id === 'unknown');
  assert.equal(unknown.code, 'unknown_game');
  // The two connections' requests may run in either order; either way Bo sees the move.
  const resumed = await b2.next((m) => m.id === 'resume');
  assert.equal(resumed.type, 'state');
  if (resumed.ply === 2) await b2.nextOf('moved', (m) => m.game === game && m.ply === 3);
  else assert.deepEqual(resumed.moves, ['e2e4', 'e7e5', 'g1f3']);
  await play(game, b2, a2, ['b8c6'], 3);
  assert.equal((await w.next((m) => m.id === 'watch')).type, 'state');
  await a2.ok({ type: 'resign', game });
  await b2.nextOf('ended', (m) => m.game === game);
  await w.ok({ type: 'ping' });
  await sleep(200);
  // Events sent while it was briefly a member may have reached it; the end, long after, not.
  assert.ok(!w.messages.some((m) => m.game === game && m.type === 'ended'), 'the unwatch took the watch back');
  for (const client of [a2, b2, w]) await client.close();
});

test('a timed game everyone left leaves memory, and its flag still falls on time', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  // White's 3 s run from black's move: the unload (past the 1 s disconnect timeout) comes well
  // before the flag. With 1.5 s, a slow close on a loaded machine let the flag fall first.
  const { game } = await startGame(a, b, { variant: 'chess', clock: { initial_ms: 3000, increment_ms: 0 } });
  await play(game, a, b, ['e2e4', 'e7e5']);
  const leftAt = Date.now();
  await a.close();
  await b.close();
  // Its running clock no longer keeps it in memory (a day-long clock would pin it for a day).
  await scrapeUntil(server.http, (now) => gamesInMemory(now, 'playing', 'chess') === 0, 'the game leaving memory', 10000);
  // Nobody asks for it: the server brings it back when white's flag falls and stores the end.
  let record;
  for (;;) {
    record = await (await fetch(`${server.http}/api/games/${game}`)).json();
    if (record.status === 'ended' || Date.now() - leftAt > 15000) break;
    await sleep(200);
  }
  assert.equal(record.status, 'ended', 'stored as ended with nobody asking for it');
  assert.equal(record.reason, 'timeout');
  assert.equal(record.result, '0-1');
  assert.ok(Date.now() - leftAt >= 2500, 'not before the flag');
  await scrapeUntil(server.http, (now) => gamesInMemory(now, 'playing', 'chess') === 0 && gamesInMemory(now, 'ended', 'chess') === 0, 'leaving memory again', 10000);
  const watcher = await Client.connect(server.url);
  const state = await watcher.ok({ type: 'watch', game });
  assert.equal(state.status, 'ended');
  assert.equal(state.reason, 'timeout');
  assert.equal(state.result, '0-1');
  await watcher.close();
});

test('a game against the engine that its player left leaves memory, and the engine plays on after a resume', async () => {
  const playing = async () => gamesInMemory(await scrape(server.http), 'playing', 'draughts');
  const before = await playing();
  const a = await Client.connect(server.url, 'Ana');
  const created = await a.ok({ type: 'create', variant: 'draughts', side: 'first', opponent: { engine: 'builtin', level: 1 } });
  const { game, token } = created;
  const start = await a.nextOf('state', (m) => m.game === game);
  const first = await a.ok({ type: 'move', game, move: start.legal[0], ply: 0 });
  const reply = await a.nextOf('moved', (m) => m.game === game && m.ply === 2);
  await a.close();
  await scrapeUntil(server.http, (now) => gamesInMemory(now, 'playing', 'draughts') === before, 'the game to leave memory');

  const back = await Client.connect(server.url, 'Ana');
  const state = await back.ok({ type: 'resume', game, token });
  assert.deepEqual(state.moves, [first.move, reply.move]);
  assert.equal(await playing(), before + 1);
  await back.ok({ type: 'move', game, move: state.legal[0], ply: 2 });
  const answered = await back.nextOf('moved', (m) => m.game === game && m.ply === 4, 10000);
  assert.equal(answered.game, game, 'the engine, brought back with the game, answers');
  await back.ok({ type: 'resign', game });
  await back.close();
});

test('a rematch against the engine counts as an open game of the connection', async () => {
  // Create, resign, rematch, create, ... piled up engine games past --max-open-games (3 here).
  const a = await Client.connect(server.url, 'Ana');
  const vsEngine = { type: 'create', variant: 'chess', side: 'first', opponent: { engine: 'builtin', level: 1 } };
  const games = [];
  for (let i = 0; i < 2; i++) games.push((await a.ok(vsEngine)).game);
  const first = games[0];
  await a.ok({ type: 'resign', game: first });
  await a.ok({ type: 'rematch', game: first, action: 'offer' });
  const rematch = await a.nextOf('joined', (m) => m.game !== first);
  games.push(rematch.game);
  games.push((await a.ok(vsEngine)).game); // the third open one: the two left and the rematch
  const refused = await a.request(vsEngine);
  assert.equal(refused.code, 'not_allowed', 'the rematch is one of the 3 open games');
  for (const game of games.slice(1)) await a.ok({ type: 'resign', game });
  await a.close();
});
