// Games waiting for an opponent: a connection may hold only so many, and one whose creator left
// and did not come back within the disconnect timeout is aborted (reason abandoned) and leaves
// the lobby and memory. Without both, a client could fill memory and the lobby with games.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client } from './harness.mjs';
import { scrape, metric } from './prometheus.mjs';

const args = ['--disconnect-timeout', '1', '--max-waiting-games', '3'];
let server;
before(async () => (server = await startServer({ args })));
after(async () => assert.equal((await server.stop()).code, 0));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitingIds(client) {
  const listed = await client.ok({ type: 'games', status: 'waiting', limit: 200 });
  return listed.games.map((g) => g.game).sort();
}

/** Scrapes /metrics until `check(parsed)` holds (rooms leave on their own strands), or fails. */
async function scrapeUntil(check, what) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const now = await scrape(server.http);
    if (check(now)) return now;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('a connection may hold only so many waiting games; a refused create changes nothing', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const created = [];
  for (let i = 0; i < 3; i++) created.push((await a.ok({ type: 'create', variant: 'chess' })).game);
  const before = await waitingIds(b);
  const refused = await a.request({ type: 'create', variant: 'xiangqi' });
  assert.equal(refused.code, 'not_allowed');
  assert.match(refused.message, /already has 3 games waiting/);
  assert.deepEqual(await waitingIds(b), before, 'the refused create stored and listed nothing');

  // A game against the engine waits for nobody: it is not counted.
  const engine = await a.ok({ type: 'create', variant: 'chess', side: 'first', opponent: { engine: 'builtin', level: 1 } });
  await a.ok({ type: 'abort', game: engine.game });

  // Each game that stops waiting, aborted or joined, frees its place.
  await a.ok({ type: 'abort', game: created[0] });
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
  const { game } = await a.ok({ type: 'create', variant: 'chess' });
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
  await scrapeUntil((now) => metric(now, 'arbiter_games_in_memory', { status: 'waiting', variant: 'draughts' }) === 1, 'the waiting game');
  await a.close();
  await scrapeUntil(
    (now) =>
      metric(now, 'arbiter_games_in_memory', { status: 'waiting', variant: 'draughts' }) === 0 &&
      metric(now, 'arbiter_games_in_memory', { status: 'aborted', variant: 'draughts' }) === 0,
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
