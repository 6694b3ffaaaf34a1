// The client's copy of one game, kept exactly as the server describes it: a full `state`
// replaces it, and each later event (moved, takeback, ended, offer, presence, ...) is applied in
// `seq` order. Events at or below the last seen `seq` are duplicates and are dropped; one past
// the next `seq` means some were missed, and is left for the view to fetch again with `since`.
import type { Message } from './net';

export interface Clock {
  [seatMs: string]: number | boolean;
  running: boolean;
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
  players: Record<string, { name: string; connected: boolean } | null>;
  initial_position: string;
  position: string;
  moves: string[];
  notation: string[];
  ply: number;
  turn: string;
  legal: string[];
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

export function fromState(state: Message): GameModel {
  return {
    game: state.game,
    seq: state.seq,
    variant: state.variant,
    status: state.status,
    you: state.you,
    players: { ...(state.players ?? {}) },
    initial_position: state.initial_position,
    position: state.position,
    moves: [...(state.moves ?? [])],
    notation: [...(state.notation ?? state.moves ?? [])],
    ply: state.ply,
    turn: state.turn,
    legal: state.legal ?? [],
    check: !!state.check,
    clock: state.clock ?? null,
    clockAt: performance.now(),
    time_control: state.time_control ?? null,
    result: state.result ?? null,
    reason: state.reason ?? null,
    offers: [...(state.offers ?? [])],
    spectators: state.spectators ?? 0,
    rematch: state.rematch ?? null,
    claimAt: {},
  };
}

/** What `applyEvent` did with an event. */
export type EventOutcome = 'applied' | 'duplicate' | 'gap';

/**
 * Applies one game event (protocol.md, "Events, seq and since"): `seq` = last + 1 is applied,
 * `seq` <= last is a duplicate, and `seq` > last + 1 is a gap: the model is left as it is, and
 * the caller asks for what it missed (`resume` / `watch` with `since`).
 */
export function applyEvent(model: GameModel, event: Message): EventOutcome {
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
      model.legal = [];
      model.offers = [];
      break;
    case 'offer':
      model.offers = model.offers.filter((o) => o.kind !== event.kind);
      if (event.action === 'offer') model.offers.push({ kind: event.kind, by: event.by });
      break;
    case 'presence': {
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
