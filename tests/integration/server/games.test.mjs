// Two clients play a full game of each variant to a decisive end over real WebSockets while a
// spectator sees every event, in order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame, play } from './harness.mjs';

let server;
before(async () => (server = await startServer()));
after(async () => {
  const { code } = await server.stop();
  assert.equal(code, 0, 'the server exits 0 on SIGTERM');
});

async function fullGame({ variant, position, moves, result, reason }) {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const watcher = await Client.connect(server.url, 'Watcher');
  const { game, stateA } = await startGame(a, b, { variant, position });
  assert.equal(stateA.variant, variant);
  assert.equal(stateA.you, variant === 'xiangqi' ? 'red' : 'white');
  const watched = await watcher.ok({ type: 'watch', game });
  assert.equal(watched.type, 'state');
  assert.equal(watched.you, 'spectator');

  const last = await play(game, a, b, moves);
  const endedA = await a.nextOf('ended', (m) => m.game === game);
  assert.equal(endedA.result, result);
  assert.equal(endedA.reason, reason);
  assert.deepEqual(last.legal, [], 'no legal moves once the game is over');

  // The spectator saw every move and the end, with strictly increasing seq.
  const seen = [];
  for (;;) {
    const m = await watcher.next((x) => x.game === game && x.seq !== undefined && x.type !== 'state');
    seen.push(m);
    if (m.type === 'ended') break;
  }
  const moved = seen.filter((m) => m.type === 'moved');
  assert.deepEqual(moved.map((m) => m.move), moves);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].seq > seen[i - 1].seq, 'seq increases');

  const replay = await watcher.ok({ type: 'replay', game });
  assert.equal(replay.type, 'record');
  assert.deepEqual(replay.moves.map((m) => m.move), moves);
  assert.equal(replay.result, result);
  // The record shows each check as the game's `moved` events did (the last move mates here).
  assert.deepEqual(replay.moves.map((m) => m.check), moved.map((m) => m.check));
  assert.equal(replay.moves.at(-1).check, variant !== 'draughts');
  assert.equal(replay.initial_check, false);
  for (const c of [a, b, watcher]) await c.close();
}

test('chess: fool\'s mate ends 0-1 by checkmate', () =>
  fullGame({ variant: 'chess', moves: ['f2f3', 'e7e5', 'g2g4', 'd8h4'], result: '0-1', reason: 'checkmate' }));

test('xiangqi: a chariot mate from a set position ends 1-0', () =>
  fullGame({
    variant: 'xiangqi',
    position: '3k5/8R/R8/9/9/9/9/9/9/4K4 w - - 0 1',
    moves: ['a8a10'],
    result: '1-0',
    reason: 'checkmate',
  }));

test('draughts: taking the last black piece ends 1-0', () =>
  fullGame({ variant: 'draughts', position: 'W:W22:B18', moves: ['22x15'], result: '1-0', reason: 'no_moves' }));

test('chess: a whole game from the start reaches mate (scholar\'s mate)', () =>
  fullGame({
    variant: 'chess',
    moves: ['e2e4', 'e7e5', 'f1c4', 'b8c6', 'd1h5', 'g8f6', 'h5f7'],
    result: '1-0',
    reason: 'checkmate',
  }));

test('a replay of a game set up in check says so, and so does its HTTP record', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  // White to move, in check from the rook on e8; Kd1 steps out, then Re1+ checks again.
  const { game } = await startGame(a, b, { variant: 'chess', position: '4r2k/8/8/8/8/8/8/4K3 w - - 0 1' });
  await play(game, a, b, ['e1d1', 'e8e1']);
  const replay = await a.ok({ type: 'replay', game });
  assert.equal(replay.initial_check, true);
  assert.deepEqual(replay.moves.map((m) => m.check), [false, true]);
  const record = await (await fetch(`${server.http}/api/games/${game}`)).json();
  assert.equal(record.initial_check, true);
  assert.deepEqual(record.moves.map((m) => m.check), [false, true]);
  for (const c of [a, b]) await c.close();
});

