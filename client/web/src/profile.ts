// A player's profile (#/@/<name>): ratings per variant and speed, games won / drawn / lost, the
// rating history drawn as SVG (one line per variant and speed), and their games newest first,
// a page at a time, each linking to its replay. From GET /api/users/{name}, .../history and
// .../games; every text is set as text.
import { api, userPath } from './api';
import { chartGeometry, dayLabel, type ChartSeries } from './chart';
import { fill, h } from './dom';
import type { App } from './main';
import type { Message } from './net';
import { playersLine } from './players';
import { formatRange, formatRating, speedTitle } from './ratings';
import { leaderboardHref, SPEEDS } from './routes';
import { variantOf, VARIANTS } from './variants';

const SVG = 'http://www.w3.org/2000/svg';
const BOX = { width: 640, height: 260, left: 48, right: 12, top: 12, bottom: 28 };
const PAGE = 20;
/** Line colours by series, in order; enough to tell apart the usual few. */
const COLOURS = ['#2f6f3e', '#a3261b', '#1f5fa8', '#b8860b', '#6b3fa0', '#0f7c7c', '#c2185b', '#555'];

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

const perfTitle = (variant: string, speed: string) => `${variantOf(variant).title} · ${speedTitle(speed)}`;

/** The history answer's series, well formed only. */
function seriesOf(body: unknown): (ChartSeries & { variant: string; speed: string })[] {
  const list = (body as Message)?.history;
  if (!Array.isArray(list)) return [];
  return list
    .filter((s) => s && typeof s.variant === 'string' && typeof s.speed === 'string' && Array.isArray(s.points))
    .map((s) => ({
      key: `${s.variant}/${s.speed}`,
      variant: s.variant,
      speed: s.speed,
      points: s.points.filter((p: any) => p && typeof p.at_ms === 'number' && typeof p.rating === 'number'),
    }));
}

/** The chart as an SVG element with a legend; a sentence when there is no history. */
export function ratingChart(series: (ChartSeries & { variant: string; speed: string })[]): HTMLElement {
  const geometry = chartGeometry(series, BOX);
  if (!geometry) return h('p', { class: 'empty', id: 'rating-chart-empty' }, 'No rated games yet.');
  const chart = svg('svg', {
    viewBox: `0 0 ${BOX.width} ${BOX.height}`,
    class: 'rating-chart',
    id: 'rating-chart',
    role: 'img',
    'aria-label': 'Rating history',
  });
  const right = BOX.width - BOX.right;
  const bottom = BOX.height - BOX.bottom;
  for (const tick of geometry.yTicks) {
    chart.append(svg('line', { x1: BOX.left, x2: right, y1: tick.at, y2: tick.at, class: 'grid' }));
    chart.append(svg('text', { x: BOX.left - 6, y: tick.at + 4, 'text-anchor': 'end', class: 'axis' }, tick.label));
  }
  geometry.xTicks.forEach((tick, index) => {
    chart.append(svg('text', { x: tick.at, y: bottom + 18, 'text-anchor': index === 0 ? 'start' : 'end', class: 'axis' }, tick.label));
  });
  chart.append(svg('rect', { x: BOX.left, y: BOX.top, width: right - BOX.left, height: bottom - BOX.top, class: 'frame' }));
  const legend = h('ul', { class: 'chart-legend' });
  geometry.lines.forEach((line, index) => {
    const colour = COLOURS[index % COLOURS.length];
    const [variant, speed] = line.key.split('/');
    const group = svg('g', { 'data-series': line.key, stroke: colour, fill: colour });
    group.append(svg('path', { d: line.path, class: 'line', fill: 'none' }));
    for (const dot of line.dots) {
      const circle = svg('circle', { cx: dot.x, cy: dot.y, r: 3 });
      circle.append(svg('title', {}, `${perfTitle(variant, speed)}: ${Math.round(dot.rating)} on ${dayLabel(dot.at_ms)}`));
      group.append(circle);
    }
    chart.append(group);
    legend.append(h('li', { 'data-series': line.key }, h('span', { class: 'swatch', style: `background:${colour}` }), perfTitle(variant, speed)));
  });
  return h('figure', { class: 'chart' }, chart, legend);
}

