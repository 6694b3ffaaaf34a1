// The rating history chart's geometry (GET /api/users/{name}/history): pure numbers and SVG path
// text, so that it is tested without a DOM; profile.ts draws it.

export interface ChartPoint {
  at_ms: number;
  rating: number;
}

export interface ChartSeries {
  /** "chess/blitz": one line per variant and speed. */
  key: string;
  points: ChartPoint[];
}

/** The drawing area: the SVG's size and the margins kept for the axes' labels. */
export interface ChartBox {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface Bounds {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

export interface ChartLine {
  key: string;
  /** "M x y L x y ...", in time order; one point is "M x y" (drawn as its dot). */
  path: string;
  dots: { x: number; y: number; rating: number; at_ms: number }[];
}

export interface Tick {
  at: number;
  label: string;
}

export interface ChartGeometry {
  bounds: Bounds;
  lines: ChartLine[];
  yTicks: Tick[];
  xTicks: Tick[];
}

const DAY_MS = 86_400_000;
/** Ratings axis steps: the bounds are rounded out to this, and one tick per step. */
const RATING_STEP = 50;

const finitePoint = (p: ChartPoint) => Number.isFinite(p.at_ms) && Number.isFinite(p.rating);

/**
 * The axes' bounds over every point of every series, or null with no points. Time runs from the
 * first point to the last (one instant is widened by a day each way, so it sits in the middle);
 * ratings are rounded out to the next 50 beyond a 25-point margin, so no point is on the frame.
 */
export function chartBounds(series: ChartSeries[]): Bounds | null {
  const points = series.flatMap((s) => s.points.filter(finitePoint));
  if (!points.length) return null;
  let minX = Math.min(...points.map((p) => p.at_ms));
  let maxX = Math.max(...points.map((p) => p.at_ms));
  if (minX === maxX) {
    minX -= DAY_MS;
    maxX += DAY_MS;
  }
  const low = Math.min(...points.map((p) => p.rating));
  const high = Math.max(...points.map((p) => p.rating));
  const minY = Math.floor((low - RATING_STEP / 2) / RATING_STEP) * RATING_STEP;
  const maxY = Math.ceil((high + RATING_STEP / 2) / RATING_STEP) * RATING_STEP;
  return { minX, maxX, minY, maxY };
}

/** One decimal place: enough for a screen, short in the path text. */
const round1 = (value: number) => Math.round(value * 10) / 10;

/** Page x of a time and y of a rating (higher ratings higher up). */
export function project(bounds: Bounds, box: ChartBox): { x(at: number): number; y(rating: number): number } {
  const innerWidth = box.width - box.left - box.right;
  const innerHeight = box.height - box.top - box.bottom;
  return {
    x: (at) => round1(box.left + ((at - bounds.minX) / (bounds.maxX - bounds.minX)) * innerWidth),
    y: (rating) => round1(box.top + (1 - (rating - bounds.minY) / (bounds.maxY - bounds.minY)) * innerHeight),
  };
}

/** "2025-01-31" in UTC: the same on every reader's screen. */
export function dayLabel(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Everything the chart draws; null when there is nothing to draw (no history yet). Series with
 * no points are left out; each line's points are in time order.
 */
export function chartGeometry(series: ChartSeries[], box: ChartBox): ChartGeometry | null {
  const bounds = chartBounds(series);
  if (!bounds) return null;
  const { x, y } = project(bounds, box);
  const lines: ChartLine[] = [];
  for (const one of series) {
    const points = one.points.filter(finitePoint).sort((a, b) => a.at_ms - b.at_ms);
    if (!points.length) continue;
    const dots = points.map((p) => ({ x: x(p.at_ms), y: y(p.rating), rating: p.rating, at_ms: p.at_ms }));
    const path = dots.map((d, i) => `${i === 0 ? 'M' : 'L'}${d.x} ${d.y}`).join(' ');
    lines.push({ key: one.key, path, dots });
  }
  // A tick every 50 points, or fewer when the range is wide: at most about six labels.
  const span = bounds.maxY - bounds.minY;
  const step = RATING_STEP * Math.max(1, Math.ceil(span / RATING_STEP / 6));
  const yTicks: Tick[] = [];
  for (let rating = Math.ceil(bounds.minY / step) * step; rating <= bounds.maxY; rating += step) {
    yTicks.push({ at: y(rating), label: String(rating) });
  }
  const xTicks: Tick[] = [
    { at: x(bounds.minX), label: dayLabel(bounds.minX) },
    { at: x(bounds.maxX), label: dayLabel(bounds.maxX) },
  ];
  return { bounds, lines, yTicks, xTicks };
}
