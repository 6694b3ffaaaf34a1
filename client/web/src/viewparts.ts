// Parts of the game and replay pages: who plays whom, the result under the move list, the
// watchers' names, the export link, and the page for an id the server does not know. Names and
// texts are set as text, never as HTML.
import { fill, h } from './dom';
import { exportFileName } from './gamefacts';
import { playersLine } from './players';
import type { PlayerInfo } from './ratings';
import { describeResult, type Variant } from './variants';

/** The page's heading: "Ann 1500 vs Bo (guest)", the variant beneath. */
export function fillHeading(title: HTMLElement, variant: Variant, players: Record<string, PlayerInfo | null> | undefined): void {
  fill(title, playersLine(players, variant.seats), h('span', { class: 'game-variant' }, variant.title));
}

/** Appends "1-0" and why (or "Game aborted") under the moves of a game that is over. */
export function appendResult(list: HTMLElement, variant: Variant, result: string | null, reason: string | null, status: string): void {
  if (status !== 'ended' && status !== 'aborted') return;
  const score = status === 'aborted' ? '—' : result === '1/2-1/2' ? '½–½' : result ?? '';
  list.append(
    h('li', { class: 'move-result', id: 'move-result' }, score, h('small', {}, describeResult(variant, result, reason, status))),
  );
}

/** The export link, named as the server names the file. */
export function exportLink(gameId: string, variant: string): HTMLAnchorElement {
  return h('a', { href: `/api/games/${gameId}/export`, download: exportFileName(gameId, variant), id: 'export-link' }, 'Export');
}

/** A watcher as `spectators.watchers` names one. */
export interface WatcherInfo {
  name: string;
  guest: boolean;
}

/** "Spectators: 3", a button that shows and hides the names the server gave. */
export class SpectatorsPanel {
  readonly element = h('div', { class: 'spectators', id: 'spectators-box' });
  private readonly names = h('ul', { class: 'spectator-names', id: 'spectator-names', hidden: true });
  private readonly toggle = h('button', { type: 'button', class: 'linkish', id: 'spectators', 'aria-expanded': 'false', 'aria-controls': 'spectator-names' });
  private count = 0;
  private watchers: WatcherInfo[] = [];

  constructor() {
    this.toggle.addEventListener('click', () => {
      this.names.hidden = !this.names.hidden;
      this.render();
    });
  }

  /** The server's latest count, and its names when it sent some (a state carries only the count). */
  update(count: number, watchers?: unknown): void {
    this.count = count;
    if (Array.isArray(watchers)) {
      this.watchers = watchers
        .filter((w) => w && typeof w.name === 'string')
        .map((w) => ({ name: w.name as string, guest: w.guest === true }));
    }
    if (this.count === 0) this.watchers = [];
    this.render();
  }

  private render(): void {
    this.toggle.textContent = `Spectators: ${this.count}`;
    this.toggle.disabled = this.count === 0;
    this.toggle.setAttribute('aria-expanded', String(!this.names.hidden));
    const items = this.watchers.map((w) => h('li', {}, w.name, w.guest ? h('small', { class: 'guest' }, ' (guest)') : null));
    const more = this.count - this.watchers.length;
    if (more > 0) items.push(h('li', { class: 'more' }, this.watchers.length ? `and ${more} more` : 'names not known yet'));
    fill(this.names, ...items);
    fill(this.element, this.toggle, this.names);
  }
}

/** Replaces the page with "No such game" and nothing to act on (no board, moves or links). */
export function showNoSuchGame(root: HTMLElement, gameId: string, detail?: string): void {
  fill(
    root,
    h(
      'section',
      { class: 'not-found', id: 'not-found' },
      h('h2', {}, 'No such game'),
      h('p', {}, detail ?? `There is no game “${gameId}” on this server.`),
      h('p', {}, h('a', { href: '#/' }, 'Back to the lobby')),
    ),
  );
}
