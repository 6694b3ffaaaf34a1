// GET /metrics: Prometheus text that moves with the games — moves accepted and refused (by code),
// rate-limit hits, connection roles, games in memory, latency histograms, database and process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame } from './harness.mjs';
import { scrape, metric, scrapeUntil, gamesInMemory } from './prometheus.mjs';

let server;
before(async () => (server = await startServer({ args: ['--rate', '5', '--burst', '10'] })));
after(async () => assert.equal((await server.stop()).code, 0));

function histogramIsConsistent(parsed, name) {
  const buckets = parsed.samples.filter((s) => s.name === `${name}_bucket`);
  assert.ok(buckets.length > 2, `${name} has buckets`);
  for (let i = 1; i < buckets.length; i++) {
    assert.ok(buckets[i].value >= buckets[i - 1].value, `${name} buckets are cumulative`);
    assert.ok(Number(buckets[i].labels.le) > Number(buckets[i - 1].labels.le) || buckets[i].labels.le === '+Inf');
  }
  assert.equal(buckets.at(-1).labels.le, '+Inf');
  assert.equal(buckets.at(-1).value, metric(parsed, `${name}_count`));
  assert.equal(parsed.types.get(name), 'histogram');
}

test('metrics follow a move, a refusal, a rate-limit hit and the connections', async () => {
  const before = await scrape(server.http);
  const code = (c) => ({ code: c });
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game } = await startGame(a, b, { variant: 'chess' });
  await a.ok({ type: 'move', game, move: 'e2e4', ply: 0 });
  const illegal = await b.request({ type: 'move', game, move: 'e7e4', ply: 1 });
  assert.equal(illegal.code, 'illegal_move');
  const early = await a.request({ type: 'move', game, move: 'd2d4', ply: 1 });
  assert.equal(early.code, 'not_your_turn');

  const watcher = await Client.connect(server.url, 'Watcher');
  await watcher.ok({ type: 'watch', game });
  const lobby = await Client.connect(server.url, 'Lobbyist');
  await lobby.ok({ type: 'lobby' });
  const idle = await Client.connect(server.url);

  // A burst over --burst 10 from one connection: the rest are refused with rate_limited.
  const flooder = await Client.connect(server.url);
  for (let i = 0; i < 20; i++) flooder.send({ type: 'ping', id: `p${i}` });
  // Every ping is answered (a pong or rate_limited, by its id) after it was counted: the scrape
  // comes after the whole flood, not in the middle of it.
  for (let i = 0; i < 20; i++) await flooder.next((m) => m.id === `p${i}`);
  assert.ok(flooder.messages.some((m) => m.code === 'rate_limited'));

  const now = await scrape(server.http);
  const delta = (name, labels) => metric(now, name, labels) - metric(before, name, labels);
  assert.equal(delta('arbiter_moves_accepted_total'), 1);
  assert.equal(delta('arbiter_moves_refused_total', code('illegal_move')), 1);
  assert.equal(delta('arbiter_moves_refused_total', code('not_your_turn')), 1);
  assert.equal(delta('arbiter_requests_refused_total', code('illegal_move')), 1);
  assert.ok(delta('arbiter_rate_limited_total') >= 1);
  assert.equal(delta('arbiter_rate_limited_total'), delta('arbiter_requests_refused_total', code('rate_limited')));
  assert.equal(delta('arbiter_games_created_total'), 1);
  // Commits: the creation, the join and the move at least.
  assert.ok(delta('arbiter_move_commit_seconds_count') >= 3);
  assert.ok(delta('arbiter_message_latency_seconds_count') >= 10);

  assert.equal(metric(now, 'arbiter_websocket_connections', { role: 'player' }), 2);
  assert.equal(metric(now, 'arbiter_websocket_connections', { role: 'spectator' }), 1);
  assert.equal(metric(now, 'arbiter_websocket_connections', { role: 'lobby' }), 1);
  assert.equal(metric(now, 'arbiter_websocket_connections', { role: 'other' }), 2);
  assert.ok(metric(now, 'arbiter_connections_open') >= 6);
  assert.equal(metric(now, 'arbiter_games_in_memory', { status: 'playing', variant: 'chess' }), 1);
  assert.equal(metric(now, 'arbiter_games_in_memory', { status: 'playing', variant: 'xiangqi' }), 0);

  histogramIsConsistent(now, 'arbiter_move_commit_seconds');
  histogramIsConsistent(now, 'arbiter_message_latency_seconds');
  assert.ok(metric(now, 'arbiter_database_bytes') > 0);
  assert.equal(metric(now, 'arbiter_slow_consumer_closes_total'), 0);
  assert.equal(now.types.get('arbiter_outgoing_frames_dropped_total'), 'counter');
  assert.ok(metric(now, 'process_resident_memory_bytes') > 1e6);
  assert.ok(metric(now, 'process_open_fds') > 5);
  assert.ok(Math.abs(metric(now, 'process_start_time_seconds') - Date.now() / 1000) < 600);

  for (const c of [a, b, watcher, lobby, idle, flooder]) await c.close();
});

