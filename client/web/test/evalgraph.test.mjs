// The analysis' pure parts (evalgraph.ts): evaluation to the bar's share (Lichess's curve), the
// graph's geometry (one point per ply, clickable by x), the marks' names and the eval text. The
// fixture is shaped as protocol.md's GET /api/games/{id}/analysis answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from './load.mjs';

const { winPercent, formatEval, markName, graphGeometry, plyAt, plyEntry, progressText } = await loadSource('evalgraph');

const FIXTURE = {
  game: 'g1',
  status: 'done',
  engine: 'stockfish',
  done: 5,
  total: 5,
  plies: [
    { ply: 0, eval: { cp: 20 }, best: 'e2e4', pv: ['e2e4', 'e7e5'], mark: null },
    { ply: 1, eval: { cp: -30 }, best: 'e7e5', pv: ['e7e5'], mark: '?!' },
    { ply: 2, eval: { cp: -200 }, best: 'd2d4', pv: ['d2d4'], mark: '?' },
    { ply: 3, eval: { mate: -1 }, best: 'd8h4', pv: ['d8h4'], mark: '??' },
    { ply: 4, eval: null, best: null, pv: [], mark: null },
  ],
  accuracy: { white: 41.2, black: 97 },
  counts: { white: { inaccuracy: 1, mistake: 0, blunder: 1 }, black: { inaccuracy: 0, mistake: 1, blunder: 0 } },
};

test("winPercent follows Lichess's curve, clamps at ±1000 cp, and a mate is all or nothing", () => {
  assert.equal(winPercent({ cp: 0 }), 50);
  // lila's WinPercent: 50 + 50 * (2 / (1 + exp(-0.00368208 * 100)) - 1) = 59.1
  assert.equal(Math.round(winPercent({ cp: 100 }) * 10) / 10, 59.1);
  assert.equal(Math.round(winPercent({ cp: -300 }) * 10) / 10, 24.9);
  assert.equal(winPercent({ cp: 5000 }), winPercent({ cp: 1000 }));
  assert.ok(winPercent({ cp: 1000 }) < 100);
  assert.equal(winPercent({ mate: 3 }), 100);
  assert.equal(winPercent({ mate: -2 }), 0);
  assert.equal(winPercent(null), null);
});

test('evaluations read as pawns with a sign, mates with #', () => {
  assert.equal(formatEval({ cp: 35 }), '+0.35');
  assert.equal(formatEval({ cp: -120 }), '−1.20');
  assert.equal(formatEval({ cp: 0 }), '0.00');
  assert.equal(formatEval({ mate: 3 }), '#3');
  assert.equal(formatEval({ mate: -2 }), '#−2');
  assert.equal(formatEval(null), '–');
});

test('marks have their names, and no mark has none', () => {
  assert.equal(markName('?!'), 'inaccuracy');
  assert.equal(markName('?'), 'mistake');
  assert.equal(markName('??'), 'blunder');
  assert.equal(markName(null), null);
  assert.equal(markName('!!'), null);
});

test('the graph has one point per ply, left to right, higher for the first seat', () => {
  const geometry = graphGeometry(FIXTURE.plies, { width: 400, height: 100 });
  assert.deepEqual(geometry.points.map((p) => p.ply), [0, 1, 2, 3, 4]);
  assert.deepEqual(geometry.points.map((p) => p.x), [0, 100, 200, 300, 400]);
  assert.ok(geometry.points[0].y < 50, 'white better: above the middle');
  assert.ok(geometry.points[2].y > geometry.points[1].y, 'black better still: lower');
  assert.equal(geometry.points[3].y, 100, 'mated: at the bottom');
  assert.equal(geometry.points[4].y, 100, 'no evaluation keeps the last level');
  assert.equal(geometry.points[3].mark, '??');
  assert.equal(geometry.middle, 50);
  assert.match(geometry.line, /^M0 \d+(\.\d+)? L100 /);
  assert.equal(geometry.line.split('L').length, 5);
  assert.match(geometry.area, /L400 100 L0 100 Z$/);
});

test('the graph sorts plies, puts a lone ply in the middle, and draws nothing without plies', () => {
  const shuffled = [FIXTURE.plies[2], FIXTURE.plies[0], FIXTURE.plies[1]];
  assert.deepEqual(graphGeometry(shuffled, { width: 200, height: 100 }).points.map((p) => p.ply), [0, 1, 2]);
  const lone = graphGeometry([FIXTURE.plies[0]], { width: 200, height: 100 });
  assert.equal(lone.points[0].x, 100);
  assert.equal(graphGeometry([], { width: 200, height: 100 }), null);
});

test('a click on the graph picks the nearest ply', () => {
  const geometry = graphGeometry(FIXTURE.plies, { width: 400, height: 100 });
  assert.equal(plyAt(geometry, -20), 0);
  assert.equal(plyAt(geometry, 140), 1);
  assert.equal(plyAt(geometry, 160), 2);
  assert.equal(plyAt(geometry, 999), 4);
});

test("a ply's entry is found by its number; progress reads as a person would", () => {
  assert.equal(plyEntry(FIXTURE, 3).best, 'd8h4');
  assert.equal(plyEntry(FIXTURE, 9), null);
  assert.equal(plyEntry(null, 0), null);
  assert.equal(progressText({ status: 'running', done: 12, total: 40 }), 'Analysing… 12 / 40');
  assert.equal(progressText({ status: 'queued', done: 0, total: 40 }), 'Analysis queued…');
  assert.equal(progressText({ status: 'failed', done: 3, total: 40 }), 'The analysis failed.');
  assert.equal(progressText(FIXTURE), '');
});
