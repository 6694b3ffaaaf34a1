// How ratings and players read on screen (protocol.md: player objects carry `guest` and
// `rating`; `ended.ratings` the change of a rated game). Pure text: the pages set it as text.

/** A player's rating as the server sends it with a player (rounded already). */
export interface ShownRating {
  rating: number;
  provisional: boolean;
}

/** One seat's change at the end of a rated game (`ended.ratings.<seat>`). */
export interface RatingChange {
  before: number;
  after: number;
  diff: number;
  provisional: boolean;
}

/** A player as the server describes one (state, lobby and games entries, record). */
export interface PlayerInfo {
  name: string;
  guest?: boolean;
  engine?: boolean;
  rating?: ShownRating | null;
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** "1512", or "1512?" while provisional; "" for none. Whole points (the server rounds too). */
export function formatRating(rating: ShownRating | null | undefined): string {
  if (!rating || !isNumber(rating.rating)) return '';
  return `${Math.round(rating.rating)}${rating.provisional ? '?' : ''}`;
}

/** "+12", "−12" (a minus sign, not a hyphen), "±0". */
export function formatDiff(diff: number): string {
  const whole = Math.round(diff);
  if (whole > 0) return `+${whole}`;
  if (whole < 0) return `\u2212${-whole}`;
  return '\u00b10';
}

/** Whether a player is someone with an account (a profile to link to): not a guest, no engine. */
export function hasProfile(player: PlayerInfo | null | undefined): boolean {
  return !!player && player.guest === false && !player.engine;
}

/** A player in one line of text: "Ann (guest)", "Bo 1512?", "Arbiter builtin (level 1)". */
export function playerText(player: PlayerInfo | null | undefined): string {
  if (!player) return '—';
  if (player.guest) return `${player.name} (guest)`;
  const rating = formatRating(player.rating);
  return rating ? `${player.name} ${rating}` : player.name;
}

/** `rating` if well formed, else null (a malformed one is shown as none). */
export function shownRating(value: unknown): ShownRating | null {
  if (!isObject(value) || !isNumber(value.rating)) return null;
  return { rating: value.rating, provisional: value.provisional === true };
}

/** The well-formed seats of `ended.ratings` / `record.ratings`; null when there are none. */
export function ratingChanges(value: unknown): Record<string, RatingChange> | null {
  if (!isObject(value)) return null;
  const changes: Record<string, RatingChange> = {};
  for (const [seat, change] of Object.entries(value)) {
    if (isObject(change) && isNumber(change.before) && isNumber(change.after) && isNumber(change.diff)) {
      changes[seat] = { before: change.before, after: change.after, diff: change.diff, provisional: change.provisional === true };
    }
  }
  return Object.keys(changes).length ? changes : null;
}

/** "1500-1800", "1500 or more", "up to 1800"; "" without bounds. */
export function formatRange(range: unknown): string {
  if (!isObject(range)) return '';
  const min = isNumber(range.min) ? range.min : null;
  const max = isNumber(range.max) ? range.max : null;
  if (min !== null && max !== null) return `${min}\u2013${max}`;
  if (min !== null) return `${min} or more`;
  if (max !== null) return `up to ${max}`;
  return '';
}

const SPEED_TITLES: Record<string, string> = { bullet: 'Bullet', blitz: 'Blitz', rapid: 'Rapid', classical: 'Classical' };

export function speedTitle(speed: string): string {
  return SPEED_TITLES[speed] ?? speed;
}
