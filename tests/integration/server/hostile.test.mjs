// Bad input gets an error with a stable code and changes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame, play, withServer } from './harness.mjs';
import { scrape, metric } from './prometheus.mjs';

let server;
before(async () => (server = await startServer({ args: ['--max-frame-bytes', '4096', '--rate', '50', '--burst', '50'] })));
after(async () => assert.equal((await server.stop()).code, 0));

async function unchanged(client, game, expectMoves) {
  const state = await client.ok({ type: 'watch', game });
  assert.deepEqual(state.moves, expectMoves);
  return state;
}

test('malformed frames: bad_json, unknown_type, bad_request', async () => {
  const c = await Client.connect(server.url);
  c.send('{not json');
  assert.equal((await c.nextOf('error')).code, 'bad_json');
  c.send('[1,2,3]');
  assert.equal((await c.nextOf('error')).code, 'bad_json');
  assert.equal((await c.request({ type: 'fly' })).code, 'unknown_type');
  assert.equal((await c.request({ type: 'create', variant: 'checkers' })).code, 'bad_request');
  assert.equal((await c.request({ type: 'create', variant: 'chess', colour: 'white' })).code, 'bad_request');
  assert.equal((await c.request({ type: 'move', game: 'x', move: 5, ply: 0 })).code, 'bad_request');
  assert.equal((await c.request({ type: 'create', variant: 'chess', position: '8/8/8/8/8/8/8/8 w - - 0 1' })).code, 'bad_request');
  assert.equal((await c.request({ type: 'join', game: 'nosuchgame' })).code, 'unknown_game');
  const pong = await c.request({ type: 'ping' });
  assert.equal(pong.type, 'pong', 'the connection still works after bad input');
});

test('create with a position of only spaces is bad_request and creates nothing; "" is the start', async () => {
  const c = await Client.connect(server.url, 'Ana');
  const newest = async () => (await c.ok({ type: 'games', limit: 1 })).games[0]?.game;
  const before = await newest();
  for (const variant of ['chess', 'xiangqi', 'draughts']) {
    const refused = await c.request({ type: 'create', variant, position: '   ' });
    assert.equal(refused.code, 'bad_request', variant);
    assert.match(refused.message, /"position": only spaces/, variant);
  }
  assert.equal(await newest(), before, 'no game was stored');
  assert.ok(!c.pending().some((m) => m.type === 'created' || m.type === 'state'), 'no game was opened');
  const created = await c.ok({ type: 'create', variant: 'chess', position: '' });
  const state = await c.nextOf('state', (m) => m.game === created.game);
  assert.equal(state.initial_position, 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
  await c.ok({ type: 'abort', game: created.game });
  await c.close();
});

test('moves: out of turn, illegal, stale, by a spectator, by a stranger, after the end', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const stranger = await Client.connect(server.url, 'Eve');
  const { game } = await startGame(a, b, { variant: 'chess' });
  await play(game, a, b, ['e2e4']);

  assert.equal((await a.request({ type: 'move', game, move: 'd2d4', ply: 1 })).code, 'not_your_turn');
  const illegal = await b.request({ type: 'move', game, move: 'e7e4', ply: 1 });
  assert.equal(illegal.code, 'illegal_move');
  assert.ok(illegal.message.length > 0, 'the message says why');
  assert.equal((await b.request({ type: 'move', game, move: 'e7e5', ply: 5 })).code, 'stale_ply');
  assert.equal((await b.request({ type: 'move', game, move: 'zz', ply: 1 })).code, 'illegal_move');
  await stranger.ok({ type: 'watch', game });
  assert.equal((await stranger.request({ type: 'move', game, move: 'e7e5', ply: 1 })).code, 'forbidden');
  assert.equal((await stranger.request({ type: 'resign', game })).code, 'forbidden');
  assert.equal((await stranger.request({ type: 'resume', game, token: 'f'.repeat(32) })).code, 'forbidden');
  assert.equal((await stranger.request({ type: 'join', game })).code, 'seat_taken');
  await unchanged(stranger, game, ['e2e4']);

  await b.ok({ type: 'resign', game });
  assert.equal((await a.request({ type: 'move', game, move: 'd2d4', ply: 1 })).code, 'game_over');
  await unchanged(stranger, game, ['e2e4']);
});

// protocol.md, Errors: `game_over` is "a move or an action other than `rematch` in a game that has
// ended"; only a re-send of a move played is answered with its `moved` again. A move at an older
// ply of a finished game is refused as game_over, as one at the current or a later ply is (not as
// stale_ply, which tells a client to catch up and try again).
test('after the end, a move at any ply that is not a re-send is game_over', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game } = await startGame(a, b, { variant: 'chess' });
  const first = await a.ok({ type: 'move', game, move: 'e2e4', ply: 0 });
  await b.nextOf('moved', (m) => m.game === game && m.ply === 1);
  await play(game, b, a, ['e7e5', 'g1f3'], 1);
  await b.ok({ type: 'resign', game });
  for (const ply of [0, 1, 3, 9]) {
    const reply = await a.request({ type: 'move', game, move: 'd2d4', ply });
    assert.equal(reply.code, 'game_over', `a move at ply ${ply} after the end: ${JSON.stringify(reply)}`);
  }
  const again = await a.request({ type: 'move', game, move: 'e2e4', ply: 0 });
  assert.equal(again.type, 'moved', 'a re-send is still answered with its event');
  assert.equal(again.seq, first.seq);
  await unchanged(b, game, ['e2e4', 'e7e5', 'g1f3']);
  await Promise.all([a.close(), b.close()]);
});

