// The lobby (#/): create a game, join an open one live, watch games being played, replay
// finished ones.
import { fill, formatClock, h } from './dom';
import type { App } from './main';
import { loadSeat, markJustSeated, saveSeat, type Message } from './net';
import { playersLine } from './players';
import { formatRange } from './ratings';
import { seatTitle, VARIANTS, variantOf, type VariantName } from './variants';

const CLOCKS: [string, string][] = [
  ['', 'No clock'],
  ['60000+0', '1 + 0'],
  ['180000+2000', '3 + 2'],
  ['300000+3000', '5 + 3'],
  ['600000+5000', '10 + 5'],
  ['900000+10000', '15 + 10'],
  ['1800000+0', '30 + 0'],
];

function timeControl(tc: { initial_ms: number; increment_ms: number } | null): string {
  if (!tc) return 'no clock';
  return `${formatClock(tc.initial_ms)} + ${tc.increment_ms / 1000}s`;
}

const ENGINE_TITLES: Record<string, string> = {
  builtin: 'Arbiter builtin',
  stockfish: 'Stockfish',
  'fairy-stockfish': 'Fairy-Stockfish',
};

function engineTitle(name: string): string {
  return ENGINE_TITLES[name] ?? name;
}

/** The well-formed game summaries of a `lobby` / `games` list (protocol.md, "lobby, games"). */
function summaries(games: unknown): Message[] {
  if (!Array.isArray(games)) return [];
  return games.filter(
    (g) => typeof g === 'object' && g !== null && typeof g.game === 'string' && typeof g.variant === 'string' &&
      (g.players === undefined || (typeof g.players === 'object' && g.players !== null)),
  );
}

function names(game: Message): HTMLElement {
  return playersLine(game.players, variantOf(game.variant).seats);
}

/** "rated · 1500–1800" or "casual" (a server without ratings says neither: nothing). */
function modeNode(game: Message): HTMLElement | null {
  if (typeof game.rated !== 'boolean') return null;
  const range = formatRange(game.rating_range);
  return h('span', { class: `mode ${game.rated ? 'rated' : 'casual'}` }, game.rated ? `rated${range ? ` · ${range}` : ''}` : 'casual');
}

/** The time control and the rated mark, in the list's third column. */
function terms(game: Message, first: string): HTMLElement {
  const mode = modeNode(game);
  return h('span', { class: 'tc' }, first, mode ? h('br') : null, mode);
}

