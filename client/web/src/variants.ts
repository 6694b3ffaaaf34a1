// What the client knows about each game: board geometry, how to read the server's position text
// into piece placement, and how a wire move maps to board squares. No rules live here: which
// moves are legal always comes from the server's `legal` list.
import type { Key } from 'chessgroundx/types';

export type VariantName = 'chess' | 'xiangqi' | 'draughts';
/** chessgroundx colours: the first seat (white / red) is "white". */
export type Color = 'white' | 'black';

export interface Variant {
  name: VariantName;
  title: string;
  width: number;
  height: number;
  /** Seat names on the wire, first seat first. */
  seats: [string, string];
  /** The position text as a chessgroundx board FEN. */
  boardFen(position: string): string;
  /** Board squares of a wire move: [from, to] (middle squares of a draughts path are ignored). */
  squares(move: string): [Key, Key] | null;
  /** The first seat moves in this position? */
  firstToMove(position: string): boolean;
  /** Starting position text (for the create form's hint). */
  example: string;
}

const FILES = 'abcdefghijklmnop';
// chessgroundx writes rank 10 as ':' (ranks are '1'..'9', ':', ';', ...).
const RANKS = '123456789:;<=>?@';

function key(file: number, rank: number): Key {
  return (FILES[file] + RANKS[rank]) as Key;
}

/** "e2" / "h10" to a board key. */
function algebraic(square: string): Key | null {
  const m = /^([a-p])(\d{1,2})$/.exec(square);
  if (!m) return null;
  const rank = Number(m[2]);
  return rank >= 1 && rank <= 16 ? key(FILES.indexOf(m[1]), rank - 1) : null;
}

function algebraicMove(move: string): [Key, Key] | null {
  const m = /^([a-p]\d{1,2})([a-p]\d{1,2})[a-z]?$/.exec(move);
  if (!m) return null;
  const from = algebraic(m[1]);
  const to = algebraic(m[2]);
  return from && to ? [from, to] : null;
}

const chess: Variant = {
  name: 'chess',
  title: 'Chess',
  width: 8,
  height: 8,
  seats: ['white', 'black'],
  boardFen: (position) => position.split(' ')[0],
  squares: algebraicMove,
  firstToMove: (position) => position.split(' ')[1] !== 'b',
  example: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
};

const xiangqi: Variant = {
  name: 'xiangqi',
  title: 'Xiangqi',
  width: 9,
  height: 10,
  seats: ['red', 'black'],
  boardFen: (position) => position.split(' ')[0],
  squares: algebraicMove,
  firstToMove: (position) => position.split(' ')[1] !== 'b',
  example: 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1',
};

/** Draughts square 1..32 (1 = b8, 4 = h8, 5 = a7, 29 = a1, 32 = g1) to [file, rank] from 0. */
export function draughtsSquare(n: number): [number, number] {
  const row = Math.floor((n - 1) / 4); // 0 = the top rank (8)
  const col = 2 * ((n - 1) % 4) + (row % 2 === 0 ? 1 : 0);
  return [col, 7 - row];
}

/** PDN FEN "W:W21,22,K30:B1-12" to {white, black} lists of [square, king]. */
export function parseDraughtsFen(position: string): {
  white: [number, boolean][];
  black: [number, boolean][];
  whiteToMove: boolean;
} {
  const out = { white: [] as [number, boolean][], black: [] as [number, boolean][], whiteToMove: true };
  const parts = position.trim().replace(/\.$/, '').split(':');
  out.whiteToMove = (parts[0] ?? 'W').toUpperCase() !== 'B';
  for (const part of parts.slice(1)) {
    const side = part[0]?.toUpperCase();
    const list = side === 'W' ? out.white : side === 'B' ? out.black : null;
    if (!list) continue;
    for (const raw of part.slice(1).split(',')) {
      const item = raw.trim();
      if (!item) continue;
      const king = item[0].toUpperCase() === 'K';
      const body = king ? item.slice(1) : item;
      const range = /^(\d+)-(\d+)$/.exec(body);
      const [lo, hi] = range ? [Number(range[1]), Number(range[2])] : [Number(body), Number(body)];
      for (let n = lo; n <= hi; n++) if (n >= 1 && n <= 32) list.push([n, king]);
    }
  }
  return out;
}

