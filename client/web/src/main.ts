// The app shell: the connection, the player's name, the connection banner, and hash routes
// (#/ lobby, #/game/<id> play or watch, #/replay/<id>).
import { installBoardStyles } from './board';
import { fill, h } from './dom';
import { gameView } from './game';
import { lobbyView } from './lobby';
import { cleanName } from './names';
import { Connection } from './net';
import { replayView } from './replay';

export interface App {
  conn: Connection;
  navigate(hash: string): void;
}

function playerName(): string {
  // A name stored by an older page (or by hand) may be one the server refuses.
  let name = cleanName(localStorage.getItem('arbiter.name') ?? '');
  if (!name) {
    name = `Guest${Math.floor(1000 + Math.random() * 9000)}`;
    localStorage.setItem('arbiter.name', name);
  }
  return name;
}

function start(): void {
  installBoardStyles();
  const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  const conn = new Connection(wsUrl, playerName);
  const app: App = {
    conn,
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
  const banner = h('div', { class: 'banner', id: 'connection', role: 'status', 'aria-live': 'polite' });
  const main = h('main', { id: 'view' });
  fill(
    document.body,
    h(
      'header',
      { class: 'top' },
      h('a', { href: '#/', class: 'brand' }, 'Arbiter'),
      h('label', { class: 'name' }, 'Name ', nameInput),
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
    const path = location.hash.replace(/^#/, '') || '/';
    const game = /^\/game\/([\w-]+)$/.exec(path);
    const replay = /^\/replay\/([\w-]+)$/.exec(path);
    fill(main);
    if (game) cleanup = gameView(app, main, game[1]);
    else if (replay) cleanup = replayView(app, main, replay[1]);
    else cleanup = lobbyView(app, main);
    window.scrollTo(0, 0);
  }
  window.addEventListener('hashchange', route);
  route();
  // For the end-to-end tests: drop the socket as a network failure would.
  (window as any).arbiter = { conn };
}

start();
