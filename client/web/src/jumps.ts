// Draughts captures entered square by square, and what the board marks for them. No rules: every
// decision reads the server's `legal` moves and their `routes` (protocol.md, Routes), one route
// per legal move, in the same order.
import type { Route } from './model';

/** The squares whose men must capture: every legal move takes (a capture is compulsory). */
export function mustCapture(routes: Route[]): number[] {
  if (!routes.length || routes.some((route) => route.taken.length === 0)) return [];
  return [...new Set(routes.map((route) => route.path[0]))].sort((a, b) => a - b);
}

/** Where each start square may go with one click: the first landing and the end of each route. */
export function firstClicks(routes: Route[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const route of routes) {
    const list = out.get(route.path[0]) ?? [];
    for (const square of [route.path[1], route.path[route.path.length - 1]]) {
      if (square !== undefined && !list.includes(square)) list.push(square);
    }
    out.set(route.path[0], list);
  }
  return out;
}

export type Clicks =
  | { kind: 'move'; moves: string[] } // the squares clicked name these moves (one, or a picker)
  | { kind: 'more'; next: number[]; taken: number[] } // a route under way: the next landings
  | { kind: 'none' }; // no route runs through these squares

const startsWith = (path: number[], clicked: number[]) => clicked.every((square, i) => path[i] === square);

/**
 * What the squares clicked so far (the start, then landings) name. A route followed to its end
 * is its move; a prefix that only longer routes share asks for the next landing; the start and
 * the end alone name the moves between them (as a drop does).
 */
export function resolveClicks(legal: string[], routes: Route[], clicked: number[]): Clicks {
  const along = routes.map((route, i) => ({ route, move: legal[i] })).filter(({ route }) => startsWith(route.path, clicked));
  const complete = along.filter(({ route }) => route.path.length === clicked.length);
  if (along.length && complete.length === along.length) return { kind: 'move', moves: complete.map(({ move }) => move) };
  if (along.length) {
    const next = [...new Set(along.filter(({ route }) => route.path.length > clicked.length).map(({ route }) => route.path[clicked.length]))];
    return { kind: 'more', next, taken: along[0].route.taken.slice(0, clicked.length - 1) };
  }
  if (clicked.length === 2) {
    const [from, to] = clicked;
    const ends = routes
      .map((route, i) => ({ route, move: legal[i] }))
      .filter(({ route }) => route.path[0] === from && route.path[route.path.length - 1] === to);
    if (ends.length) return { kind: 'move', moves: ends.map(({ move }) => move) };
  }
  return { kind: 'none' };
}

/** What a board view offers to play: as much as a capture under way depends on. */
export interface Offer {
  position: string;
  movable: string;
  turn: string;
  legal: string[];
}

/**
 * Whether a capture entered landing by landing on `before` may go on on `after`: the same
 * position, the same side to move and to play, and the same legal moves in the same order (a
 * route is its move's by index). A page redrawn for a chat line, an offer or a player's presence
 * offers just that; a move, a takeback or the game's end does not.
 */
export function captureStillStands(before: Offer, after: Offer): boolean {
  return (
    after.movable !== 'none' &&
    after.legal.length > 0 &&
    after.position === before.position &&
    after.movable === before.movable &&
    after.turn === before.turn &&
    after.legal.length === before.legal.length &&
    after.legal.every((move, i) => move === before.legal[i])
  );
}
