// protocol.md against the server, where issue 41 found them silent or at odds: each test names
// the place of the document it holds the server to.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame, play, withServer } from './harness.mjs';

let server;
before(async () => (server = await startServer()));
after(async () => assert.equal((await server.stop()).code, 0));

async function pair(create) {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  return { a, b, ...(await startGame(a, b, create)) };
}

async function refusal(client, game, move, ply) {
  const reply = await client.request({ type: 'move', game, move, ply });
  assert.equal(reply.type, 'error', move);
  assert.equal(reply.code, 'illegal_move', move);
  return reply.message;
}

// Errors, illegal_move: "the rules refuse the move; the message says why".
test('illegal_move says why, in the notation the move was written in', async () => {
  const { a, b, game } = await pair({ variant: 'chess' });
  assert.equal(await refusal(a, game, 'e2e5', 0), 'e2e5: a pawn cannot move there');
  assert.equal(await refusal(a, game, 'Qg5', 0), 'Qg5: no queen can reach g5');
  assert.equal(await refusal(a, game, 'hello', 0), 'hello: not a move in any notation');
  await play(game, a, b, ['e2e4', 'f7f6', 'd1h5']);
  assert.equal(await refusal(b, game, 'a7a6', 3), 'a7a6: your king is in check');
  assert.equal(await refusal(b, game, 'e8f7', 3), 'e8f7: your king would be in check');
  const x = await pair({ variant: 'xiangqi' });
  assert.equal(await refusal(x.a, x.game, 'b1d2', 0), 'b1d2: a horse cannot move there');
  const d = await pair({ variant: 'draughts', position: 'W:W22:B18' });
  assert.equal(await refusal(d.a, d.game, '22-17', 0), '22-17: a capture is compulsory: 22x15');
  for (const c of [a, b, x.a, x.b, d.a, d.b]) await c.close();
});

// Messages in general, wire move: a draughts capture is start x end unless two legal captures
// share them, then every landing square; any full path of a legal capture is accepted.
test('draughts captures: start and end on the wire, the full path only when that is ambiguous', async () => {
  const { a, b, game } = await pair({ variant: 'draughts', position: 'W:W22:B18,11' });
  const moved = await a.ok({ type: 'move', game, move: '22x15x8', ply: 0 });
  assert.equal(moved.move, '22x8');
  assert.equal(moved.notation, '22x8');
  const other = await pair({ variant: 'draughts', position: 'W:WK13:B7,15,17,19,K29' });
  assert.deepEqual([...other.stateA.legal].sort(), ['13x22x11x2', '13x26x16x2']);
  const ambiguous = await other.a.request({ type: 'move', game: other.game, move: '13x2', ply: 0 });
  assert.equal(ambiguous.code, 'illegal_move');
  const full = await other.a.ok({ type: 'move', game: other.game, move: '13x26x16x2', ply: 0 });
  assert.equal(full.move, '13x26x16x2');
  for (const c of [a, b, other.a, other.b]) await c.close();
});

// Limits, frame size: "`error` `too_large` ..., then close 1009", for any size over the limit.
test('a frame over the size limit is answered too_large before the close 1009', async () => {
  await withServer(['--max-frame-bytes', '4096'], async (small) => {
    for (const size of [4097, 20000, 150000, 400000]) {
      const c = await Client.connect(small.url);
      c.send(JSON.stringify({ type: 'ping', id: 'big', pad: 'x'.repeat(size) }));
      const closed = await c.closedPromise;
      assert.equal(closed.code, 1009, `${size} bytes`);
      const errors = c.messages.filter((m) => m.type === 'error');
      assert.deepEqual(errors.map((m) => m.code), ['too_large'], `${size} bytes`);
    }
    // A frame at the limit is read as usual.
    const c = await Client.connect(small.url);
    const ping = JSON.stringify({ type: 'ping', id: 'p' });
    c.send(ping.slice(0, -1) + ' '.repeat(4096 - ping.length) + '}');
    assert.equal((await c.next((m) => m.id === 'p')).type, 'pong');
    await c.close();
  });
});

// Close codes: 1003 for a binary frame.
test('a binary frame closes the connection with 1003 and no error', async () => {
  const c = await Client.connect(server.url);
  c.ws.send(Buffer.from(JSON.stringify({ type: 'ping' })), { binary: true });
  const closed = await c.closedPromise;
  assert.equal(closed.code, 1003);
  assert.deepEqual(c.messages, []);
});

// state: "`seq`: the last event this state includes"; a new game's first state has seq 1, the
// state after the join 2. A waiting game's state has no legal moves and the first seat's turn.
test('state: seq 1 for a new game, 2 once joined; a waiting game has legal [] and a turn', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const created = await a.ok({ type: 'create', variant: 'xiangqi', side: 'second' });
  const waiting = await a.nextOf('state', (s) => s.game === created.game);
  assert.equal(waiting.seq, 1);
  assert.equal(waiting.status, 'waiting');
  assert.deepEqual(waiting.legal, []);
  assert.equal(waiting.turn, 'red');
  assert.equal(waiting.ply, 0);
  await b.ok({ type: 'join', game: created.game });
  const playing = await b.nextOf('state', (s) => s.game === created.game);
  assert.equal(playing.seq, 2);
  assert.equal(playing.legal.length, 44);
  for (const c of [a, b]) await c.close();
});