test('display notation is accepted and answered in wire notation', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game } = await startGame(a, b, { variant: 'chess' });
  const moved = await a.ok({ type: 'move', game, move: 'Nf3', ply: 0 });
  assert.equal(moved.move, 'g1f3');
  assert.equal(moved.notation, 'Nf3');
  const x = await startGame(a, b, { variant: 'xiangqi' });
  const wxf = await a.ok({ type: 'move', game: x.game, move: 'C2.5', ply: 0 });
  assert.equal(wxf.move, 'h3e3');
  const refused = await b.request({ type: 'move', game, move: 'Nf6+', ply: 0 });
  assert.equal(refused.code, 'stale_ply');
  const illegal = await b.request({ type: 'move', game, move: 'Qxh7', ply: 1 });
  assert.equal(illegal.code, 'illegal_move');
});

test('lobby: open public games appear live and leave when joined; private ones never show', async () => {
  const watcher = await Client.connect(server.url, 'Lobbyist');
  const subscribed = await watcher.ok({ type: 'lobby' });
  assert.equal(subscribed.type, 'lobby', 'the first list is the direct reply');
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const open = await a.ok({ type: 'create', variant: 'draughts', side: 'first' });
  const listed = await watcher.nextOf('lobby', (m) => m.games.some((g) => g.game === open.game));
  assert.equal(listed.games.find((g) => g.game === open.game).variant, 'draughts');
  const hidden = await a.ok({ type: 'create', variant: 'chess', private: true });
  await b.ok({ type: 'join', game: open.game });
  const after = await watcher.nextOf('lobby', (m) => !m.games.some((g) => g.game === open.game));
  assert.ok(!after.games.some((g) => g.game === hidden.game), 'private games are not listed');
  // A private game can still be joined by its id.
  const joined = await b.ok({ type: 'join', game: hidden.game });
  assert.equal(joined.type, 'joined');
});

// Watchers in a burst: the players learn the count without a message per watcher to everyone
// (that was quadratic), the last count is the true one, and a spectator who watches and leaves
// does not leave a stale count behind.
test('a burst of watchers and leavers ends with the true spectator count', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game } = await startGame(a, b, { variant: 'chess' });
  const watchers = await Promise.all(Array.from({ length: 30 }, () => Client.connect(server.url)));
  await Promise.all(watchers.map((w) => w.ok({ type: 'watch', game })));
  await a.nextOf('spectators', (m) => m.game === game && m.count === 30);
  // A watcher's own state counts it, then the count follows.
  const late = await Client.connect(server.url);
  const state = await late.ok({ type: 'watch', game });
  assert.equal(state.spectators, 31);
  // Counts from the way up (an 11 among them) must not pass for the counts of the way down.
  const isCount = (m) => m.type === 'spectators' && m.game === game;
  a.discard(isCount);
  late.discard(isCount);
  await Promise.all(watchers.slice(0, 20).map((w) => w.close()));
  await a.nextOf('spectators', (m) => m.game === game && m.count === 11);
  await late.nextOf('spectators', (m) => m.game === game && m.count === 11);
  const settled = a.messages.length;
  // No message per watcher to each member, and no count that did not happen.
  const counts = a.messages.filter(isCount).map((m) => m.count);
  assert.ok(counts.length <= 51, `one count per change at most (${counts.length})`);
  assert.ok(counts.every((c) => c >= 0 && c <= 31), counts.join(','));
  // Moves still reach everyone, and a quiet moment sends nothing more.
  await play(game, a, b, ['e2e4', 'e7e5']);
  await late.nextOf('moved', (m) => m.game === game && m.ply === 2);
  assert.deepEqual(a.messages.slice(settled).filter((m) => m.type === 'spectators'), []);
  await Promise.all([...watchers.slice(20), late, a, b].map((c) => c.close()));
});