test('a game that ends leaves the playing gauge and counts as ended', async () => {
  const before = await scrape(server.http);
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game } = await startGame(a, b, { variant: 'draughts' });
  const during = await scrape(server.http);
  assert.equal(metric(during, 'arbiter_games_in_memory', { status: 'playing', variant: 'draughts' }), 1);
  await a.ok({ type: 'resign', game });
  await b.nextOf('ended');
  const now = await scrape(server.http);
  assert.equal(metric(now, 'arbiter_games_ended_total') - metric(before, 'arbiter_games_ended_total'), 1);
  assert.equal(metric(now, 'arbiter_games_in_memory', { status: 'playing', variant: 'draughts' }), 0);
  for (const c of [a, b]) await c.close();
});

test('a finished game leaves memory once its players have gone on to other games', async () => {
  // A connection used to stay in every game it played until it closed, so a player
  // who played game after game on one connection kept each finished room in memory.
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game } = await startGame(a, b, { variant: 'draughts' });
  await a.ok({ type: 'resign', game });
  await b.nextOf('ended', (m) => m.game === game);
  // (The earlier test's finished draughts game leaves memory on its own strand: wait for that.)
  await scrapeUntil(server.http, (now) => gamesInMemory(now, 'ended', 'draughts') === 1, 'one finished draughts game in memory');

  // Ana creates another game and Bo joins it: both leave the finished one, which leaves memory
  // (it stayed while they were in it, until they closed)...
  const next = await a.ok({ type: 'create', side: 'first', variant: 'xiangqi' });
  await b.ok({ type: 'join', game: next.game });
  await scrapeUntil(server.http, (now) => gamesInMemory(now, 'ended', 'draughts') === 0, 'the finished game to leave memory');
  // ...and comes back from storage for whoever asks for it.
  const watcher = await Client.connect(server.url);
  const state = await watcher.ok({ type: 'watch', game });
  assert.equal(state.status, 'ended');
  for (const c of [a, b, watcher]) await c.close();
});

test('a rematch keeps the game it came from until the next one starts', async () => {
  const playingBefore = gamesInMemory(await scrape(server.http), 'playing', 'xiangqi');
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const first = (await startGame(a, b, { variant: 'xiangqi' })).game;
  const rematch = async (game, resigner, other) => {
    await resigner.ok({ type: 'resign', game });
    await other.nextOf('ended', (m) => m.game === game);
    await other.ok({ type: 'rematch', game, action: 'offer' });
    await resigner.nextOf('offer', (m) => m.game === game && m.kind === 'rematch');
    // Both are seated in the new game and still hear the `rematch` event in the old one (the
    // accepter as its reply).
    const seenByResigner = await resigner.ok({ type: 'rematch', game, action: 'accept' });
    const seenByOther = await other.nextOf('rematch', (m) => m.game === game);
    assert.equal(seenByResigner.type, 'rematch');
    assert.equal(seenByOther.next, seenByResigner.next);
    await resigner.nextOf('state', (m) => m.game === seenByOther.next && m.status === 'playing');
    await other.nextOf('state', (m) => m.game === seenByOther.next && m.status === 'playing');
    return seenByOther.next;
  };
  const second = await rematch(first, a, b);
  assert.equal(gamesInMemory(await scrape(server.http), 'ended', 'xiangqi'), 1, 'the first game stays');
  await rematch(second, b, a);
  // The third game's players left the first game (finished, not the one they rematched from).
  await scrapeUntil(
    server.http,
    (now) => gamesInMemory(now, 'ended', 'xiangqi') === 1 && gamesInMemory(now, 'playing', 'xiangqi') === playingBefore + 1,
    'only the second game to stay finished in memory');
  for (const c of [a, b]) await c.close();
});
