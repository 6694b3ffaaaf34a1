// Small facts the game and replay pages show, as pure functions (unit-tested without a DOM):
// the export's file name, how many moves a takeback undid, each side's clock at a replayed ply,
// and what the replay's keys do.

/** The export's file name, as the server's Content-Disposition names it: PGN or PDN. */
export function exportFileName(gameId: string, variant: string): string {
  return `arbiter-${gameId}.${variant === 'draughts' ? 'pdn' : 'pgn'}`;
}

/** "A move was taken back." / "2 moves were taken back." (a takeback may undo both sides'). */
export function takebackText(plies: number): string {
  if (plies <= 1) return 'A move was taken back.';
  return `${plies} moves were taken back.`;
}

/** One stored move as `record.moves[]` carries it: the mover's time left after it, or null. */
export interface TimedMove {
  clock_ms?: number | null;
}

/**
 * Each seat's time left once `ply` moves are played: the mover's `clock_ms` of the last move each
 * seat made, else the time control's start (`initialMs`); null for an untimed game. The first
 * move is `seats[0]`'s when `firstMovesFirst`, and turns alternate (a draughts multi-capture is
 * one move).
 */
export function clocksAt(
  moves: TimedMove[],
  ply: number,
  seats: [string, string],
  firstMovesFirst: boolean,
  initialMs: number | null,
): Record<string, number> | null {
  const times: Record<string, number | null> = { [seats[0]]: initialMs, [seats[1]]: initialMs };
  for (let index = 0; index < Math.min(ply, moves.length); index++) {
    const mover = seats[(index + (firstMovesFirst ? 0 : 1)) % 2];
    const left = moves[index].clock_ms;
    if (typeof left === 'number') times[mover] = left;
  }
  const [a, b] = [times[seats[0]], times[seats[1]]];
  if (a === null || b === null || a === undefined || b === undefined) return null;
  return { [seats[0]]: a, [seats[1]]: b };
}

/**
 * The ply a replay key goes to from `ply` of `last`, or null for a key it ignores. Left / Right:
 * one move back / on; Up / Home: the start; Down / End: the last move (as on Lichess).
 */
export function replayKeyTarget(key: string, ply: number, last: number): number | null {
  switch (key) {
    case 'ArrowLeft':
      return Math.max(0, ply - 1);
    case 'ArrowRight':
      return Math.min(last, ply + 1);
    case 'ArrowUp':
    case 'Home':
      return 0;
    case 'ArrowDown':
    case 'End':
      return last;
    default:
      return null;
  }
}
