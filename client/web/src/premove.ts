// Premove: during the opponent's turn the player may queue one move of their own (a drag or two
// clicks), shown on the board. The moment the turn comes, it is sent if it means a move of the new
// legal list, and dropped otherwise; a right-click, or a click anywhere off the piece, cancels it.
// The page knows no rules, so any square may be queued: the server's list decides at the turn.
import type { Key } from 'chessgroundx/types';
import { squareKey } from './keyboard';

/** What the queued move becomes when the turn comes, given the legal moves it can mean. */
export type PremoveOutcome = { kind: 'send'; move: string } | { kind: 'ask'; moves: string[] } | { kind: 'drop' };

export function premoveOutcome(moves: string[]): PremoveOutcome {
  if (moves.length === 1) return { kind: 'send', move: moves[0] };
  if (moves.length > 1) return { kind: 'ask', moves };
  return { kind: 'drop' };
}

/** chessgroundx's premove destinations: every other square of the board (the server decides). */
export function anySquare(width: number, height: number): (boardState: unknown, key: Key) => Key[] {
  const all: Key[] = [];
  for (let file = 0; file < width; file++) for (let rank = 0; rank < height; rank++) all.push(squareKey(file, rank));
  return (_boardState, key) => all.filter((square) => square !== key);
}

/**
 * Cancels the queued move on a right-click on the board, or on a press anywhere off it (a press
 * on the board is chessgroundx's: off a piece, it cancels too). Returns the unbinding.
 */
export function bindPremoveCancel(board: HTMLElement, cancel: () => void): () => void {
  const onBoard = (event: MouseEvent) => {
    if (event.button === 2) cancel();
  };
  const offBoard = (event: MouseEvent) => {
    if (!board.contains(event.target as Node)) cancel();
  };
  board.addEventListener('mousedown', onBoard);
  document.addEventListener('mousedown', offBoard);
  return () => {
    board.removeEventListener('mousedown', onBoard);
    document.removeEventListener('mousedown', offBoard);
  };
}
