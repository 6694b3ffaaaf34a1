// Playing the board by keyboard: the board takes the focus (Tab), the arrow keys move a visible
// cursor square by square as seen on the screen, Enter or Space picks up the piece under it and
// then puts it down where the cursor is (the move is the server's legal one that gesture means),
// and Escape puts it back. A draughts capture may be put down landing by landing: the piece stays
// picked up on each landing until the capture ends, and Escape takes the whole capture back. A
// hidden live region says where the cursor is, what stands there, and where a capture goes on.
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

/** What a put-down did: played a move (or asked which), went on with a capture, or nothing. */
export type DropOutcome = 'played' | 'continue' | false;

/** A draughts capture under way: the squares it may land on next and the men it took so far. */
export interface CaptureUnderWay {
  next: string[];
  taken: string[];
}

/** "or"-joined names: "11", "11 or 26", "11, 18 or 26". */
function either(names: string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** The words for a capture under way, once the piece stands on `landing`. */
export function captureAnnouncement(landing: string, capture: CaptureUnderWay): string {
  const taken = capture.taken.length ? `, taking ${capture.taken.join(', ')}` : '';
  const landings = capture.next.length === 1 ? 'landing' : 'landings';
  return `On ${landing}${taken}. Next ${landings}: ${either(capture.next)}`;
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
  /** "e2" / "17": a square's name. */
  name(key: Key): string;
  /**
   * Plays the move the piece from `orig` put on `dest` means ('played'); 'continue' when it is a
   * landing of a capture that goes on from there; false when it means nothing (a capture under
   * way then stays as it was). `dest` === `orig`: a capture round and back to its start, if any.
   */
  drop(orig: Key, dest: Key): DropOutcome;
  /** The capture under way, or null. */
  capture(): CaptureUnderWay | null;
  /** Takes back the capture under way: the board as it was before the piece was picked up. */
  cancelCapture(): void;
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
      this.putBack();
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
    const from = this.picked;
    if (from === key) {
      // Put down where it was picked up: a capture round and back to this square when there is
      // one (the board asks which), else the piece goes back; on a landing the capture goes back.
      if (!this.board.capture() && this.board.drop(from, key) === 'played') {
        this.picked = null;
        this.say('Capture round and back: choose the route');
      } else {
        this.putBack();
      }
      return;
    }
    const outcome = this.board.drop(from, key);
    const capture = this.board.capture();
    if (outcome === 'continue' && capture) {
      this.picked = key;
      this.say(captureAnnouncement(this.board.name(key), capture));
      return;
    }
    if (outcome === false && capture) {
      this.say(`No landing on ${this.board.name(key)}. ${captureAnnouncement(this.board.name(from), capture)}`);
      return;
    }
    this.picked = null;
    if (outcome === false) this.say(`No move to ${this.board.describe(key)}`);
  }

  /** The piece goes back to where it was picked up, and a capture under way is taken back. */
  private putBack(): void {
    const capture = this.board.capture();
    this.picked = null;
    if (capture) this.board.cancelCapture();
    this.say(capture ? 'Capture taken back' : 'Put back');
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