test('a token is never shown to anyone but its seat', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const w = await Client.connect(server.url, 'W');
  const { game, tokenA, tokenB } = await startGame(a, b, { variant: 'draughts' });
  await w.ok({ type: 'watch', game });
  await play(game, a, b, ['21-17', '10-14']);
  const everything = (c) => JSON.stringify(c.messages);
  assert.ok(!everything(b).includes(tokenA));
  assert.ok(!everything(a).includes(tokenB));
  assert.ok(!everything(w).includes(tokenA) && !everything(w).includes(tokenB));
});

test('a frame over the size limit is refused with too_large and the connection closed', async () => {
  const c = await Client.connect(server.url);
  c.send(JSON.stringify({ type: 'hello', name: 'x'.repeat(8000) }));
  const closed = await c.closedPromise;
  assert.equal(closed.code, 1009);
});

test('a flood is rate limited, and every request is answered by its id', async () => {
  const c = await Client.connect(server.url);
  const started = Date.now();
  for (let i = 0; i < 120; i++) c.send({ type: 'ping', id: `p${i}` });
  const answers = [];
  for (let i = 0; i < 120; i++) answers.push(await c.next((m) => m.id === `p${i}`));
  const elapsed = (Date.now() - started) / 1000;
  const limited = answers.filter((m) => m.type === 'error');
  assert.ok(limited.length > 0, 'some were refused');
  assert.ok(limited.every((m) => m.code === 'rate_limited'), JSON.stringify(limited[0]));
  // The burst (50) and what the rate (50/s) refilled while the flood was read; no more.
  const pongs = answers.filter((m) => m.type === 'pong').length;
  assert.equal(pongs + limited.length, 120);
  assert.ok(pongs <= 50 + Math.ceil(50 * elapsed), `at most the burst is answered (${pongs} in ${elapsed} s)`);
});

test('a flood of reads of stored games waits in a bounded queue: the rest are refused, live games play on', async () => {
  const flooded = await startServer({ args: ['--rate', '10000', '--burst', '10000', '--max-queued-reads', '1'], logLevel: 'info' });
  try {
    const a = await Client.connect(flooded.url, 'Ana');
    const b = await Client.connect(flooded.url, 'Bo');
    const stored = [];
    for (let i = 0; i < 12; i++) {
      const { game } = await startGame(a, b, { variant: 'chess' });
      await play(game, a, b, ['e2e4', 'e7e5']);
      await a.ok({ type: 'resign', game });
      stored.push(game);
    }
    const live = await startGame(a, b, { variant: 'chess' });
    // Finished games nobody is in leave memory: each watch below reads one back from storage.
    const flood = [];
    for (let i = 0; i < 16; i++) flood.push(await Client.connect(flooded.url));
    const sent = [];
    flood.forEach((c, i) => {
      for (let k = 0; k < 40; k++) {
        const id = `w${i}-${k}`;
        const request = k % 4 === 3 ? { type: 'replay', game: stored[(i + k) % stored.length] } : { type: 'watch', game: stored[(i + k) % stored.length] };
        c.send({ ...request, id });
        sent.push({ c, id, request });
      }
    });
    // Meanwhile the live game's moves are answered.
    await play(live.game, a, b, ['d2d4', 'd7d5', 'c2c4']);
    let served = 0;
    let refused = 0;
    for (const { c, id, request } of sent) {
      const answer = await c.next((m) => m.id === id);
      if (answer.type === 'error') {
        assert.equal(answer.code, 'unavailable', JSON.stringify(answer));
        assert.match(answer.message, /busy reading stored games/);
        refused++;
      } else {
        assert.equal(answer.type, request.type === 'watch' ? 'state' : 'record', JSON.stringify(answer));
        assert.equal(answer.game, request.game);
        assert.deepEqual(answer.moves.map((m) => (typeof m === 'string' ? m : m.move)), ['e2e4', 'e7e5']);
        served++;
      }
    }
    assert.equal(served + refused, sent.length, 'every request answered once');
    assert.ok(served > 0 && refused > 0, `served ${served}, refused ${refused}`);
    // Requests for a game already being refused share its refusal: at most one read each.
    const now = await scrape(flooded.http);
    const refusedReads = metric(now, 'arbiter_reads_total', { outcome: 'refused' });
    assert.ok(refusedReads > 0 && refusedReads <= refused, `${refusedReads} reads refused`);
    assert.ok(metric(now, 'arbiter_reads_total', { outcome: 'done' }) > 0);
    assert.equal(metric(now, 'arbiter_reads_waiting'), 0);
    // The log says so once a second, not once per refused request.
    const logged = flooded.stderr().match(/reads_refused/g) ?? [];
    assert.ok(logged.length >= 1 && logged.length <= 10, `${logged.length} reads_refused lines for ${refused} refusals`);
    assert.ok(!/request_refused.*unavailable/.test(flooded.stderr()), 'no line per busy refusal');
    // Once the flood is over, reads are served again and nothing was changed by the refusals.
    const late = await Client.connect(flooded.url);
    const state = await late.ok({ type: 'watch', game: stored[0] });
    assert.equal(state.status, 'ended');
    assert.equal(state.reason, 'resign');
    for (const c of [a, b, late, ...flood]) await c.close();
  } finally {
    assert.equal((await flooded.stop()).code, 0);
  }
});

