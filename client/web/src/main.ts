// The app shell: the connection, the player's name or account, the connection banner, and hash
// routes (routes.ts: lobby, play or watch, replay, profile, leaderboard).
import { AccountState, accountArea } from './account';
import { installBoardStyles } from './board';
import { fill, h } from './dom';
import { gameView } from './game';
import { leaderboardView } from './leaderboard';
import { lobbyView } from './lobby';
import { cleanName } from './names';
import { Connection } from './net';
import { profileView } from './profile';
import { replayView } from './replay';
import { parseRoute } from './routes';

export interface App {
  conn: Connection;
  /** Who this page is signed in as (null: a guest). */
  account: AccountState;
  navigate(hash: string): void;
}

function newGuestName(): string {
  const name = `Guest${Math.floor(1000 + Math.random() * 9000)}`;
  localStorage.setItem('arbiter.name', name);
  return name;
}

function playerName(): string {
  // A name stored by an older page (or by hand) may be one the server refuses.
  return cleanName(localStorage.getItem('arbiter.name') ?? '') || newGuestName();
}

function start(): void {
  installBoardStyles();
  const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  const conn = new Connection(wsUrl, playerName);
  const account = new AccountState();
  const app: App = {
    conn,
    account,
    navigate(hash) {
      if (location.hash === hash) route();
      else location.hash = hash;
    },
  };

  const nameInput = h('input', { id: 'player-name', value: playerName(), maxlength: '32', 'aria-label': 'Your name' });
  nameInput.addEventListener('change', () => {
    const name = cleanName(nameInput.value);
    if (!name) return;
    nameInput.value = name;
    localStorage.setItem('arbiter.name', name);
    conn.rename();
  });
  // Signed out, the guest's name must not be the account's own: the server would refuse it.
  const signedOut = (username: string) => {
    if (playerName().toLowerCase() === username.toLowerCase()) nameInput.value = newGuestName();
  };
  const guestName = h('label', { class: 'name' }, 'Name ', nameInput);
  const banner = h('div', { class: 'banner', id: 'connection', role: 'status', 'aria-live': 'polite' });
  const main = h('main', { id: 'view' });
  fill(
    document.body,
    h(
      'header',
      { class: 'top' },
      h('a', { href: '#/', class: 'brand' }, 'Arbiter'),
      h('nav', {}, h('a', { href: '#/leaderboard', id: 'nav-leaderboard' }, 'Leaderboard')),
      accountArea(conn, account, guestName, signedOut),
    ),
    banner,
    main,
  );

  let bannerTimer = 0;
  conn.onStatus((status) => {
    clearTimeout(bannerTimer);
    banner.dataset.state = status.state;
    if (status.state === 'open') {
      banner.textContent = status.reconnected ? 'Reconnected.' : '';
      banner.hidden = !status.reconnected;
      bannerTimer = window.setTimeout(() => (banner.hidden = true), 4000);
    } else if (status.state === 'closed') {
      banner.hidden = false;
      banner.textContent = `Connection lost — reconnecting${status.retryIn ? ` in ${status.retryIn}s` : ''}…`;
    } else {
      banner.hidden = false;
      banner.textContent = 'Connecting…';
    }
  });

  let cleanup: (() => void) | null = null;
  function route(): void {
    cleanup?.();
    cleanup = null;
    const route = parseRoute(location.hash);
    fill(main);
    if (route.view === 'game') cleanup = gameView(app, main, route.id);
    else if (route.view === 'replay') cleanup = replayView(app, main, route.id);
    else if (route.view === 'profile') cleanup = profileView(app, main, route.name);
    else if (route.view === 'leaderboard') cleanup = leaderboardView(app, main, route.variant, route.speed);
    else cleanup = lobbyView(app, main);
    window.scrollTo(0, 0);
  }
  window.addEventListener('hashchange', route);
  route();
  // For the end-to-end tests: drop the socket as a network failure would.
  (window as any).arbiter = { conn };
}

start();