/** The ratings table: one row per variant and speed the player has a rating in. */
function ratingsTable(ratings: unknown): HTMLElement {
  const rows: HTMLElement[] = [];
  if (ratings && typeof ratings === 'object') {
    for (const variant of Object.keys(VARIANTS)) {
      const speeds = (ratings as Message)[variant];
      if (!speeds || typeof speeds !== 'object') continue;
      for (const speed of SPEEDS) {
        const r = speeds[speed];
        if (!r || typeof r.rating !== 'number') continue;
        rows.push(
          h(
            'tr',
            { 'data-perf': `${variant}/${speed}` },
            h('td', {}, h('a', { href: leaderboardHref(variant, speed) }, perfTitle(variant, speed))),
            h('td', { class: 'num rating' }, formatRating({ rating: Math.round(r.rating), provisional: r.provisional === true })),
            h('td', { class: 'num' }, typeof r.deviation === 'number' ? `±${Math.round(r.deviation)}` : ''),
            h('td', { class: 'num' }, typeof r.games === 'number' ? String(r.games) : ''),
          ),
        );
      }
    }
  }
  if (!rows.length) return h('p', { class: 'empty', id: 'profile-ratings' }, 'No ratings yet: ratings come with rated games.');
  return h(
    'table',
    { class: 'ratings-table', id: 'profile-ratings' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Game'), h('th', {}, 'Rating'), h('th', {}, 'Deviation'), h('th', {}, 'Games'))),
    h('tbody', {}, ...rows),
  );
}

function countsText(counts: unknown): string {
  const c = counts as Message;
  if (!c || typeof c.games !== 'number') return '';
  const n = (value: unknown) => (typeof value === 'number' ? value : 0);
  return `${c.games} game${c.games === 1 ? '' : 's'} · ${n(c.won)} won · ${n(c.drawn)} drawn · ${n(c.lost)} lost`;
}

/** One game of the list: what, who, how it ended, when, and its replay (or watch) link. */
function gameRow(game: Message): HTMLElement {
  const variant = variantOf(game.variant);
  const finished = game.status === 'ended' || game.status === 'aborted';
  const range = formatRange(game.rating_range);
  const mode = typeof game.rated === 'boolean' ? (game.rated ? `rated${range ? ` · ${range}` : ''}` : 'casual') : '';
  return h(
    'li',
    { 'data-game': game.game },
    h('span', { class: 'variant' }, variant.title),
    playersLine(game.players, variant.seats),
    h('span', { class: 'tc' }, game.result ?? game.status ?? '', mode ? h('br') : null, mode),
    h(
      'a',
      { href: finished ? `#/replay/${encodeURIComponent(game.game)}` : `#/game/${encodeURIComponent(game.game)}`, class: 'button' },
      finished ? 'Replay' : 'Watch',
    ),
    typeof game.created_ms === 'number' ? h('small', { class: 'when' }, dayLabel(game.created_ms)) : null,
  );
}

export function profileView(app: App, root: HTMLElement, name: string | null): () => void {
  const title = h('h2', { id: 'profile-name' }, name ?? 'No such player');
  const meta = h('p', { class: 'meta', id: 'profile-meta' });
  const error = h('p', { class: 'message error', id: 'profile-error', role: 'alert' });
  const counts = h('p', { class: 'counts', id: 'profile-counts' });
  const ratings = h('div', { class: 'ratings-box' });
  const chart = h('div', { class: 'chart-box' });
  const games = h('ul', { class: 'game-list', id: 'profile-games' });
  const more = h('button', { type: 'button', id: 'profile-more', hidden: true }, 'More');
  const body = h(
    'div',
    { class: 'profile-body', hidden: true },
    counts,
    h('h3', {}, 'Ratings'),
    ratings,
    h('h3', {}, 'Rating history'),
    chart,
    h('h3', {}, 'Games'),
    games,
    more,
  );
  const own = h('div', { class: 'profile-own', id: 'profile-own', hidden: true });
  fill(root, h('section', { class: 'profile-page' }, title, meta, error, body, own));
  if (!name) {
    error.textContent = 'A username is 3 to 20 letters, digits, _ or -.';
    return () => undefined;
  }

  let left = false;
  let next: string | null = null;

  async function loadGames(): Promise<void> {
    more.disabled = true;
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (next) query.set('before', next);
    const answer = await api(`GET`, userPath(name!, `/games?${query}`));
    if (left) return;
    more.disabled = false;
    if (!answer.ok) {
      error.textContent = `Games: ${answer.message}`;
      return;
    }
    const list = Array.isArray(answer.body?.games) ? answer.body.games.filter((g: any) => g && typeof g.game === 'string') : [];
    if (!next && !list.length) fill(games, h('li', { class: 'empty' }, 'No games yet.'));
    else games.append(...list.map(gameRow));
    next = typeof answer.body?.next === 'string' ? answer.body.next : null;
    more.hidden = !next;
  }
  more.addEventListener('click', () => void loadGames());

  (async () => {
    const profile = await api(`GET`, userPath(name));
    if (left) return;
    if (!profile.ok) {
      error.textContent = profile.status === 404 ? `There is no player “${name}” here.` : profile.message;
      return;
    }
    const user = profile.body ?? {};
    title.textContent = typeof user.username === 'string' ? user.username : name;
    if (user.deleted === true) {
      meta.textContent = 'This account was deleted.';
    } else if (typeof user.created_ms === 'number') {
      meta.textContent = `Playing here since ${dayLabel(user.created_ms)} · `;
      meta.append(h('a', { href: userPath(name, '/export'), id: 'profile-export' }, 'Export all games'));
    }
    if (user.deleted !== true && typeof user.username === 'string' && app.account.username?.toLowerCase() === user.username.toLowerCase()) {
      fill(own, deleteAccountForm(app));
      own.hidden = false;
    }
    counts.textContent = countsText(user.counts);
    fill(ratings, ratingsTable(user.ratings));
    body.hidden = false;
    const [history] = await Promise.all([api(`GET`, userPath(name, '/history')), loadGames()]);
    if (left) return;
    fill(chart, history.ok ? ratingChart(seriesOf(history.body)) : h('p', { class: 'message error' }, `Rating history: ${history.message}`));
  })();

  return () => {
    left = true;
  };
}

/**
 * The owner's "Delete account" (protocol.md, DELETE /api/account): the password again, then the
 * account is gone, its games kept under a deleted name. The server's reason is shown as text.
 */
function deleteAccountForm(app: App): HTMLElement {
  const password = h('input', { id: 'delete-password', type: 'password', autocomplete: 'current-password', maxlength: '128' });
  const button = h('button', { type: 'button', id: 'delete-account', class: 'danger' }, 'Delete my account');
  const status = h('p', { class: 'message error', id: 'delete-error', role: 'alert' });
  button.addEventListener('click', async () => {
    status.textContent = '';
    const secret = (password as HTMLInputElement).value;
    if (!secret) {
      status.textContent = 'Type your password to delete the account.';
      return;
    }
    (button as HTMLButtonElement).disabled = true;
    const answer = await api('DELETE', '/api/account', { password: secret });
    (button as HTMLButtonElement).disabled = false;
    if (!answer.ok) {
      status.textContent = answer.message;
      return;
    }
    app.account.set(null);
    app.conn.reconnect();
    app.navigate('#/');
  });
  return h(
    'details',
    { class: 'delete-account' },
    h('summary', {}, 'Delete account'),
    h('p', {}, 'Your games stay, shown under a deleted name; the name cannot be registered again.'),
    h('label', {}, 'Password ', password),
    button,
    status,
  );
}
