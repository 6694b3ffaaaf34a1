// Which server-legal wire move a gesture on the board means: a piece taken from one square and
// put on another (a drag, two clicks, a queued premove, Enter twice on the keyboard). The browser
// knows no rules: every answer is drawn from the server's `legal` list. The one reading of the
// board beyond that is Lichess' castling gesture: a king put on its own rook means the castling
// move toward that rook, when the list has it.
import type { Key } from 'chessgroundx/types';
import type { Variant } from './variants';

const FILES = 'abcdefgh';

/** The pieces of a chess board FEN ("rnbqkbnr/pppppppp/8/...") by square ("e1" -> "K"). */
export function piecesOf(boardFen: string): Map<string, string> {
  const pieces = new Map<string, string>();
  boardFen.split('/').forEach((row, index) => {
    const rank = 8 - index;
    let file = 0;
    for (const char of row) {
      if (/\d/.test(char)) file += Number(char);
      else pieces.set(`${FILES[file++]}${rank}`, char);
    }
  });
  return pieces;
}

/**
 * Chess castling by putting the king on its own rook: maps "<king square><rook square>" to the
 * legal castling move ("e1h1" -> "e1g1"). A castling move is a legal king move along its first
 * rank by two files; its rook is the first piece beyond the king that way, when it is one of the
 * king's own rooks.
 */
export function castlingByRook(variant: Variant, position: string, legal: string[]): Map<string, string> {
  const byRook = new Map<string, string>();
  if (variant.name !== 'chess') return byRook;
  const pieces = piecesOf(variant.boardFen(position));
  for (const move of legal) {
    const m = /^([a-h])([18])([a-h])([18])$/.exec(move);
    if (!m || m[2] !== m[4]) continue;
    const king = pieces.get(`${m[1]}${m[2]}`);
    const from = FILES.indexOf(m[1]);
    const step = Math.sign(FILES.indexOf(m[3]) - from);
    if ((king !== 'K' && king !== 'k') || Math.abs(FILES.indexOf(m[3]) - from) !== 2) continue;
    for (let file = from + step; file >= 0 && file < 8; file += step) {
      const square = `${FILES[file]}${m[2]}`;
      const piece = pieces.get(square);
      if (!piece) continue;
      if (piece === (king === 'K' ? 'R' : 'r')) byRook.set(`${m[1]}${m[2]}${square}`, move);
      break;
    }
  }
  return byRook;
}

/** Board destinations of each origin: the legal moves', and the castling rooks'. */
export function destinations(variant: Variant, position: string, legal: string[]): Map<Key, Key[]> {
  const dests = new Map<Key, Key[]>();
  const add = (from: Key, to: Key) => {
    const list = dests.get(from) ?? [];
    if (!list.includes(to)) list.push(to);
    dests.set(from, list);
  };
  for (const move of legal) {
    const squares = variant.squares(move);
    if (squares) add(squares[0], squares[1]);
  }
  for (const gesture of castlingByRook(variant, position, legal).keys()) {
    add(gesture.slice(0, 2) as Key, gesture.slice(2) as Key);
  }
  return dests;
}

/**
 * The legal moves a piece taken from `orig` and put on `dest` can mean: none, one, or several
 * (a promotion's pieces, draughts capture paths between the same two squares; the page asks).
 */
export function movesForDrop(variant: Variant, position: string, legal: string[], orig: Key, dest: Key): string[] {
  const moves = legal.filter((move) => {
    const squares = variant.squares(move);
    return !!squares && squares[0] === orig && squares[1] === dest;
  });
  if (moves.length) return moves;
  const castling = castlingByRook(variant, position, legal).get(`${orig}${dest}`);
  return castling ? [castling] : [];
}
