// The game and replay pages' small facts: the export's name, a takeback's count, the clocks at a
// replayed ply, and the replay's keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from './load.mjs';

const { exportFileName, takebackText, clocksAt, replayKeyTarget } = await loadSource('gamefacts');

test('the export is named as the server names it: PGN for chess and xiangqi, PDN for draughts', () => {
  assert.equal(exportFileName('g7Kq2', 'chess'), 'arbiter-g7Kq2.pgn');
  assert.equal(exportFileName('g7Kq2', 'xiangqi'), 'arbiter-g7Kq2.pgn');
  assert.equal(exportFileName('g7Kq2', 'draughts'), 'arbiter-g7Kq2.pdn');
});

test('a takeback says how many moves it undid', () => {
  assert.equal(takebackText(1), 'A move was taken back.');
  assert.equal(takebackText(2), '2 moves were taken back.');
});

test('the clocks at a ply are each side\'s time after its last move, else the start', () => {
  const moves = [{ clock_ms: 299000 }, { clock_ms: 295000 }, { clock_ms: 290000 }];
  const seats = ['white', 'black'];
  assert.deepEqual(clocksAt(moves, 0, seats, true, 300000), { white: 300000, black: 300000 });
  assert.deepEqual(clocksAt(moves, 1, seats, true, 300000), { white: 299000, black: 300000 });
  assert.deepEqual(clocksAt(moves, 3, seats, true, 300000), { white: 290000, black: 295000 });
  // Black moved first (a set-up position): the first move is black's.
  assert.deepEqual(clocksAt(moves, 1, seats, false, 300000), { white: 300000, black: 299000 });
  assert.equal(clocksAt([{ clock_ms: null }], 1, seats, true, null), null, 'untimed');
});

test('replay keys: left / right a move, up / home the start, down / end the last move', () => {
  assert.equal(replayKeyTarget('ArrowLeft', 3, 10), 2);
  assert.equal(replayKeyTarget('ArrowLeft', 0, 10), 0);
  assert.equal(replayKeyTarget('ArrowRight', 10, 10), 10);
  assert.equal(replayKeyTarget('ArrowUp', 5, 10), 0);
  assert.equal(replayKeyTarget('ArrowDown', 5, 10), 10);
  assert.equal(replayKeyTarget('Home', 5, 10), 0);
  assert.equal(replayKeyTarget('End', 5, 10), 10);
  assert.equal(replayKeyTarget('a', 5, 10), null);
});
