// The rating chart's geometry: points become SVG path text inside the box, the axes' bounds
// hold every point with a margin, one point and no points are drawn sensibly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from './load.mjs';

const { chartBounds, chartGeometry, project, dayLabel } = await loadSource('chart');

const BOX = { width: 600, height: 240, left: 40, right: 10, top: 10, bottom: 30 };
const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 1);

test('no points: no bounds and nothing to draw', () => {
  assert.equal(chartBounds([]), null);
  assert.equal(chartBounds([{ key: 'chess/blitz', points: [] }]), null);
  assert.equal(chartGeometry([{ key: 'chess/blitz', points: [] }], BOX), null);
});

test('the bounds hold every point of every series, ratings rounded out to 50 past a margin', () => {
  const bounds = chartBounds([
    { key: 'chess/blitz', points: [{ at_ms: T0, rating: 1512 }, { at_ms: T0 + 2 * DAY, rating: 1488 }] },
    { key: 'draughts/rapid', points: [{ at_ms: T0 + DAY, rating: 1630 }] },
  ]);
  assert.deepEqual(bounds, { minX: T0, maxX: T0 + 2 * DAY, minY: 1450, maxY: 1700 });
  // A rating on a step still gets its margin: 1500 is not drawn on the frame.
  assert.deepEqual(chartBounds([{ key: 'a', points: [{ at_ms: T0, rating: 1500 }, { at_ms: T0 + 1, rating: 1600 }] }]), {
    minX: T0, maxX: T0 + 1, minY: 1450, maxY: 1650,
  });
});

test('points become a path in time order, first at the left edge, last at the right, higher is up', () => {
  const geometry = chartGeometry(
    [{ key: 'chess/blitz', points: [{ at_ms: T0 + 2 * DAY, rating: 1550 }, { at_ms: T0, rating: 1450 }, { at_ms: T0 + DAY, rating: 1500 }] }],
    BOX,
  );
  assert.equal(geometry.lines.length, 1);
  const [line] = geometry.lines;
  assert.equal(line.key, 'chess/blitz');
  // Bounds 1400..1600 over 200 px of height (10 top, 30 bottom) and 550 px of width (40 left).
  assert.deepEqual(geometry.bounds, { minX: T0, maxX: T0 + 2 * DAY, minY: 1400, maxY: 1600 });
  assert.equal(line.path, 'M40 160 L315 110 L590 60');
  assert.deepEqual(line.dots.map((d) => d.rating), [1450, 1500, 1550]);
  for (const dot of line.dots) {
    assert.ok(dot.x >= BOX.left && dot.x <= BOX.width - BOX.right);
    assert.ok(dot.y >= BOX.top && dot.y <= BOX.height - BOX.bottom);
  }
});

test('one point sits in the middle of both axes and is a lone move-to (drawn as its dot)', () => {
  const geometry = chartGeometry([{ key: 'xiangqi/rapid', points: [{ at_ms: T0, rating: 1500 }] }], BOX);
  assert.deepEqual(geometry.bounds, { minX: T0 - DAY, maxX: T0 + DAY, minY: 1450, maxY: 1550 });
  assert.equal(geometry.lines[0].path, 'M315 110');
  assert.deepEqual(geometry.xTicks.map((t) => t.label), ['2024-12-31', '2025-01-02']);
});

test('ticks: every 50 points within the bounds, fewer on a wide range; dates at both ends', () => {
  const narrow = chartGeometry([{ key: 'a', points: [{ at_ms: T0, rating: 1480 }, { at_ms: T0 + DAY, rating: 1520 }] }], BOX);
  assert.deepEqual(narrow.yTicks.map((t) => t.label), ['1450', '1500', '1550']);
  assert.deepEqual(narrow.yTicks.map((t) => t.at), [210, 110, 10], "from the bottom of the frame to its top");
  assert.deepEqual(narrow.xTicks, [{ at: 40, label: '2025-01-01' }, { at: 590, label: '2025-01-02' }]);
  const wide = chartGeometry([{ key: 'a', points: [{ at_ms: T0, rating: 800 }, { at_ms: T0 + DAY, rating: 2400 }] }], BOX);
  assert.ok(wide.yTicks.length <= 7, wide.yTicks.map((t) => t.label).join(' '));
  // 750..2450 in steps of 300, each a round number inside the frame.
  assert.deepEqual(wide.yTicks.map((t) => t.label), ['900', '1200', '1500', '1800', '2100', '2400']);
});

test('series without points and points that are not numbers are left out', () => {
  const geometry = chartGeometry(
    [
      { key: 'empty', points: [] },
      { key: 'chess/bullet', points: [{ at_ms: T0, rating: 1500 }, { at_ms: NaN, rating: 1 }, { at_ms: T0 + DAY, rating: 1510 }] },
    ],
    BOX,
  );
  assert.deepEqual(geometry.lines.map((l) => l.key), ['chess/bullet']);
  assert.equal(geometry.lines[0].dots.length, 2);
});

test('projection and day labels', () => {
  const { x, y } = project({ minX: 0, maxX: 100, minY: 1000, maxY: 2000 }, { width: 110, height: 100, left: 10, right: 0, top: 0, bottom: 0 });
  assert.equal(x(0), 10);
  assert.equal(x(50), 60);
  assert.equal(y(2000), 0);
  assert.equal(y(1000), 100);
  assert.equal(dayLabel(Date.UTC(2024, 1, 29, 23, 59)), '2024-02-29');
});