export function lobbyView(app: App, root: HTMLElement): () => void {
  const variantSelect = h(
    'select',
    { id: 'create-variant', name: 'variant' },
    ...Object.values(VARIANTS).map((v) => h('option', { value: v.name }, v.title)),
  );
  const sideSelect = h('select', { id: 'create-side', name: 'side' });
  const clockSelect = h('select', { id: 'create-clock', name: 'clock' }, ...CLOCKS.map(([v, l]) => h('option', { value: v }, l)));
  clockSelect.value = '300000+3000';
  const privateBox = h('input', { type: 'checkbox', id: 'create-private', name: 'private' });
  // Rated games are for signed-in players only (the server refuses the rest with a reason).
  const ratedBox = h('input', { type: 'checkbox', id: 'create-rated', name: 'rated' });
  const ratingMin = h('input', { type: 'number', id: 'create-rating-min', name: 'rating_min', min: '0', max: '4000', step: '50', placeholder: 'any', inputmode: 'numeric' });
  const ratingMax = h('input', { type: 'number', id: 'create-rating-max', name: 'rating_max', min: '0', max: '4000', step: '50', placeholder: 'any', inputmode: 'numeric' });
  const ratedLabel = h('label', { class: 'check', id: 'create-rated-label' }, ratedBox, ' Rated');
  const rangeLabel = h('label', { class: 'range', id: 'create-range-label' }, 'Opponent rating ', h('span', { class: 'row' }, ratingMin, ' to ', ratingMax));
  const refreshRated = () => {
    const signedIn = !!app.account.username;
    ratedLabel.hidden = !signedIn;
    if (!signedIn) ratedBox.checked = false;
    rangeLabel.hidden = !ratedBox.checked;
  };
  ratedBox.addEventListener('change', refreshRated);
  const offAccount = app.account.listen(refreshRated);
  refreshRated();
  // "Play the computer": the engines come from the server's welcome, filtered by the variant.
  const opponentSelect = h(
    'select',
    { id: 'create-opponent', name: 'opponent' },
    h('option', { value: 'person' }, 'a person'),
    h('option', { value: 'computer' }, 'the computer'),
  );
  const engineSelect = h('select', { id: 'create-engine', name: 'engine' });
  const levelSelect = h(
    'select',
    { id: 'create-level', name: 'level' },
    ...[1, 2, 3, 4, 5, 6, 7, 8].map((level) => h('option', { value: String(level) }, level === 1 ? '1 (weakest)' : level === 8 ? '8 (strongest)' : String(level))),
  );
  levelSelect.value = '3';
  const engineLabel = h('label', { id: 'create-engine-label' }, 'Engine ', engineSelect);
  const levelLabel = h('label', { id: 'create-level-label' }, 'Level ', levelSelect);
  const refreshOpponents = () => {
    const engines = app.conn.engines.filter((engine) => engine.variants.includes(variantSelect.value));
    const keep = engineSelect.value;
    fill(engineSelect, ...engines.map((engine) => h('option', { value: engine.name }, engineTitle(engine.name))));
    if (engines.some((engine) => engine.name === keep)) engineSelect.value = keep;
    const computerOption = opponentSelect.querySelector<HTMLOptionElement>('option[value="computer"]')!;
    computerOption.disabled = engines.length === 0;
    if (engines.length === 0) opponentSelect.value = 'person';
    const computer = opponentSelect.value === 'computer';
    engineLabel.hidden = !computer;
    levelLabel.hidden = !computer;
  };
  opponentSelect.addEventListener('change', refreshOpponents);
  const positionInput = h('input', { id: 'create-position', name: 'position', autocomplete: 'off', spellcheck: 'false' });
  const createError = h('p', { class: 'message error', id: 'create-error', role: 'alert' });
  const refreshSides = () => {
    const v = VARIANTS[variantSelect.value as VariantName];
    const keep = sideSelect.value || 'random';
    fill(
      sideSelect,
      h('option', { value: 'first' }, seatTitle(v.seats[0])),
      h('option', { value: 'second' }, seatTitle(v.seats[1])),
      h('option', { value: 'random' }, 'Random'),
    );
    sideSelect.value = keep;
    positionInput.placeholder = v.example;
  };
  variantSelect.addEventListener('change', refreshSides);
  variantSelect.addEventListener('change', refreshOpponents);
  refreshSides();
  refreshOpponents();

  const form = h(
    'form',
    { class: 'create-form', id: 'create-form' },
    h('h2', {}, 'New game'),
    h('label', {}, 'Game ', variantSelect),
    h('label', {}, 'Play as ', sideSelect),
    h('label', {}, 'Opponent ', opponentSelect),
    engineLabel,
    levelLabel,
    h('label', {}, 'Time ', clockSelect),
    h('label', { class: 'check' }, privateBox, ' Private (only people with the link)'),
    ratedLabel,
    rangeLabel,
    h(
      'details',
      {},
      h('summary', {}, 'Advanced'),
      h('label', {}, 'Start position (FEN / PDN FEN) ', positionInput),
    ),
    h('button', { type: 'submit', class: 'primary', id: 'create-submit' }, 'Create game'),
    createError,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    createError.textContent = '';
    const request: Message = { type: 'create', variant: variantSelect.value, side: sideSelect.value };
    if (clockSelect.value) {
      const [initial, increment] = clockSelect.value.split('+').map(Number);
      request.clock = { initial_ms: initial, increment_ms: increment };
    }
    if (privateBox.checked) request.private = true;
    if (positionInput.value.trim()) request.position = positionInput.value.trim();
    if (opponentSelect.value === 'computer' && engineSelect.value) {
      request.opponent = { engine: engineSelect.value, level: Number(levelSelect.value) };
    }
    if (ratedBox.checked && !ratedLabel.hidden) {
      request.rated = true;
      const range: Record<string, number> = {};
      if (ratingMin.value.trim()) range.min = Number(ratingMin.value);
      if (ratingMax.value.trim()) range.max = Number(ratingMax.value);
      if ('min' in range || 'max' in range) request.rating_range = range;
    }
    const reply = await app.conn.request(request);
    if (reply.type === 'error') {
      createError.textContent = reply.message || reply.code;
      return;
    }
    saveSeat(reply.game, { seat: reply.seat, token: reply.token });
    markJustSeated(reply.game);
    app.navigate(`#/game/${reply.game}`);
  });

  const openList = h('ul', { class: 'game-list', id: 'open-games' });
  const liveList = h('ul', { class: 'game-list', id: 'live-games' });
  const doneList = h('ul', { class: 'game-list', id: 'finished-games' });
  const listError = h('p', { class: 'message error', role: 'alert' });
  fill(
    root,
    h(
      'section',
      { class: 'lobby' },
      form,
      h('div', { class: 'lists' }, h('h2', {}, 'Open games'), openList, listError, h('h2', {}, 'Being played'), liveList, h('h2', {}, 'Finished'), doneList),
    ),
  );

  async function join(game: string): Promise<void> {
    const reply = await app.conn.request({ type: 'join', game });
    if (reply.type === 'error') {
      listError.textContent = reply.message || reply.code;
      return;
    }
    saveSeat(reply.game, { seat: reply.seat, token: reply.token });
    markJustSeated(reply.game);
    app.navigate(`#/game/${reply.game}`);
  }

  function renderOpen(games: Message[]): void {
    const rows = games.map((game) => {
      const variant = variantOf(game.variant);
      const open = variant.seats.find((s) => !game.players?.[s]);
      // A game this browser created (its seat token is stored) is opened, not joined.
      const mine = loadSeat(game.game);
      const joinButton = mine
        ? h('a', { href: `#/game/${game.game}`, class: 'button' }, 'Open (yours)')
        : h('button', { type: 'button', class: 'primary', 'data-game': game.game }, `Join as ${seatTitle(open ?? '')}`);
      if (!mine) joinButton.addEventListener('click', () => join(game.game));
      return h(
        'li',
        { 'data-game': game.game },
        h('span', { class: 'variant' }, variant.title),
        names(game),
        terms(game, timeControl(game.time_control)),
        joinButton,
      );
    });
    fill(openList, ...(rows.length ? rows : [h('li', { class: 'empty' }, 'No open games — create one.')]));
  }

  function renderList(list: HTMLElement, games: Message[], action: (game: Message) => HTMLElement, empty: string): void {
    const rows = games.map((game) =>
      h(
        'li',
        { 'data-game': game.game },
        h('span', { class: 'variant' }, variantOf(game.variant).title),
        names(game),
        terms(game, game.result ?? `${game.ply} plies`),
        action(game),
      ),
    );
    fill(list, ...(rows.length ? rows : [h('li', { class: 'empty' }, empty)]));
  }

  // Lobby updates can come in bursts; the stored lists are asked for at most every 2 s so a busy
  // server's rate limit is never reached from here.
  let lastRefresh = 0;
  let refreshQueued = false;
  async function refreshStored(): Promise<void> {
    const wait = lastRefresh + 2000 - Date.now();
    if (wait > 0) {
      if (!refreshQueued) {
        refreshQueued = true;
        setTimeout(() => {
          refreshQueued = false;
          void refreshStored();
        }, wait);
      }
      return;
    }
    lastRefresh = Date.now();
    const [live, done] = await Promise.all([
      app.conn.request({ type: 'games', status: 'playing', limit: 20 }),
      app.conn.request({ type: 'games', status: 'ended', limit: 20 }),
    ]);
    if (live.type === 'games') {
      renderList(liveList, summaries(live.games), (g) => h('a', { href: `#/game/${g.game}`, class: 'button' }, 'Watch'), 'Nobody is playing right now.');
    }
    if (done.type === 'games') {
      renderList(doneList, summaries(done.games), (g) => h('a', { href: `#/replay/${g.game}`, class: 'button' }, 'Replay'), 'No finished games yet.');
    }
  }

  const off = app.conn.on((msg) => {
    if (msg.type === 'welcome') refreshOpponents();
    if (msg.type === 'lobby') {
      renderOpen(summaries(msg.games));
      void refreshStored();
    }
  });
  const offOpen = app.conn.onOpen(() => {
    app.conn.send({ type: 'lobby' });
    void refreshStored();
  });
  const timer = window.setInterval(() => app.conn.isOpen() && void refreshStored(), 10000);
  return () => {
    off();
    offOpen();
    offAccount();
    clearInterval(timer);
  };
}
