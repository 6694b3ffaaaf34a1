// Play / watch one game (#/game/<id>). A seat token for the game in localStorage makes this page a
// player (resume); without one it watches, and offers to join while a seat is open.
import { Board } from './board';
import { fill, formatClock, h } from './dom';
import { applyEvent, fromState, remainingMs, validState, type GameModel } from './model';
import { renderMoves } from './movelist';
import { forgetSeat, loadSeat, markJustSeated, saveSeat, takeJustSeated, type Message } from './net';
import { colorOf, describeResult, seatTitle, variantOf, type Variant } from './variants';
import type { App } from './main';
import { renderControls } from './controls';
import { ChatPanel } from './chat';
import { diffNode, playerNode } from './players';
import { formatDiff, formatRange, ratingChanges } from './ratings';
import { announcer, Attention, moveAnnouncement } from './attention';
import { browseStep, MoveHistory } from './browse';
import { crossedLowTime, lowTimeThreshold, moveSound, playSound, preloadSounds, setSoundMuted, soundMuted, statusSound } from './sounds';
import { takebackText } from './gamefacts';
import { appendResult, exportLink, fillHeading, showNoSuchGame, SpectatorsPanel } from './viewparts';

export interface GameContext {
  app: App;
  model: GameModel;
  variant: Variant;
  /** The seat this page plays, or null when watching. */
  seat: string | null;
  act(message: Message): void;
  say(text: string, kind?: 'info' | 'error'): void;
  rerender(): void;
}

// Request ids count across game views, so that a late answer to a view already left (say, the
// game before a rematch) is never taken for an answer to the view now shown.
let requestCounter = 0;

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 16000;
/** Answers to a resume / watch that asking again would only repeat. */
const FINAL_ERRORS = new Set(['unknown_game', 'forbidden', 'bad_request']);