// games: "public games only".
test('games leaves private games out', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const hidden = await a.ok({ type: 'create', variant: 'chess', private: true });
  const shown = await a.ok({ type: 'create', variant: 'chess' });
  const listed = (await a.ok({ type: 'games', status: 'waiting', limit: 200 })).games.map((g) => g.game);
  assert.ok(listed.includes(shown.game));
  assert.ok(!listed.includes(hidden.game));
  await a.close();
});

// resume: a takeover by a connection that still answers is no event; a player who was away and
// resumes is announced to everyone, itself included, after its state.
test('resume: no presence for a takeover between two live connections; the resumer hears its own', async () => {
  const { a, b, game, tokenA } = await pair({ variant: 'chess' });
  const a2 = await Client.connect(server.url, 'Ana');
  const state = await a2.ok({ type: 'resume', game, token: tokenA });
  assert.equal(state.type, 'state');
  await a.nextOf('seat_lost');
  assert.equal((await b.request({ type: 'ping' })).type, 'pong');
  assert.equal((await a2.request({ type: 'ping' })).type, 'pong');
  assert.ok(!b.messages.some((m) => m.type === 'presence'), 'the opponent heard nothing');
  assert.ok(!a2.messages.some((m) => m.type === 'presence'));

  await a2.close();
  const gone = await b.nextOf('presence', (m) => m.game === game);
  assert.equal(gone.connected, false);
  const a3 = await Client.connect(server.url, 'Ana');
  const back = await a3.ok({ type: 'resume', game, token: tokenA });
  const own = await a3.nextOf('presence', (m) => m.game === game);
  assert.deepEqual([own.seat, own.connected, own.seq], ['white', true, back.seq + 1]);
  const heard = await b.nextOf('presence', (m) => m.game === game && m.connected);
  assert.equal(heard.seq, own.seq);
  for (const c of [a, b, a3]) await c.close();
});

// Limits, messages per client: "20 a second, bursts of 60" by default.
test('the default message rate: a burst of 60, then 20 a second', async () => {
  await withServer([], async (plain) => {
    const c = await Client.connect(plain.url);
    const started = Date.now();
    for (let i = 0; i < 100; i++) c.send({ type: 'ping', id: `p${i}` });
    const answers = [];
    for (let i = 0; i < 100; i++) answers.push(await c.next((m) => m.id === `p${i}`));
    const elapsed = (Date.now() - started) / 1000;
    const pongs = answers.filter((m) => m.type === 'pong').length;
    assert.ok(pongs >= 60, `the burst is answered (${pongs})`);
    assert.ok(pongs <= 60 + Math.ceil(20 * elapsed), `no more than the rate refilled (${pongs} in ${elapsed} s)`);
    assert.ok(answers.slice(pongs).every((m) => m.code === 'rate_limited'));
    await c.close();
  });
});

// move: a re-send of a move already played is answered with its moved event, also the move that
// ended the game; any other move then is game_over.
test('the re-send of the move that ended the game gets its moved event again', async () => {
  const { a, b, game } = await pair({ variant: 'chess' });
  const mate = await play(game, a, b, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  await b.nextOf('ended', (m) => m.game === game);
  const again = await b.ok({ type: 'move', game, move: 'Qh4#', ply: 3 });
  const { id: firstId, ...first } = mate;
  const { id: againId, ...resent } = again;
  assert.deepEqual(resent, first, `${firstId} and ${againId} answered alike`);
  assert.equal((await b.request({ type: 'move', game, move: 'd8g5', ply: 3 })).code, 'game_over');
  for (const c of [a, b]) await c.close();
});

// Clocks: each side's first move is not timed and earns no increment; later moves do.
test('the untimed first move of each side gets no increment', async () => {
  const { a, b, game } = await pair({ variant: 'chess', clock: { initial_ms: 60000, increment_ms: 5000 } });
  const first = await a.ok({ type: 'move', game, move: 'e2e4', ply: 0 });
  assert.equal(first.clock.white_ms, 60000);
  const second = await b.ok({ type: 'move', game, move: 'e7e5', ply: 1 });
  assert.equal(second.clock.black_ms, 60000);
  assert.equal(second.clock.running, true);
  await a.nextOf('moved', (m) => m.game === game && m.ply === 2);
  const third = await a.ok({ type: 'move', game, move: 'g1f3', ply: 2 });
  assert.ok(third.clock.white_ms > 60000, `the increment after a timed move (${third.clock.white_ms})`);
  for (const c of [a, b]) await c.close();
});

// Messages in general, notation: WXF counts files from the mover's own right, so black's file 1
// is a, red's is i.
test('WXF file numbers: black counts from its right (file a is 1)', async () => {
  const { a, b, game } = await pair({ variant: 'xiangqi' });
  const red = await a.ok({ type: 'move', game, move: 'C2.5', ply: 0 });
  assert.deepEqual([red.move, red.notation], ['h3e3', 'C2.5']);
  await b.nextOf('moved', (m) => m.game === game && m.ply === 1);
  const black = await b.ok({ type: 'move', game, move: 'C2.5', ply: 1 });
  assert.deepEqual([black.move, black.notation], ['b8e8', 'C2.5']);
  for (const c of [a, b]) await c.close();
});
