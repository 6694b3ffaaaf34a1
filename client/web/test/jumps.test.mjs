// Draughts captures entered square by square, and xiangqi's WXF edge labels: pure functions of
// the server's legal moves and routes (protocol.md, Routes) and of the board's orientation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from './load.mjs';

const { mustCapture, firstClicks, resolveClicks, captureStillStands } = await loadSource('jumps');
const { wxfFileLabels } = await loadSource('xiangqi_labels');

// The king on 13 reaches 2 by two routes (common/rules tests: DraughtsRoutes).
const LEGAL = ['13x22x11x2', '13x26x16x2'];
const ROUTES = [
  { path: [13, 22, 11, 2], taken: [17, 15, 7] },
  { path: [13, 26, 16, 2], taken: [17, 19, 7] },
];

test('the men that must capture are the starts of the routes when every move takes', () => {
  assert.deepEqual(mustCapture(ROUTES), [13]);
  assert.deepEqual(mustCapture([{ path: [22, 18], taken: [] }, { path: [21, 17], taken: [] }]), []);
  assert.deepEqual(mustCapture([]), []);
});

test('a start offers its first landings and its ends', () => {
  assert.deepEqual(firstClicks(ROUTES).get(13), [22, 2, 26]);
});

test('landing by landing: the route under way, then the move once it ends', () => {
  assert.deepEqual(resolveClicks(LEGAL, ROUTES, [13, 22]), { kind: 'more', next: [11], taken: [17] });
  assert.deepEqual(resolveClicks(LEGAL, ROUTES, [13, 22, 11]), { kind: 'more', next: [2], taken: [17, 15] });
  assert.deepEqual(resolveClicks(LEGAL, ROUTES, [13, 22, 11, 2]), { kind: 'move', moves: ['13x22x11x2'] });
  assert.deepEqual(resolveClicks(LEGAL, ROUTES, [13, 26, 16, 2]), { kind: 'move', moves: ['13x26x16x2'] });
});

test('start and end alone name every move between them (a picker when several)', () => {
  assert.deepEqual(resolveClicks(LEGAL, ROUTES, [13, 2]), { kind: 'move', moves: LEGAL });
  const single = [{ path: [7, 14, 23], taken: [10, 18] }];
  assert.deepEqual(resolveClicks(['7x23'], single, [7, 23]), { kind: 'move', moves: ['7x23'] });
  assert.deepEqual(resolveClicks(['7x23'], single, [7, 14]), { kind: 'more', next: [23], taken: [10] });
  assert.deepEqual(resolveClicks(['7x23'], single, [7, 18]), { kind: 'none' });
});

test('a capture under way stands while the view offers the same moves, and falls with any change', () => {
  const view = { position: 'W:WK13,31:B7,15,17,19,K29', movable: 'white', turn: 'white', legal: LEGAL };
  assert.equal(captureStillStands(view, { ...view, legal: [...LEGAL] }), true, 'a redraw for a chat line or an offer');
  assert.equal(captureStillStands(view, { ...view, position: 'W:WK2,31:B19,K29' }), false, 'a new position');
  assert.equal(captureStillStands(view, { ...view, movable: 'none' }), false, 'the game ended');
  assert.equal(captureStillStands(view, { ...view, turn: 'black', legal: [] }), false, 'the turn left');
  assert.equal(captureStillStands(view, { ...view, legal: ['13x22x11x2'] }), false, 'fewer moves');
  assert.equal(captureStillStands(view, { ...view, legal: [...LEGAL].reverse() }), false, 'routes are read by index');
});

test('xiangqi edges: the near side reads 9..1 and the far side 1..9, each counting from its right', () => {
  const red = wxfFileLabels('white');
  assert.deepEqual(red.bottom.map((l) => l.number), [9, 8, 7, 6, 5, 4, 3, 2, 1]);
  assert.deepEqual(red.top.map((l) => l.number), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  // Red's cannon on h3 is on red's file 2 (C2.5); black's horse on h10 on black's file 8 (H8+7).
  assert.equal(red.bottom.find((l) => l.file === 'h').number, 2);
  assert.equal(red.top.find((l) => l.file === 'h').number, 8);
  const black = wxfFileLabels('black');
  assert.deepEqual(black.bottom.map((l) => l.file).join(''), 'ihgfedcba');
  assert.deepEqual(black.bottom.map((l) => l.number), [9, 8, 7, 6, 5, 4, 3, 2, 1]);
  assert.equal(black.bottom.find((l) => l.file === 'h').number, 8);
});