export function gameView(app: App, root: HTMLElement, gameId: string): () => void {
  let model: GameModel | null = null;
  let variant: Variant | null = null;
  let board: Board | null = null;
  let seat: string | null = loadSeat(gameId)?.seat ?? null;
  let flipped = false;
  let pendingRematch: string | null = null;
  // The seat was taken over by a resume elsewhere (`seat_lost`): this page no longer plays it and
  // no longer hears the game. It keeps `seat` (the board's side, the seat to take back) but offers
  // nothing for it, and does not resume by itself, on a reconnect either: that would take the seat
  // from the other window, which would then take it back, and so on. Only the player's click does.
  let seatLost = false;

  const title = h('h2', { class: 'game-title' }, 'Loading game…');
  const mode = h('p', { class: 'game-mode', id: 'game-mode' });
  const ratingLine = h('p', { class: 'rating-changes', id: 'rating-changes', hidden: true });
  const status = h('p', { class: 'status', id: 'status', role: 'status', 'aria-live': 'polite' });
  const message = h('p', { class: 'message', id: 'message', role: 'alert' });
  const takeBack = h('button', { type: 'button', id: 'take-seat-back', class: 'primary' }, 'Play here');
  const seatLostText = h('p', {});
  const seatLostBox = h('div', { class: 'seat-lost', id: 'seat-lost', role: 'alert', hidden: true }, seatLostText, takeBack);
  const topBar = h('div', { class: 'player-bar top' });
  const bottomBar = h('div', { class: 'player-bar bottom' });
  const boardSlot = h('div', { class: 'board-slot' });
  const moves = h('ol', { class: 'moves', id: 'moves', 'aria-label': 'Moves' });
  const controls = h('div', { class: 'controls', id: 'controls' });
  const extra = h('div', { class: 'extra' });
  const moveInput = h('input', {
    id: 'move-input',
    list: 'legal-moves',
    autocomplete: 'off',
    placeholder: 'type a move',
    'aria-label': 'Type a move, as the move list writes it or in wire notation',
  });
  const legalList = h('datalist', { id: 'legal-moves' });
  const moveForm = h(
    'form',
    { class: 'move-form' },
    moveInput,
    legalList,
    h('button', { type: 'submit' }, 'Play'),
  );
  const flip = h('button', { type: 'button', id: 'flip', title: 'Flip the board' }, '⇅ Flip');
  const soundToggle = h('button', { type: 'button', id: 'sound-toggle' });
  const backToGame = h('button', { type: 'button', id: 'back-to-game', class: 'primary', hidden: true }, 'Back to the game ⇥');
  const announce = announcer();
  const attention = new Attention();
  // The positions of the plies played, to look back at during the game (browse.ts).
  const history = new MoveHistory();
  preloadSounds();
  const chat = new ChatPanel((msg) => act(msg));
  // Nothing to play or flip until the server has described the game.
  moveForm.hidden = flip.hidden = true;
  const spectators = new SpectatorsPanel();
  fill(
    root,
    h(
      'section',
      { class: 'game-page' },
      h('div', { class: 'board-column' }, topBar, boardSlot, bottomBar),
      h(
        'aside',
        { class: 'side-column' },
        title,
        mode,
        status,
        ratingLine,
        message,
        seatLostBox,
        controls,
        moveForm,
        h('div', { class: 'moves-box' }, moves),
        backToGame,
        h('div', { class: 'row' }, flip, soundToggle),
        announce.element,
        extra,
        chat.element,
      ),
    ),
  );

  const say = (text: string, kind: 'info' | 'error' = 'info') => {
    message.textContent = text;
    message.className = `message ${kind}`;
  };

  const act = (msg: Message) => app.conn.send({ ...msg, game: gameId, id: `g${++requestCounter}-${msg.type}` });

  // When the `moved` or `state` that gave this seat the turn at `ply` arrived (performance.now()):
  // a move reports its think time from there (protocol.md, Lag compensation), so that the server
  // can tell the network's share of the move's time from the player's. A state for a turn already
  // held (a resume) keeps the first arrival: the turn was given then.
  let turnGiven: { ply: number; at: number } | null = null;
  // A turn that ends is forgotten, so that a takeback back to its ply starts anew.
  function noteTurn(): void {
    if (!model || !myTurn()) turnGiven = null;
    else if (turnGiven?.ply !== model.ply) turnGiven = { ply: model.ply, at: performance.now() };
  }

  /** The think time to report for a move played now, or undefined when the turn's start is unknown. */
  function thinkMs(): number | undefined {
    if (!model || turnGiven?.ply !== model.ply) return undefined;
    return Math.max(0, Math.round(performance.now() - turnGiven.at));
  }

  // `think` is measured when the player plays the move: a held move, sent later, reports the
  // time the player took, not the time the connection was down.
  function sendMove(move: string, think: number | undefined = thinkMs()): void {
    if (!model) return;
    say('');
    if (app.conn.isOpen() && awaiting === null) {
      const request: Message = { type: 'move', game: gameId, move, ply: model.ply, id: `g${++requestCounter}-move` };
      if (think !== undefined) request.think_ms = think;
      app.conn.send(request);
    } else {
      heldMove = { move, ply: model.ply, think };
    }
    // Until the server answers, nothing else may be dragged; the dropped piece stays put.
    board?.lock();
  }

  // A move played while the page has no answer to its resume / watch (the socket is closed, or
  // reopened and not answered yet) waits here until the answer comes. Sent right behind the
  // resume, it would be refused as forbidden whenever that resume fails for a passing reason
  // (busy, rate limited) and is asked again later.
  let heldMove: { move: string; ply: number; think: number | undefined } | null = null;

  /** Sends the held move once the page has the game again and it is still this seat's turn. */
  function releaseHeldMove(): void {
    if (!heldMove || !model || awaiting !== null || !app.conn.isOpen()) return;
    const held = heldMove;
    heldMove = null;
    if (myTurn() && model.ply === held.ply) {
      sendMove(held.move, held.think);
      return;
    }
    say(`${held.move} was not sent: the game changed while the connection was down.`, 'error');
    render();
  }

  moveForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = moveInput.value.trim();
    if (!model || !text) return;
    // Display notation (SAN, WXF, PDN) goes as typed: the server reads it, or says why not.
    if (!myTurn()) say('It is not your move.', 'error');
    else {
      moveInput.value = '';
      sendMove(text);
    }
  });
  flip.addEventListener('click', () => {
    flipped = !flipped;
    render();
  });
  const showSoundToggle = () => {
    const muted = soundMuted();
    soundToggle.textContent = muted ? '🔇 Sound off' : '🔊 Sound on';
    soundToggle.setAttribute('aria-pressed', String(!muted));
  };
  showSoundToggle();
  soundToggle.addEventListener('click', () => {
    setSoundMuted(!soundMuted());
    showSoundToggle();
  });
  backToGame.addEventListener('click', () => browseTo(Infinity));

  /** Shows the position after `ply` plies; the last ply is the game itself. */
  function browseTo(ply: number): void {
    if (!model) return;
    history.show(ply, model.ply);
    const shown = history.current(model.ply);
    if (shown < model.ply && !history.at(shown)) void fetchHistory();
    render();
  }

  // The plies the page did not see played (it opened during the game) come from the record.
  let fetchingHistory = false;
  async function fetchHistory(): Promise<void> {
    if (fetchingHistory) return;
    fetchingHistory = true;
    const reply = await app.conn.request({ type: 'replay', game: gameId });
    fetchingHistory = false;
    if (reply.type !== 'record' || reply.game !== gameId || !Array.isArray(reply.moves)) return;
    history.learn(0, { position: reply.initial_position, check: !!reply.initial_check });
    for (const move of reply.moves) {
      if (typeof move?.ply === 'number' && typeof move.position === 'string' && !history.at(move.ply)) {
        history.learn(move.ply, { position: move.position, check: !!move.check });
      }
    }
    render();
  }

  const onKey = (event: KeyboardEvent) => {
    const target = event.target as HTMLElement | null;
    if (!model || target?.closest?.('input, textarea, select, .board, .picker')) return;
    const ply = browseStep(event.key, history.current(model.ply), model.ply);
    if (ply === null) return;
    event.preventDefault();
    browseTo(ply);
  };
  document.addEventListener('keydown', onKey);
  takeBack.addEventListener('click', () => {
    // resume with the stored token: the seat comes back here (and the other window is told).
    seatLost = false;
    seatLostBox.hidden = true;
    say('');
    subscribe();
    render();
  });

  /** The seat this page acts for: none while it is taken over elsewhere. */
  const playing = () => (seatLost ? null : seat);
  const myTurn = () => !!model && !!playing() && model.status === 'playing' && model.turn === seat;

  function orientation() {
    const base = variant && seat ? colorOf(variant, seat) : 'white';
    return flipped ? (base === 'white' ? 'black' : 'white') : base;
  }

  /** The ply on the board: the game's last, or the one looked back at (when the page knows it). */
  function shownPly(): number {
    const shown = history.current(model!.ply);
    return history.at(shown) ? shown : model!.ply;
  }

  function boardView() {
    const m = model!;
    const v = variant!;
    const shown = shownPly();
    const past = shown < m.ply ? history.at(shown) : undefined;
    if (past) {
      return {
        position: past.position,
        orientation: orientation() as 'white' | 'black',
        legal: [],
        movable: 'none' as const,
        turn: v.firstToMove(past.position) ? ('white' as const) : ('black' as const),
        lastMove: shown ? m.moves[shown - 1] : null,
        check: past.check,
      };
    }
    // The player's pieces stay movable during the opponent's turn: a move made then is a premove.
    const premoving = !!playing() && m.status === 'playing';
    return {
      position: m.position,
      orientation: orientation() as 'white' | 'black',
      legal: myTurn() ? m.legal : [],
      movable: myTurn() || premoving ? colorOf(v, seat!) : ('none' as const),
      turn: colorOf(v, m.turn),
      lastMove: m.moves.length ? m.moves[m.moves.length - 1] : null,
      check: m.check,
      routes: myTurn() ? m.routes : [],
      lastRoute: m.lastRoute,
    };
  }

  function playerBar(bar: HTMLElement, who: string): void {
    const m = model!;
    const player = m.players[who];
    const change = m.ratings?.[who];
    const ms = remainingMs(m, who);
    const ticking = !!m.clock?.running && m.status === 'playing' && m.turn === who;
    fill(
      bar,
      h('span', { class: `seat-dot ${who}`, 'aria-hidden': 'true' }),
      h(
        'span',
        { class: 'player-name' },
        player ? playerNode(player) : `(open seat)`,
        change ? ' ' : null,
        change ? diffNode(change) : null,
        h('small', {}, ` ${seatTitle(who)}${who === seat ? ' · you' : ''}`),
      ),
      player && !player.connected
        ? h('span', { class: 'offline', title: 'disconnected' }, 'offline')
        : null,
      ms === null
        ? null
        : h(
            'span',
            {
              class: `clock${ticking ? ' running' : ''}${ms < 20000 ? ' low' : ''}`,
              'data-seat': who,
              'aria-label': `${seatTitle(who)} clock`,
            },
            formatClock(ms),
          ),
    );
    bar.dataset.seat = who;
  }

  function statusText(): string {
    const m = model!;
    // What this page last heard; the game goes on in the window that took the seat.
    if (seatLost && (m.status === 'playing' || m.status === 'waiting')) return 'Playing in another window.';
    if (m.status === 'waiting') return 'Waiting for an opponent.';
    if (m.status === 'ended' || m.status === 'aborted') return describeResult(variant!, m.result, m.reason, m.status);
    const mover = seatTitle(m.turn);
    const check = m.check && m.variant !== 'draughts' ? ' — check!' : '';
    // An engine's turn runs for up to its think time: say so, rather than a silent board.
    const engine = m.players[m.turn];
    if (engine?.engine) return `${engine.name} is thinking…${check}`;
    if (!playing()) return `${mover} to move${check}`;
    return (m.turn === seat ? 'Your move' : `${mover} to move`) + check;
  }

  function render(): void {
    if (!model || !variant) return;
    const m = model;
    fillHeading(title, variant, m.players);
    flip.hidden = false;
    const range = formatRange(m.rating_range);
    mode.textContent = m.rated ? `Rated${range ? ` · ${range}` : ''}` : 'Casual';
    mode.dataset.rated = String(m.rated);
    status.textContent = statusText();
    renderRatingChanges();
    root.querySelector('.game-page')!.setAttribute('data-status', m.status);
    const bottom = orientation() === 'white' ? variant.seats[0] : variant.seats[1];
    const top = bottom === variant.seats[0] ? variant.seats[1] : variant.seats[0];
    playerBar(topBar, top);
    playerBar(bottomBar, bottom);
    board!.set(boardView());
    const shown = shownPly();
    if (myTurn() && shown === m.ply && board!.playPremove() === 'dropped') {
      say('The premove was dropped: it is not a legal move now.');
    }
    backToGame.hidden = shown === m.ply;
    renderMoves(moves, m.notation, variant.firstToMove(m.initial_position), shown, browseTo);
    appendResult(moves, variant, m.result, m.reason, m.status);
    fill(legalList, ...(myTurn() ? m.legal.map((move) => h('option', { value: move })) : []));
    moveForm.hidden = !playing() || m.status !== 'playing';
    renderControls(controls, { app, model: m, variant, seat: playing(), act, say, rerender: render });
    renderExtra();
    chat.update(playing(), m.status);
  }

  /** Each player's rating change at the end of a rated game: "White Alice 1500 → 1512 (+12)". */
  function renderRatingChanges(): void {
    const m = model!;
    const changes = m.ratings;
    ratingLine.hidden = !changes;
    if (!changes) {
      fill(ratingLine);
      return;
    }
    const parts: (HTMLElement | string)[] = [];
    for (const who of variant!.seats) {
      const change = changes[who];
      if (!change) continue;
      if (parts.length) parts.push(' · ');
      parts.push(
        h(
          'span',
          { class: 'rating-change', 'data-seat': who },
          `${seatTitle(who)}${who === seat ? ' (you)' : ''}: ${Math.round(change.before)} → ${Math.round(change.after)}${change.provisional ? '?' : ''} `,
          diffNode(change),
        ),
      );
    }
    fill(ratingLine, 'Ratings: ', ...parts);
  }

  // A rated game that had ended before this page opened: its state need not carry the changes,
  // the record does (protocol.md, record). Asked once per page.
  let askedForChanges = false;
  async function fetchRatingChanges(): Promise<void> {
    if (askedForChanges || !model || !model.rated || model.ratings || model.status !== 'ended') return;
    askedForChanges = true;
    const reply = await app.conn.request({ type: 'replay', game: gameId });
    if (reply.type !== 'record' || reply.game !== gameId || !model || model.ratings) return;
    model.ratings = ratingChanges(reply.ratings);
    if (model.ratings) render();
  }

  function renderExtra(): void {
    const m = model!;
    const link = `${location.origin}${location.pathname}#/game/${m.game}`;
    const parts: HTMLElement[] = [];
    if (m.status === 'waiting') {
      const copy = h('button', { type: 'button', id: 'copy-invite' }, 'Copy');
      copy.addEventListener('click', () => {
        navigator.clipboard?.writeText(link).then(
          () => say('Invite link copied.'),
          () => say('Copy the link by hand.'),
        );
      });
      parts.push(h('p', { class: 'invite' }, 'Invite link: ', h('a', { href: link, id: 'invite-link' }, link), ' ', copy));
      const open = variant!.seats.find((s) => !m.players[s]);
      if (!seat && open) {
        const join = h('button', { type: 'button', id: 'join', class: 'primary' }, `Join as ${seatTitle(open)}`);
        // The page keeps watching until the seat is granted (then it unwatches): a join that
        // loses the race for the seat must not leave it deaf to the game.
        join.addEventListener('click', () => {
          app.conn.send({ type: 'join', game: gameId, id: `g${++requestCounter}-join` });
        });
        parts.push(join);
      }
    }
    spectators.update(m.spectators);
    parts.push(spectators.element);
    if (m.rematch) {
      parts.push(h('p', {}, h('a', { href: `#/game/${m.rematch}`, id: 'rematch-link' }, 'Go to the rematch')));
    }
    if (m.status === 'ended' || m.status === 'aborted') {
      parts.push(
        h(
          'p',
          {},
          h('a', { href: `#/replay/${m.game}` }, 'Replay this game'),
          ' · ',
          exportLink(m.game, m.variant),
        ),
      );
    }
    fill(extra, ...parts);
  }

  // The id of the last resume / watch until its answer arrives: a state, or the first missed
  // event (both echo the id). Game events wait meanwhile, as they may lie past a gap that the
  // answer fills (protocol.md, "Events, seq and since").
  let awaiting: string | null = null;
  let retryTimer = 0;
  let retryDelay = FIRST_RETRY_MS;
  let retrying = false;

  /** Resume (player) or watch (spectator), with `since` once the page has a game. */
  function subscribe(): void {
    window.clearTimeout(retryTimer);
    if (seatLost) return; // until the player takes the seat back
    const grant = loadSeat(gameId);
    const since = model ? model.seq : undefined;
    awaiting = `g${++requestCounter}-${grant ? 'resume' : 'watch'}`;
    if (grant) app.conn.send({ type: 'resume', game: gameId, token: grant.token, since, id: awaiting });
    else app.conn.send({ type: 'watch', game: gameId, since, id: awaiting });
  }

  /** Asks again later, less often each time; a socket that closed meanwhile asks on reopening. */
  function retrySoon(): void {
    retrying = true;
    window.clearTimeout(retryTimer);
    retryTimer = window.setTimeout(() => app.conn.isOpen() && subscribe(), retryDelay * (1 + Math.random()));
    retryDelay = Math.min(retryDelay * 2, LAST_RETRY_MS);
  }

  function onMessage(msg: Message): void {
    const before = model ? { status: model.status, position: model.position, turn: model.turn } : null;
    if (msg.type === 'error') {
      const id: string = msg.id ?? '';
      if (!id.startsWith('g')) return;
      const resuming = id.endsWith('-resume');
      const opening = resuming || id.endsWith('-watch');
      if (resuming && (msg.code === 'forbidden' || msg.code === 'unknown_game')) {
        // The token holds no seat here (taken over elsewhere, a wiped database): watch.
        forgetSeat(gameId);
        seat = null;
        subscribe();
        return;
      }
      if (opening && !FINAL_ERRORS.has(msg.code)) {
        // Busy, rate limited, or a server bug (`internal`): the request changed nothing
        // (protocol.md, errors) and the seat is still ours; ask again.
        say(`${msg.message || msg.code} (trying again…)`, 'error');
        retrySoon();
        return;
      }
      if (opening && id === awaiting) awaiting = null;
      if (msg.code === 'unknown_game') {
        if (!model) showNoSuchGame(root, gameId);
        else say(`There is no game “${gameId}” on this server.`, 'error');
        return;
      }
      say(msg.message || msg.code, 'error');
      if (id.endsWith('-move') && model) render(); // the dragged piece goes back
      return;
    }
    if ((msg.type === 'created' || msg.type === 'joined') && msg.game) {
      saveSeat(msg.game, { seat: msg.seat, token: msg.token });
      if (msg.game === gameId) {
        // Seated: the watch that kept the page informed while it joined is no longer needed.
        if (msg.type === 'joined' && !seat) app.conn.send({ type: 'unwatch', game: gameId });
        seat = msg.seat;
        say(`You play ${seatTitle(msg.seat)}.`);
      } else if (msg.game === pendingRematch || msg.game === model?.rematch) {
        markJustSeated(msg.game);
        app.navigate(`#/game/${msg.game}`);
      }
      return;
    }
    if (msg.game !== gameId || msg.type === 'record') return;
    if (msg.type === 'seat_lost') {
      if (seat && msg.seat === seat) showSeatLost();
      return;
    }
    if (msg.type === 'state' && !validState(msg)) {
      // A state the page cannot draw from is not taken in; if it answered the resume / watch,
      // that is asked again.
      if (awaiting !== null && msg.id === awaiting) retrySoon();
      return;
    }
    if (awaiting !== null && msg.id === awaiting) {
      awaiting = null;
      retryDelay = FIRST_RETRY_MS;
      if (retrying) {
        retrying = false;
        say('');
      }
    }
    if (msg.type === 'state') {
      if (model && msg.seq < model.seq) return;
      const next = fromState(msg);
      if (seat && next.you === 'spectator') next.you = seat; // a late spectator copy
      if (next.you !== 'spectator') seat = next.you;
      // The state says when a claim opens; a presence event seen before may say it for a state
      // from an older server that does not.
      if (model) {
        for (const [who, at] of Object.entries(model.claimAt)) {
          if (!(who in next.claimAt) && next.players[who] && !next.players[who].connected) next.claimAt[who] = at;
        }
      }
      model = next;
      chat.load(msg.chat, playing(), model.status);
      noteTurn();
      history.truncate(model.ply);
      history.learn(0, history.at(0) ?? { position: model.initial_position, check: false });
      history.learn(model.ply, { position: model.position, check: model.check });
      // The page's first state is silent (a game opened or reloaded as it stands), but for a game
      // this tab was just seated in that is under way already (joined from the lobby, against
      // the computer, a rematch): its start is heard here.
      const seatedNow = !before && takeJustSeated(gameId);
      const sound = before ? statusSound(before.status, model.status) : seatedNow && model.status === 'playing' ? 'start' : null;
      if (sound) playSound(sound);
      if (!variant) {
        variant = variantOf(model.variant);
        board = new Board(variant, sendMove);
        fill(boardSlot, board.element);
        boardSlot.parentElement!.classList.add(variant.name);
      }
      render();
      releaseHeldMove();
      void fetchRatingChanges();
      return;
    }
    if (msg.type === 'spectators') {
      if (model) {
        model.spectators = msg.count;
        spectators.update(msg.count, msg.watchers);
      }
      return;
    }
    if (msg.type === 'chat_muted') {
      chat.setMuted(msg.mute === true);
      return;
    }
    if (!model || awaiting !== null) return;
    const plyBefore = model.ply;
    const outcome = applyEvent(model, msg);
    // A gap, or an event too malformed to apply: ask for what was missed, since the last seq applied.
    if (outcome === 'gap' || outcome === 'invalid') subscribe();
    if (outcome !== 'applied') return;
    noteTurn();
    afterEvent(msg, before!);
    if (msg.type === 'ended') {
      const mine = seat ? model.ratings?.[seat] : undefined;
      // The status line says the result already: the message adds only the rating.
      say(mine ? `Your rating: ${Math.round(mine.after)}${mine.provisional ? '?' : ''} (${formatDiff(mine.diff)})` : '');
    }
    if (msg.type === 'chat') chat.add(msg);
    if (msg.type === 'offer') describeOffer(msg);
    if (msg.type === 'takeback') say(takebackText(plyBefore - model.ply));
    if (msg.type === 'presence' && msg.seat !== seat) {
      say(`${seatTitle(msg.seat)} ${msg.connected ? 'is back' : 'disconnected'}.`);
    }
    if (msg.type === 'rematch' && seat) {
      pendingRematch = msg.next;
      if (loadSeat(msg.next)) {
        markJustSeated(msg.next);
        app.navigate(`#/game/${msg.next}`);
      }
    }
    if (msg.type === 'rematch' && !seat) say('The players start a rematch: follow it with the link below.');
    render();
    releaseHeldMove();
  }

  /** Sounds, the move's announcement, the tab title and the known plies, after an applied event. */
  function afterEvent(msg: Message, before: { status: string; position: string; turn: string }): void {
    const m = model!;
    const v = variant!;
    if (msg.type === 'moved') {
      history.learn(msg.ply, { position: msg.position, check: !!msg.check });
      playSound(moveSound(v.boardFen(before.position), v.boardFen(msg.position), !!msg.check && v.name !== 'draughts'));
      const notation = m.notation[msg.ply - 1] ?? msg.move;
      announce.say(moveAnnouncement(before.turn, notation));
      if (myTurn()) attention.yourTurn(notation);
      else attention.clear();
    } else if (msg.type === 'takeback') {
      history.truncate(msg.ply);
      history.learn(msg.ply, { position: msg.position, check: !!msg.check });
    }
    const sound = statusSound(before.status, m.status);
    if (sound) playSound(sound);
  }

  // The player's clock sounds once as it runs below the low-time line.
  let lastClockMs: number | null = null;
  function warnLowTime(): void {
    const mine = playing();
    const initial = model?.time_control?.initial_ms;
    const ms = mine && model ? remainingMs(model, mine) : null;
    if (ms === null || !initial || model!.status !== 'playing') {
      lastClockMs = null;
      return;
    }
    if (lastClockMs !== null && crossedLowTime(lastClockMs, ms, lowTimeThreshold(initial))) playSound('lowtime');
    lastClockMs = ms;
  }

  /** The seat was resumed on another connection (protocol.md, seat_lost): say so, offer it back. */
  function showSeatLost(): void {
    seatLost = true;
    awaiting = null;
    retrying = false;
    window.clearTimeout(retryTimer);
    if (heldMove) say(`${heldMove.move} was not sent: the game is played elsewhere now.`, 'error');
    else say('');
    heldMove = null;
    seatLostText.textContent =
      `This game was opened in another window or on another device, which plays ${seatTitle(seat!)} now. ` +
      'This page no longer follows the game or takes moves.';
    seatLostBox.hidden = false;
    render();
  }

  function describeOffer(msg: Message): void {
    const who = msg.by === seat ? 'You' : seatTitle(msg.by);
    const what = msg.kind === 'takeback' ? 'a takeback' : msg.kind === 'rematch' ? 'a rematch' : 'a draw';
    const verbs: Record<string, string> = { offer: 'offer', accept: 'accepted', decline: 'declined' };
    const verb = msg.action === 'offer' ? (who === 'You' ? 'offer' : 'offers') : verbs[msg.action] ?? msg.action;
    say(`${who} ${verb} ${what}.`);
  }

  const offMessage = app.conn.on(onMessage);
  const offOpen = app.conn.onOpen(subscribe);
  const timer = window.setInterval(() => {
    if (!model || !variant || !model.clock) return;
    warnLowTime();
    for (const bar of [topBar, bottomBar]) {
      const who = bar.dataset.seat!;
      const clock = bar.querySelector('.clock');
      const ms = remainingMs(model, who);
      if (clock && ms !== null) {
        clock.textContent = formatClock(ms);
        clock.classList.toggle('low', ms < 20000);
      }
    }
  }, 100);
  const claimTimer = window.setInterval(() => {
    if (model && Object.keys(model.claimAt).length) renderControls(controls, { app, model, variant: variant!, seat: playing(), act, say, rerender: render });
  }, 1000);

  return () => {
    offMessage();
    offOpen();
    window.clearTimeout(retryTimer);
    clearInterval(timer);
    clearInterval(claimTimer);
    document.removeEventListener('keydown', onKey);
    attention.destroy();
    if (!seat) app.conn.send({ type: 'unwatch', game: gameId });
    board?.destroy();
  };
}
