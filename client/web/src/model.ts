// The client's copy of one game, kept exactly as the server describes it: a full `state`
// replaces it, and each later event (moved, takeback, ended, offer, presence, ...) is applied in
// `seq` order. Events at or below the last seen `seq` are duplicates and are dropped; one past
// the next `seq` means some were missed, and is left for the view to fetch again with `since`.
import type { Message } from './net';
import { ratingChanges, type RatingChange, type ShownRating } from './ratings';

export interface Clock {
  [seatMs: string]: number | boolean;
  running: boolean;
}

/** Draughts: the squares a move passes over and the men it takes (protocol.md, Routes). */
export interface Route {
  path: number[];
  taken: number[];
}

export interface Offer {
  kind: 'draw' | 'takeback' | 'rematch';
  by: string;
}

export interface GameModel {
  game: string;
  seq: number;
  variant: string;
  status: 'waiting' | 'playing' | 'ended' | 'aborted';
  you: string;
  /** Each seat's player; `engine` is true when an engine plays it, `guest` for a person not
   * signed in; `rating` the account's rating when it sat down (protocol.md, players). */
  players: Record<string, { name: string; connected: boolean; engine?: boolean; guest?: boolean; rating?: ShownRating | null } | null>;
  /** A rated game moves both players' ratings when it ends. */
  rated: boolean;
  rating_range: { min: number | null; max: number | null } | null;
  /** Each seat's rating change once a rated game has ended (`ended.ratings`), else null. */
  ratings: Record<string, RatingChange> | null;
  initial_position: string;
  position: string;
  moves: string[];
  notation: string[];
  ply: number;
  turn: string;
  legal: string[];
  /** Draughts: the route of each move of `legal`, in its order; empty in the other games. */
  routes: Route[];
  /** Draughts: the route of the last move, when a `moved` event told it; null otherwise. */
  lastRoute: Route | null;
  check: boolean;
  clock: Clock | null;
  /** performance.now() when `clock` was read from the server. */
  clockAt: number;
  time_control: { initial_ms: number; increment_ms: number } | null;
  result: string | null;
  reason: string | null;
  offers: Offer[];
  spectators: number;
  rematch: string | null;
  /** Date.now() after which a claim against a disconnected seat opens, per seat. */
  claimAt: Record<string, number>;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isClock = (value: unknown): boolean => value === null || value === undefined || isObject(value);
const STATUSES = ['waiting', 'playing', 'ended', 'aborted'];
const isSquares = (value: unknown): value is number[] => Array.isArray(value) && value.every(isCount);
const isRoute = (value: unknown): value is Route =>
  isObject(value) && isSquares((value as Message).path) && isSquares((value as Message).taken);
/** The routes beside `legal`, when they are there and one per move; else none. */
function routesOf(message: Message): Route[] {
  const routes = message.routes;
  return Array.isArray(routes) && routes.every(isRoute) && routes.length === (message.legal ?? []).length ? routes : [];
}

/**
 * Whether a `state` has what the page draws from (protocol.md, "state"). One that does not is
 * ignored: taken in, it would leave the page unable to draw, and its `seq` would make every
 * later event look like a duplicate.
 */
export function validState(state: Message): boolean {
  return (
    isString(state.game) &&
    isCount(state.seq) &&
    isString(state.variant) &&
    STATUSES.includes(state.status) &&
    isString(state.you) &&
    isObject(state.players) &&
    Object.values(state.players).every((p) => p === null || (isObject(p) && isString((p as Message).name))) &&
    isString(state.initial_position) &&
    isString(state.position) &&
    isStringList(state.moves) &&
    (state.notation === undefined || isStringList(state.notation)) &&
    isCount(state.ply) &&
    isString(state.turn) &&
    isStringList(state.legal ?? []) &&
    isClock(state.clock) &&
    (state.offers === undefined || (Array.isArray(state.offers) && state.offers.every(isObject)))
  );
}

/** Whether a game event carries the fields its kind needs (a malformed one counts as not received). */
function validEvent(event: Message): boolean {
  switch (event.type) {
    case 'moved':
      return isCount(event.ply) && event.ply >= 1 && isString(event.move) && isString(event.position) &&
        isString(event.turn) && isStringList(event.legal ?? []) && isClock(event.clock);
    case 'takeback':
      return isCount(event.ply) && isString(event.position) && isString(event.turn) &&
        isStringList(event.legal ?? []) && isClock(event.clock);
    case 'offer':
      return ['draw', 'takeback', 'rematch'].includes(event.kind) && isString(event.action) && isString(event.by);
    case 'presence':
      return isString(event.seat) && typeof event.connected === 'boolean';
    case 'rematch':
      return isString(event.next);
    default:
      return true;
  }
}

export function fromState(state: Message): GameModel {
  return {
    game: state.game,
    seq: state.seq,
    variant: state.variant,
    status: state.status,
    you: state.you,
    players: { ...(state.players ?? {}) },
    rated: state.rated === true,
    rating_range: isObject(state.rating_range) ? (state.rating_range as GameModel['rating_range']) : null,
    ratings: ratingChanges(state.ratings),
    initial_position: state.initial_position,
    position: state.position,
    moves: [...(state.moves ?? [])],
    notation: [...(state.notation ?? state.moves ?? [])],
    ply: state.ply,
    turn: state.turn,
    legal: state.legal ?? [],
    routes: routesOf(state),
    lastRoute: null,
    check: !!state.check,
    clock: state.clock ?? null,
    clockAt: performance.now(),
    time_control: state.time_control ?? null,
    result: state.result ?? null,
    reason: state.reason ?? null,
    offers: [...(state.offers ?? [])],
    spectators: state.spectators ?? 0,
    rematch: state.rematch ?? null,
    claimAt: claimTimes(state.players),
  };
}

/** When a claim opens against each player who is away, from the state's `claim_after_ms`. */
function claimTimes(players: unknown): Record<string, number> {
  const times: Record<string, number> = {};
  if (!isObject(players)) return times;
  for (const [seat, player] of Object.entries(players)) {
    const after = isObject(player) ? (player as Message).claim_after_ms : undefined;
    if (typeof after === 'number' && after >= 0) times[seat] = Date.now() + after;
  }
  return times;
}

/** What `applyEvent` did with an event ('invalid': malformed, left out like a lost one). */
export type EventOutcome = 'applied' | 'duplicate' | 'gap' | 'invalid';

/**
 * Applies one game event (protocol.md, "Events, seq and since"): `seq` = last + 1 is applied,
 * `seq` <= last is a duplicate, and `seq` > last + 1 is a gap: the model is left as it is, and
 * the caller asks for what it missed (`resume` / `watch` with `since`).
 */
export function applyEvent(model: GameModel, event: Message): EventOutcome {
  if (!validEvent(event)) return 'invalid';
  if (typeof event.seq === 'number') {
    if (event.seq <= model.seq) return 'duplicate';
    if (event.seq > model.seq + 1) return 'gap';
    model.seq = event.seq;
  }
  switch (event.type) {
    case 'moved':
      model.moves = model.moves.slice(0, event.ply - 1);
      model.notation = model.notation.slice(0, event.ply - 1);
      model.moves.push(event.move);
      model.notation.push(event.notation ?? event.move);
      model.ply = event.ply;
      model.position = event.position;
      model.turn = event.turn;
      model.legal = event.legal ?? [];
      model.routes = routesOf(event);
      model.lastRoute = isRoute(event.route) ? event.route : null;
      model.check = !!event.check;
      setClock(model, event.clock);
      // A move answers any open takeback or draw offer by moving on.
      model.offers = model.offers.filter((o) => o.kind === 'rematch');
      break;
    case 'takeback':
      model.moves = model.moves.slice(0, event.ply);
      model.notation = model.notation.slice(0, event.ply);
      model.ply = event.ply;
      model.position = event.position;
      model.turn = event.turn;
      model.legal = event.legal ?? [];
      model.routes = routesOf(event);
      model.lastRoute = null;
      model.check = !!event.check;
      setClock(model, event.clock);
      // An accepted takeback clears the open draw and takeback offers, as a move does.
      model.offers = model.offers.filter((o) => o.kind === 'rematch');
      break;
    case 'ended':
      // `ended` carries no clock: both stop where they stand now. Read them before the status
      // changes, since remainingMs counts down only in a game in play. A flag fall is the side to
      // move's clock reaching zero, whatever the local count says.
      if (model.clock) {
        const stopped = currentClock(model);
        if (event.reason === 'timeout') stopped[`${model.turn}_ms`] = 0;
        setClock(model, stopped);
      }
      model.status = event.status ?? (event.reason === 'aborted' ? 'aborted' : 'ended');
      model.result = event.result ?? null;
      model.reason = event.reason ?? null;
      model.ratings = ratingChanges(event.ratings);
      model.legal = [];
      model.routes = [];
      model.offers = [];
      break;
    case 'offer':
      model.offers = model.offers.filter((o) => o.kind !== event.kind);
      if (event.action === 'offer') model.offers.push({ kind: event.kind, by: event.by });
      break;
    case 'presence': {
      if (!Object.prototype.hasOwnProperty.call(model.players, event.seat)) break;
      const player = model.players[event.seat];
      if (player) model.players[event.seat] = { ...player, connected: event.connected };
      if (!event.connected && typeof event.claim_after_ms === 'number') {
        model.claimAt[event.seat] = Date.now() + event.claim_after_ms;
      } else if (event.connected) {
        delete model.claimAt[event.seat];
      }
      break;
    }
    case 'rematch':
      model.rematch = event.next;
      break;
  }
  return 'applied';
}

function setClock(model: GameModel, clock: Clock | null | undefined): void {
  model.clock = clock ?? null;
  model.clockAt = performance.now();
}

/** Remaining ms of a seat now, counting down the running clock locally between updates. */
export function remainingMs(model: GameModel, seat: string): number | null {
  if (!model.clock) return null;
  const base = Number(model.clock[`${seat}_ms`] ?? 0);
  const ticking = model.clock.running && model.status === 'playing' && model.turn === seat;
  return ticking ? base - (performance.now() - model.clockAt) : base;
}

function currentClock(model: GameModel): Clock {
  const clock: Clock = { running: false };
  for (const key of Object.keys(model.clock ?? {})) {
    if (key.endsWith('_ms')) clock[key] = Math.max(0, remainingMs(model, key.slice(0, -3)) ?? 0);
  }
  return clock;
}
