// The leaderboard of one variant and speed (#/leaderboard/<variant>/<speed>), from
// GET /api/leaderboard: players with a settled rating who played rated recently, best first.
import { api } from './api';
import { fill, h } from './dom';
import type { App } from './main';
import type { Message } from './net';
import { userLink } from './players';
import { speedTitle } from './ratings';
import { BOARD_VARIANTS, leaderboardHref, SPEEDS } from './routes';
import { variantOf } from './variants';

const LIMIT = 50;

export function leaderboardView(app: App, root: HTMLElement, variant: string, speed: string): () => void {
  const title = h('h2', { id: 'leaderboard-title' }, `${variantOf(variant).title} · ${speedTitle(speed)} leaderboard`);
  const tabs = (items: readonly string[], current: string, href: (item: string) => string, label: (item: string) => string, id: string) =>
    h(
      'nav',
      { class: 'tabs', id },
      ...items.map((item) => h('a', { href: href(item), class: item === current ? 'current' : '', 'aria-current': item === current ? 'page' : undefined }, label(item))),
    );
  const table = h('div', { class: 'leaderboard-box' });
  const error = h('p', { class: 'message error', id: 'leaderboard-error', role: 'alert' });
  fill(
    root,
    h(
      'section',
      { class: 'leaderboard-page' },
      title,
      tabs(BOARD_VARIANTS, variant, (v) => leaderboardHref(v, speed), (v) => variantOf(v).title, 'leaderboard-variants'),
      tabs(SPEEDS, speed, (s) => leaderboardHref(variant, s), speedTitle, 'leaderboard-speeds'),
      error,
      table,
      h('p', { class: 'note' }, 'Players with a settled rating (not provisional) who played a rated game in the last 30 days.'),
    ),
  );

  let left = false;
  (async () => {
    const query = new URLSearchParams({ variant, speed, limit: String(LIMIT) });
    const answer = await api(`GET`, `/api/leaderboard?${query}`);
    if (left) return;
    if (!answer.ok) {
      error.textContent = answer.message;
      return;
    }
    const players: Message[] = Array.isArray(answer.body?.players)
      ? answer.body.players.filter((p: any) => p && typeof p.username === 'string' && typeof p.rating === 'number')
      : [];
    if (!players.length) {
      fill(table, h('p', { class: 'empty', id: 'leaderboard-empty' }, 'Nobody has a settled rating here yet.'));
      return;
    }
    fill(
      table,
      h(
        'table',
        { class: 'ratings-table', id: 'leaderboard' },
        h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Player'), h('th', {}, 'Rating'), h('th', {}, 'Games'))),
        h(
          'tbody',
          {},
          ...players.map((player, index) =>
            h(
              'tr',
              { 'data-user': player.username },
              h('td', { class: 'num' }, String(index + 1)),
              h('td', {}, userLink(player.username)),
              h('td', { class: 'num rating' }, String(Math.round(player.rating))),
              h('td', { class: 'num' }, typeof player.games === 'number' ? String(player.games) : ''),
            ),
          ),
        ),
      ),
    );
  })();
  return () => {
    left = true;
  };
}
