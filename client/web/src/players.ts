// A player's name on any page: a link to the profile for an account, "(guest)" for a guest,
// the rating beside it ("1512?" while provisional). Text only: names are never read as HTML.
import { h } from './dom';
import { formatDiff, formatRating, hasProfile, type PlayerInfo, type RatingChange } from './ratings';
import { profileHref } from './routes';

/** `name` as a profile link. */
export function userLink(name: string, attrs: Record<string, any> = {}): HTMLAnchorElement {
  return h('a', { href: profileHref(name), class: 'user-link', ...attrs }, name);
}

/** A player: name (linked for an account), guest mark and rating; "—" for an empty seat. */
export function playerNode(player: PlayerInfo | null | undefined, empty = '—'): HTMLElement {
  if (!player) return h('span', { class: 'player empty' }, empty);
  const rating = formatRating(player.rating);
  return h(
    'span',
    { class: 'player' },
    hasProfile(player) ? userLink(player.name) : h('span', { class: 'name' }, player.name),
    player.guest ? h('small', { class: 'guest' }, ' (guest)') : null,
    rating ? h('span', { class: 'rating', title: player.rating?.provisional ? 'provisional rating' : 'rating' }, ` ${rating}`) : null,
  );
}

/** A rating change: "+12" / "−12", marked up or down. */
export function diffNode(change: RatingChange): HTMLElement {
  const direction = change.diff > 0 ? 'up' : change.diff < 0 ? 'down' : 'same';
  return h('span', { class: `rating-diff ${direction}` }, formatDiff(change.diff));
}

/** "Ann 1500 vs Bo 1512?" as nodes, one per seat in order. */
export function playersLine(players: Record<string, PlayerInfo | null> | undefined, seats: string[]): HTMLElement {
  const line = h('span', { class: 'players' });
  seats.forEach((seat, index) => {
    if (index) line.append(' vs ');
    line.append(playerNode(players?.[seat]));
  });
  return line;
}
