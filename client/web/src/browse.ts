// Looking back through a live game's moves: the page remembers the position after every ply it
// learns (the state, each `moved`, the record asked for the plies it missed), and shows the ply
// the player picked, until they come back to the game. New moves keep arriving meanwhile.

/** The ply an arrow or Home/End key moves to, from the ply shown, in a game of `last` plies. */
export function browseStep(key: string, shown: number, last: number): number | null {
  const steps: Record<string, number> = {
    ArrowLeft: shown - 1,
    ArrowUp: shown - 1,
    ArrowRight: shown + 1,
    ArrowDown: shown + 1,
    Home: 0,
    End: last,
  };
  const target = steps[key];
  return target === undefined ? null : Math.max(0, Math.min(last, target));
}

export interface PlyView {
  position: string;
  check: boolean;
}

/** The positions the page knows, by ply (0: the start), and the ply shown when looking back. */
export class MoveHistory {
  private plies: (PlyView | undefined)[] = [];
  /** The ply shown when looking back; null: the game as it stands. */
  shown: number | null = null;

  /** The position after `ply` plies (from a state, a `moved`, a takeback, the record). */
  learn(ply: number, view: PlyView): void {
    this.plies[ply] = view;
  }

  /** A takeback or a new state: plies past `ply` are not (or no longer) known to be the game's. */
  truncate(ply: number): void {
    this.plies.length = Math.min(this.plies.length, ply + 1);
    if (this.shown !== null && this.shown > ply) this.shown = null;
  }

  at(ply: number): PlyView | undefined {
    return this.plies[ply];
  }

  /** Shows `ply` of a game now at `last` plies; the last ply is the game itself (no looking back). */
  show(ply: number, last: number): void {
    this.shown = ply >= last ? null : Math.max(0, ply);
  }

  /** The ply on the board in a game now at `last` plies. */
  current(last: number): number {
    return this.shown ?? last;
  }
}