function draughtsBoardFen(position: string): string {
  const grid: string[][] = Array.from({ length: 8 }, () => Array(8).fill(''));
  const { white, black } = parseDraughtsFen(position);
  const place = (list: [number, boolean][], upper: boolean) => {
    for (const [n, king] of list) {
      const [file, rank] = draughtsSquare(n);
      const letter = king ? 'k' : 'm';
      grid[7 - rank][file] = upper ? letter.toUpperCase() : letter;
    }
  };
  place(white, true);
  place(black, false);
  return grid
    .map((row) => {
      let text = '';
      let empty = 0;
      for (const cell of row) {
        if (!cell) {
          empty++;
          continue;
        }
        if (empty) text += String(empty);
        empty = 0;
        text += cell;
      }
      return empty ? text + String(empty) : text;
    })
    .join('/');
}

/** Squares of a draughts wire move ("21-17", "22x15", "22x13x6"). */
export function draughtsPath(move: string): number[] {
  return move.split(/[-x]/).map(Number);
}

const draughts: Variant = {
  name: 'draughts',
  title: 'Draughts (Brazilian)',
  width: 8,
  height: 8,
  seats: ['white', 'black'],
  boardFen: draughtsBoardFen,
  squares(move) {
    const path = draughtsPath(move);
    if (path.length < 2 || path.some((n) => !(n >= 1 && n <= 32))) return null;
    const [f1, r1] = draughtsSquare(path[0]);
    const [f2, r2] = draughtsSquare(path[path.length - 1]);
    return [key(f1, r1), key(f2, r2)];
  },
  firstToMove: (position) => parseDraughtsFen(position).whiteToMove,
  example: 'W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12',
};

export const VARIANTS: Record<VariantName, Variant> = { chess, xiangqi, draughts };

export function variantOf(name: string): Variant {
  return VARIANTS[name as VariantName] ?? chess;
}

/** The chessgroundx colour of a seat name. */
export function colorOf(variant: Variant, seat: string): Color {
  return seat === variant.seats[0] ? 'white' : 'black';
}

export function seatTitle(seat: string): string {
  return seat.charAt(0).toUpperCase() + seat.slice(1);
}

// How each end reason reads after "wins by" / "Draw by".
const REASONS: Record<string, string> = {
  checkmate: 'checkmate',
  stalemate: 'stalemate',
  resign: 'resignation',
  timeout: 'timeout',
  agreement: 'agreement',
  repetition: 'repetition',
  fifty_moves: 'the fifty-move rule',
  insufficient_material: 'insufficient material',
  no_moves: 'leaving no moves',
  perpetual_check: 'the perpetual check rule',
  perpetual_chase: 'the perpetual chase rule',
  move_limit: 'the move limit',
  abandoned: 'abandonment',
};

/** "White wins by checkmate" / "Draw by agreement" / "Game aborted" (and why, when it was not a player). */
export function describeResult(variant: Variant, result: string | null, reason: string | null, status?: string): string {
  const why = reason ? REASONS[reason] ?? reason.replace(/_/g, ' ') : '';
  if (status === 'aborted' || reason === 'aborted') {
    return reason === 'abandoned' ? 'Game aborted: its creator did not come back' : 'Game aborted';
  }
  if (result === '1-0') return `${seatTitle(variant.seats[0])} wins${why ? ' by ' + why : ''}`;
  if (result === '0-1') return `${seatTitle(variant.seats[1])} wins${why ? ' by ' + why : ''}`;
  if (result === '1/2-1/2') return `Draw${why ? ' by ' + why : ''}`;
  return why ? `Game over (${why})` : 'Game over';
}
