// Hash routes (#/ lobby, #/game/<id>, #/replay/<id>, #/@/<name> profile, #/leaderboard[/<variant>/<speed>]),
// parsed in one place so that every link the pages write is one the router reads back.

/** The variants and speeds a leaderboard is kept for (server/app/perf.hpp). */
export const BOARD_VARIANTS = ['chess', 'xiangqi', 'draughts'] as const;
export const SPEEDS = ['bullet', 'blitz', 'rapid', 'classical'] as const;
export type Speed = (typeof SPEEDS)[number];

export type Route =
  | { view: 'lobby' }
  | { view: 'game'; id: string }
  | { view: 'replay'; id: string }
  /** `name` is null when the link names no possible username (the page says so, asks nothing). */
  | { view: 'profile'; name: string | null }
  | { view: 'leaderboard'; variant: string; speed: Speed };

/** A username as the server accepts one at sign-up: 3-20 ASCII letters, digits, `_`, `-`. */
export const USERNAME = /^[A-Za-z0-9_-]{3,20}$/;

export function isUsername(text: string): boolean {
  return USERNAME.test(text);
}

/** The route of a location hash ("#/game/abc"); anything unknown is the lobby. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const game = /^\/game\/([\w-]+)$/.exec(path);
  if (game) return { view: 'game', id: game[1] };
  const replay = /^\/replay\/([\w-]+)$/.exec(path);
  if (replay) return { view: 'replay', id: replay[1] };
  const profile = /^\/@\/([^/]*)$/.exec(path);
  if (profile) {
    let name: string;
    try {
      name = decodeURIComponent(profile[1]);
    } catch {
      return { view: 'profile', name: null };
    }
    return { view: 'profile', name: isUsername(name) ? name : null };
  }
  const board = /^\/leaderboard(?:\/([a-z]+)\/([a-z]+))?\/?$/.exec(path);
  if (board) {
    const variant = (BOARD_VARIANTS as readonly string[]).includes(board[1] ?? '') ? board[1] : 'chess';
    const speed = (SPEEDS as readonly string[]).includes(board[2] ?? '') ? (board[2] as Speed) : 'blitz';
    return { view: 'leaderboard', variant, speed };
  }
  return { view: 'lobby' };
}

/** The profile link of a username (escaped, though usernames need none). */
export function profileHref(name: string): string {
  return `#/@/${encodeURIComponent(name)}`;
}

export function leaderboardHref(variant: string, speed: string): string {
  return `#/leaderboard/${encodeURIComponent(variant)}/${encodeURIComponent(speed)}`;
}