// A connection can be a member of a room twice: in its seat and as a spectator of the same game.
// It gets each event once, and counts once as a watcher.
test('a player who also watches its own game gets each event once', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game } = await startGame(a, b, { variant: 'chess' });
  const watched = await a.ok({ type: 'watch', game });
  assert.equal(watched.type, 'state');
  assert.equal(watched.spectators, 1);
  const from = a.messages.length;
  await play(game, a, b, ['e2e4', 'e7e5', 'g1f3']);
  // Anything sent twice was sent before the reply to a later request on the same connection.
  assert.equal((await a.request({ type: 'ping' })).type, 'pong');
  const moved = a.messages.slice(from).filter((m) => m.type === 'moved' && m.game === game);
  assert.deepEqual(moved.map((m) => m.ply), [1, 2, 3]);
  await Promise.all([a, b].map((c) => c.close()));
});

// protocol.md, record: "`clock_ms` is the mover's remaining time after the move and `think_ms` the
// time the move took (both `null` when untimed)", as in its example of an untimed game. The
// HTTP API gives the same record.
test('the record of an untimed game has null clock_ms and think_ms; a timed one has both', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const untimed = await startGame(a, b, { variant: 'chess' });
  await play(untimed.game, a, b, ['e2e4', 'e7e5']);
  const record = await a.ok({ type: 'replay', game: untimed.game });
  const times = (moves) => moves.map((m) => [m.clock_ms, m.think_ms]);
  assert.deepEqual(times(record.moves), [[null, null], [null, null]], JSON.stringify(record.moves));
  const viaHttp = await (await fetch(`${server.http}/api/games/${untimed.game}`)).json();
  assert.deepEqual(times(viaHttp.moves), [[null, null], [null, null]], JSON.stringify(viaHttp.moves));

  const timed = await startGame(a, b, { variant: 'draughts', clock: { initial_ms: 60000, increment_ms: 0 } });
  await play(timed.game, a, b, ['21-17', '10-14']);
  const timedRecord = await a.ok({ type: 'replay', game: timed.game });
  for (const move of timedRecord.moves) {
    assert.equal(move.clock_ms, 60000, 'the first move of each side is not timed');
    assert.ok(Number.isInteger(move.think_ms) && move.think_ms >= 0, JSON.stringify(move));
  }
  await Promise.all([a.close(), b.close()]);
});

test('draughts: state, moved and takeback carry each legal move\'s route, and moved the route played', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  // Black moves first and must take twice: 7x14x23, written 7x23 (protocol.md, Routes).
  const { game, stateA } = await startGame(a, b, {
    variant: 'draughts',
    position: 'B:W10,18,21,22,24,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,11,12,13',
  });
  assert.deepEqual(stateA.legal, ['7x23']);
  assert.deepEqual(stateA.routes, [{ path: [7, 14, 23], taken: [10, 18] }]);
  const moved = await b.ok({ type: 'move', game, move: '7x23', ply: 0 });
  assert.equal(moved.move, '7x23', 'the wire form is unchanged');
  assert.deepEqual(moved.route, { path: [7, 14, 23], taken: [10, 18] });
  assert.equal(moved.routes.length, moved.legal.length);
  moved.legal.forEach((move, i) => {
    const route = moved.routes[i];
    assert.equal(route.path[0], Number(move.split(/[-x]/)[0]), move);
    assert.equal(route.path.at(-1), Number(move.split(/[-x]/).at(-1)), move);
  });
  const seen = await a.nextOf('moved', (m) => m.game === game);
  assert.deepEqual(seen.route, moved.route);
  // A re-sent move (since) carries the same route, read from the position before it.
  const watcher = await Client.connect(server.url, 'Watcher');
  watcher.send({ type: 'watch', game, since: moved.seq - 1 });
  const again = await watcher.nextOf('moved', (m) => m.game === game);
  assert.deepEqual(again.route, moved.route);
  // Chess events have neither field.
  const c = await Client.connect(server.url, 'Cy');
  const d = await Client.connect(server.url, 'Di');
  const chess = await startGame(c, d, { variant: 'chess' });
  assert.equal('routes' in chess.stateA, false);
  const chessMoved = await c.ok({ type: 'move', game: chess.game, move: 'e2e4', ply: 0 });
  assert.equal('route' in chessMoved || 'routes' in chessMoved, false);
  for (const client of [a, b, c, d, watcher]) await client.close();
});
