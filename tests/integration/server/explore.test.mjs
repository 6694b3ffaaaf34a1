// GET /api/explore over a real server (issue 42): the legal moves, the side to move and the status
// of any position of the three games, and of the position after a move in wire or display
// notation; 400 with the rules' reason for a bad position or move; the per-address API rate.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { httpCall as call, startServer } from './harness.mjs';

let server;
before(async () => (server = await startServer({ args: ['--api-rate', '0.05', '--api-burst', '4'] })));
after(async () => server?.stop());

const explore = (params, headers) => call(server, 'GET', `/api/explore?${new URLSearchParams(params)}`, { headers });

test('chess: the start, a move in SAN, and a mate that ends the list of moves', async () => {
  const start = await explore({ variant: 'chess', position: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' });
  assert.equal(start.status, 200);
  assert.equal(start.headers.get('content-type'), 'application/json');
  assert.equal(start.json.turn, 'white');
  assert.equal(start.json.legal.length, 20);
  assert.ok(start.json.legal.includes('e2e4'));
  assert.deepEqual(start.json.status, { over: false, result: null, reason: null });

  const after = await explore({ variant: 'chess', position: start.json.position, move: 'e4' });
  assert.equal(after.status, 200);
  assert.deepEqual(after.json.played, { move: 'e2e4', notation: 'e4' });
  assert.equal(after.json.position, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1');
  assert.equal(after.json.turn, 'black');

  const mate = await explore({ variant: 'chess', position: 'rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2', move: 'd8h4' });
  assert.equal(mate.status, 200);
  assert.deepEqual(mate.json.legal, []);
  assert.deepEqual(mate.json.status, { over: true, result: '0-1', reason: 'checkmate' });
});

test('xiangqi and draughts: their seats, their moves, and the position after one', async () => {
  const xiangqi = await explore({ variant: 'xiangqi', position: '' });
  assert.equal(xiangqi.status, 200);
  assert.equal(xiangqi.json.turn, 'red');
  assert.equal(xiangqi.json.legal.length, 44);
  const cannon = await explore({ variant: 'xiangqi', position: xiangqi.json.position, move: 'h3e3' });
  assert.equal(cannon.status, 200);
  assert.equal(cannon.json.turn, 'black');
  assert.equal(cannon.json.played.move, 'h3e3');

  const draughts = await explore({ variant: 'draughts', position: 'W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12' });
  assert.equal(draughts.status, 200);
  assert.equal(draughts.json.turn, 'white');
  assert.equal(draughts.json.legal.length, 7);
  const moved = await explore({ variant: 'draughts', position: draughts.json.position, move: draughts.json.legal[0] });
  assert.equal(moved.status, 200);
  assert.equal(moved.json.turn, 'black');
  assert.notEqual(moved.json.position, draughts.json.position);
});

test("a bad position or move is refused with 400 and the rules' reason", async () => {
  const position = await explore({ variant: 'chess', position: 'not a position' });
  assert.equal(position.status, 400);
  assert.equal(position.json.error, 'bad_position');
  assert.ok(position.json.message.length > 0);

  const move = await explore({ variant: 'chess', position: '', move: 'e2e5' });
  assert.equal(move.status, 400);
  assert.equal(move.json.error, 'illegal_move');
  assert.match(move.json.message, /^e2e5: ./); // the rules' reason, naming the move

  const variant = await explore({ variant: 'go', position: '' });
  assert.equal(variant.status, 400);
  assert.equal(variant.json.error, 'invalid');
  assert.equal((await call(server, 'POST', '/api/explore?variant=chess')).status, 405);
});

test('a client over its API rate is answered 429 with Retry-After; another still 200', async () => {
  const from = { 'X-Forwarded-For': '198.51.100.42' };
  const statuses = [];
  let retryAfter = null;
  for (let i = 0; i < 6; i++) {
    const answer = await explore({ variant: 'draughts', position: '' }, from);
    statuses.push(answer.status);
    if (answer.status === 429) retryAfter = answer.headers.get('retry-after');
  }
  assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
  assert.match(retryAfter ?? '', /^[1-9][0-9]*$/);
  assert.equal((await explore({ variant: 'draughts', position: '' }, { 'X-Forwarded-For': '198.51.100.43' })).status, 200);
});