/** A long legal game that no rule ends: each pair of pawn steps is followed by one knight trip
 * out and back (its position then seen twice, never three times). 96 plies. */
function longGame() {
  const moves = [];
  const trip = (file) => (file === 'h' ? ['b1a3', 'b8a6', 'a3b1', 'a6b8'] : ['g1h3', 'g8h6', 'h3g1', 'h6g8']);
  for (const file of 'abcdefgh') {
    for (const [white, black] of [[`${file}2${file}3`, `${file}7${file}6`], [`${file}3${file}4`, `${file}6${file}5`]]) {
      moves.push(white, black, ...trip(file));
    }
  }
  return moves;
}

test('players first: resume of a stored game succeeds while /api/games/{id} is flooded', async () => {
  // The API's own rate limit is out of the way, and its share of the reader is small: the flood
  // keeps it full. A player's read has a share of its own, and goes first.
  const flooded = await startServer({
    args: ['--api-rate', '1000000', '--api-burst', '1000000', '--disconnect-timeout', '0', '--max-queued-reads', '8'],
  });
  try {
    const a = await Client.connect(flooded.url, 'Ana');
    const b = await Client.connect(flooded.url, 'Bo');
    const { game, tokenA } = await startGame(a, b, { variant: 'chess' });
    const moves = longGame();
    await play(game, a, b, moves);
    a.close();
    b.close();
    let stop = false;
    const statuses = { 200: 0, 503: 0 };
    const flood = Array.from({ length: 100 }, async () => {
      while (!stop) {
        const response = await fetch(`${flooded.http}/api/games/${game}`);
        await response.arrayBuffer();
        assert.ok(response.status === 200 || response.status === 503, `status ${response.status}`);
        statuses[response.status]++;
      }
    });
    const deadline = Date.now() + 15000;
    while (statuses[503] === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(statuses[503] > 0, 'the flood fills the API share of the reader');
    const answers = [];
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100)); // nobody is in it: out of memory
      const c = await Client.connect(flooded.url);
      const reply = await c.request({ type: 'resume', game, token: tokenA });
      answers.push(reply.type === 'state' ? `state ${reply.moves.length}` : `${reply.type} ${reply.code}`);
      c.close();
    }
    stop = true;
    await Promise.all(flood);
    assert.deepEqual(answers, Array(10).fill(`state ${moves.length}`));
    const now = await scrape(flooded.http);
    assert.ok(metric(now, 'arbiter_reads_total', { outcome: 'refused' }) > 0, 'API reads were refused meanwhile');
  } finally {
    assert.equal((await flooded.stop()).code, 0);
  }
});

// WebSocket keep-alive (RFC 6455 5.5.2), with --idle-timeout 1: the server pings at least twice
// per idle timeout (every half second here), and a connection from which nothing came for the
// whole second is dropped (protocol.md, "Liveness").
test('a silent connection is pinged and kept while it answers, dropped when it does not', async () => {
  await withServer(['--idle-timeout', '1'], async (keeper) => {
    const answering = await Client.connect(keeper.url);
    const mute = await Client.connect(keeper.url, null, { autoPong: false });
    const talking = await Client.connect(keeper.url);
    const started = Date.now();
    const pings = new Map([answering, mute, talking].map((c) => [c, 0]));
    for (const c of pings.keys()) c.ws.on('ping', () => pings.set(c, pings.get(c) + 1));
    while (Date.now() - started < 3500) {
      assert.equal((await talking.request({ type: 'ping' })).type, 'pong');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(mute.closed, 'the connection that never answers a ping is dropped');
    assert.ok(pings.get(mute) >= 1, 'it was pinged first');
    assert.equal(answering.closed, null, 'the one that answers stays');
    assert.ok(pings.get(answering) >= 2, `it is pinged every period it is silent (${pings.get(answering)})`);
    assert.equal(talking.closed, null, 'nor is a connection that sends');
    assert.equal(metric(await scrape(keeper.http), 'arbiter_idle_closes_total'), 1);
    assert.equal((await answering.request({ type: 'ping' })).type, 'pong', 'and still works');
    await answering.close();
    await talking.close();
  });
});
