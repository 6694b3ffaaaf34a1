// The engine analysis of a game (GET /api/games/{id}/analysis, protocol.md "Analysis") turned
// into numbers and text the page draws: the evaluation bar's share, the graph's points and path,
// the marks' names. Pure, so that it is tested without a DOM; analysis.ts draws it.

/** An evaluation from the first seat's view: centipawns, or moves to mate (negative: mated). */
export type Eval = { cp: number } | { mate: number } | null;

export interface AnalysedPly {
  ply: number;
  eval: Eval;
  best: string | null;
  pv: string[];
  mark: Mark;
}

export type Mark = null | '?!' | '?' | '??';

export interface MarkCounts {
  inaccuracy: number;
  mistake: number;
  blunder: number;
}

export interface Analysis {
  game: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  engine: string;
  done: number;
  total: number;
  plies: AnalysedPly[];
  accuracy: Record<string, number> | null;
  counts: Record<string, MarkCounts> | null;
}

/**
 * The first seat's winning chances in percent, 0..100: Lichess's published curve
 * (lila, WinPercent.scala: 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)), centipawns clamped
 * to ±1000 as there; a mate is 100 or 0. Null for no evaluation (a finished position).
 */
export function winPercent(evaluation: Eval): number | null {
  if (!evaluation) return null;
  if ('mate' in evaluation) {
    if (!Number.isFinite(evaluation.mate) || evaluation.mate === 0) return null;
    return evaluation.mate > 0 ? 100 : 0;
  }
  if (!Number.isFinite(evaluation.cp)) return null;
  const cp = Math.max(-1000, Math.min(1000, evaluation.cp));
  return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * cp)) - 1);
}

/** The evaluation as a person reads it: "+0.35", "−1.20", "0.00", "#3", "#−2", "–". */
export function formatEval(evaluation: Eval): string {
  if (!evaluation) return '–';
  if ('mate' in evaluation) return `#${evaluation.mate < 0 ? '−' : ''}${Math.abs(evaluation.mate)}`;
  const pawns = evaluation.cp / 100;
  if (pawns === 0) return '0.00';
  return `${pawns > 0 ? '+' : '−'}${Math.abs(pawns).toFixed(2)}`;
}

/** The class and the name of a mark: "?!" inaccuracy, "?" mistake, "??" blunder. */
export function markName(mark: Mark): keyof MarkCounts | null {
  switch (mark) {
    case '?!':
      return 'inaccuracy';
    case '?':
      return 'mistake';
    case '??':
      return 'blunder';
    default:
      return null;
  }
}

/** The drawing area of the graph. */
export interface GraphBox {
  width: number;
  height: number;
}

export interface GraphPoint {
  ply: number;
  x: number;
  y: number;
  /** The first seat's winning chances drawn here (the last known, where the ply has none). */
  percent: number;
  mark: Mark;
}

export interface GraphGeometry {
  points: GraphPoint[];
  /** "M x y L x y ...": the line through every point. */
  line: string;
  /** The line closed down to the bottom edge: the first seat's share, filled. */
  area: string;
  /** The y of 50%: the middle line. */
  middle: number;
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * One point per ply, in ply order, from the left edge to the right; 100% at the top. A ply with
 * no evaluation (the end of the game, or a failed one) keeps the last known level (50% before
 * any), so that the line never breaks. Null with no plies.
 */
export function graphGeometry(plies: AnalysedPly[], box: GraphBox): GraphGeometry | null {
  if (!plies.length) return null;
  const ordered = [...plies].sort((a, b) => a.ply - b.ply);
  const step = ordered.length > 1 ? box.width / (ordered.length - 1) : 0;
  let last = 50;
  const points = ordered.map((entry, index) => {
    const percent = winPercent(entry.eval) ?? last;
    last = percent;
    const x = ordered.length > 1 ? index * step : box.width / 2;
    return { ply: entry.ply, x: round(x), y: round(box.height * (1 - percent / 100)), percent, mark: entry.mark };
  });
  const line = points.map((p, i) => `${i ? 'L' : 'M'}${p.x} ${p.y}`).join(' ');
  const area = `${line} L${points[points.length - 1].x} ${box.height} L${points[0].x} ${box.height} Z`;
  return { points, line, area, middle: round(box.height / 2) };
}

/** The ply nearest to `x` on the graph (a click between two points picks the nearer). */
export function plyAt(geometry: GraphGeometry, x: number): number {
  let best = geometry.points[0];
  for (const point of geometry.points) if (Math.abs(point.x - x) < Math.abs(best.x - x)) best = point;
  return best.ply;
}

/** The analysis entry of `ply`, if the analysis has it. */
export function plyEntry(analysis: Analysis | null, ply: number): AnalysedPly | null {
  return analysis?.plies.find((entry) => entry.ply === ply) ?? null;
}

/** "Analysing… 12 / 40", "Queued", "Failed", or "" once done. */
export function progressText(analysis: Pick<Analysis, 'status' | 'done' | 'total'>): string {
  switch (analysis.status) {
    case 'queued':
      return 'Analysis queued…';
    case 'running':
      return `Analysing… ${analysis.done} / ${analysis.total}`;
    case 'failed':
      return 'The analysis failed.';
    default:
      return '';
  }
}
