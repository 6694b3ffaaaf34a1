// Getting the player's attention from another tab: while the page is hidden, the tab title says
// "Your turn" and the move the opponent just played; it goes back when the page is seen again.
// Every move is also announced in an aria-live region, for screen readers (the opponent's too).
import { h } from './dom';

/** The tab title while hidden and it is the player's turn: "Your turn · Nf3 · Arbiter". */
export function attentionTitle(base: string, opponentMove: string | null): string {
  return opponentMove ? `Your turn · ${opponentMove} · ${base}` : `Your turn · ${base}`;
}

/** How a move is announced: "White played e4", "Black played Qh4#". */
export function moveAnnouncement(seat: string, notation: string): string {
  return `${seat.charAt(0).toUpperCase()}${seat.slice(1)} played ${notation}`;
}

/** The tab title while the page is hidden. */
export class Attention {
  private base = document.title;
  private calling = false;
  private readonly onVisible = () => {
    if (!document.hidden) this.clear();
  };

  constructor() {
    document.addEventListener('visibilitychange', this.onVisible);
  }

  /** The turn came to the player, after `opponentMove`: say so in the title if the page is hidden. */
  yourTurn(opponentMove: string | null): void {
    if (!document.hidden) return;
    if (!this.calling) this.base = document.title;
    this.calling = true;
    document.title = attentionTitle(this.base, opponentMove);
  }

  /** The title goes back (the page is seen, or the turn passed). */
  clear(): void {
    if (!this.calling) return;
    this.calling = false;
    document.title = this.base;
  }

  destroy(): void {
    this.clear();
    document.removeEventListener('visibilitychange', this.onVisible);
  }
}

/** A visually hidden aria-live region that reads each move out. */
export function announcer(): { element: HTMLElement; say(text: string): void } {
  const element = h('p', { class: 'sr-only', id: 'announce', 'aria-live': 'polite', 'aria-atomic': 'true' });
  return {
    element,
    say(text: string) {
      element.textContent = text;
    },
  };
}
