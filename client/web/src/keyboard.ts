// Playing the board by keyboard: the board takes the focus (Tab), the arrow keys move a visible
// cursor square by square as seen on the screen, Enter or Space picks up the piece under it and
// then puts it down where the cursor is (the move is the server's legal one that gesture means),
// and Escape puts it back. A hidden live region says where the cursor is and what stands there.
import type { Key } from 'chessgroundx/types';
import { h } from './dom';
import type { Color } from './variants';

const FILES = 'abcdefghijklmnop';
const RANKS = '123456789:;<=>?@';

export function squareKey(file: number, rank: number): Key {
  return (FILES[file] + RANKS[rank]) as Key;
}

export function keySquare(key: Key): [number, number] {
  return [FILES.indexOf(key[0]), RANKS.indexOf(key[1])];
}

/**
 * The square an arrow key moves the cursor to, as the board is seen: "up" is away from the
 * player at the bottom. The cursor stops at the edges. Null for any other key.
 */
export function stepSquare(
  arrow: string,
  [file, rank]: [number, number],
  width: number,
  height: number,
  orientation: Color,
): [number, number] | null {
  const sign = orientation === 'white' ? 1 : -1;
  const moves: Record<string, [number, number]> = {
    ArrowUp: [0, sign],
    ArrowDown: [0, -sign],
    ArrowLeft: [-sign, 0],
    ArrowRight: [sign, 0],
  };
  const step = moves[arrow];
  if (!step) return null;
  return [Math.max(0, Math.min(width - 1, file + step[0])), Math.max(0, Math.min(height - 1, rank + step[1]))];
}

/** What the keyboard cursor needs of the board. */
export interface KeyboardBoard {
  element: HTMLElement;
  width: number;
  height: number;
  orientation(): Color;
  /** Whether a piece on `key` has a legal move now. */
  canPickUp(key: Key): boolean;
  /** "e2, white pawn" / "e4, empty". */
  describe(key: Key): string;
  /** Plays the move the piece from `orig` put on `dest` means; false when there is none. */
  drop(orig: Key, dest: Key): boolean;
}

export class KeyboardCursor {
  private cursor: [number, number] | null = null;
  private picked: Key | null = null;
  private readonly mark = h('div', { class: 'kb-cursor', 'aria-hidden': 'true', hidden: true });
  private readonly pickedMark = h('div', { class: 'kb-picked', 'aria-hidden': 'true', hidden: true });
  private readonly live = h('p', { class: 'sr-only kb-live', 'aria-live': 'assertive', 'aria-atomic': 'true' });

  constructor(private board: KeyboardBoard) {
    const el = board.element;
    el.tabIndex = 0;
    el.setAttribute('role', 'application');
    el.setAttribute('aria-label', 'Board: arrow keys move, Enter picks a piece up and puts it down, Escape cancels');
    el.setAttribute('aria-roledescription', 'board');
    el.append(this.mark, this.pickedMark, this.live);
    el.addEventListener('focus', () => {
      if (!this.cursor) this.cursor = board.orientation() === 'white' ? [0, 0] : [board.width - 1, board.height - 1];
      this.draw(true);
    });
    el.addEventListener('blur', () => this.draw(false));
    el.addEventListener('keydown', (event) => this.onKey(event));
  }

  /** The piece picked up goes back (the board changed under it). */
  reset(): void {
    this.picked = null;
    this.draw(document.activeElement === this.board.element);
  }

  private onKey(event: KeyboardEvent): void {
    if (event.target !== this.board.element || !this.cursor) return;
    const { width, height } = this.board;
    const next = stepSquare(event.key, this.cursor, width, height, this.board.orientation());
    if (next) {
      this.cursor = next;
      this.say(this.board.describe(squareKey(...next)));
    } else if (event.key === 'Enter' || event.key === ' ') {
      this.act();
    } else if (event.key === 'Escape' && this.picked) {
      this.picked = null;
      this.say('Put back');
    } else {
      return;
    }
    // The keys are the board's while it has the focus: no scrolling, no move-list browsing.
    event.preventDefault();
    event.stopPropagation();
    this.draw(true);
  }

  private act(): void {
    const key = squareKey(...this.cursor!);
    if (!this.picked) {
      if (this.board.canPickUp(key)) {
        this.picked = key;
        this.say(`Picked up ${this.board.describe(key)}`);
      } else {
        this.say(`No move from ${this.board.describe(key)}`);
      }
      return;
    }
    if (this.picked === key) {
      this.picked = null;
      this.say('Put back');
      return;
    }
    const from = this.picked;
    this.picked = null;
    if (!this.board.drop(from, key)) this.say(`No move to ${this.board.describe(key)}`);
  }

  private say(text: string): void {
    this.live.textContent = text;
  }

  private place(mark: HTMLElement, square: [number, number] | null): void {
    mark.hidden = !square;
    if (!square) return;
    const { width, height } = this.board;
    const white = this.board.orientation() === 'white';
    const col = white ? square[0] : width - 1 - square[0];
    const row = white ? height - 1 - square[1] : square[1];
    mark.style.left = `${(col * 100) / width}%`;
    mark.style.top = `${(row * 100) / height}%`;
    mark.style.width = `${100 / width}%`;
    mark.style.height = `${100 / height}%`;
  }

  private draw(focused: boolean): void {
    this.place(this.mark, focused ? this.cursor : null);
    this.place(this.pickedMark, this.picked ? keySquare(this.picked) : null);
    this.board.element.dataset.cursor = focused && this.cursor ? squareKey(...this.cursor) : '';
  }
}
