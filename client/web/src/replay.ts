// Replay a stored game (#/replay/<id>): first / previous / next / last, a slider, the arrow keys
// (Left / Right a move, Up / Down the start / the end), and a click on any move. Positions (and which were check) come from the server's record; nothing
// is recomputed.
import { AnalysisPanel } from './analysis';
import { Board } from './board';
import { fill, formatClock, h } from './dom';
import type { App } from './main';
import { renderMoves } from './movelist';
import type { Message } from './net';
import { chatLog } from './chat';
import { diffNode, playerNode } from './players';
import { formatRange, ratingChanges } from './ratings';
import { colorOf, describeResult, seatTitle, variantOf } from './variants';
import { clocksAt, replayKeyTarget } from './gamefacts';
import { appendResult, exportLink, fillHeading, showNoSuchGame } from './viewparts';

export function replayView(app: App, root: HTMLElement, gameId: string): () => void {
  const title = h('h2', { class: 'game-title' }, 'Loading replay…');
  const info = h('p', { class: 'status', id: 'status' });
  const boardSlot = h('div', { class: 'board-slot' });
  const moves = h('ol', { class: 'moves', id: 'moves', 'aria-label': 'Moves' });
  const slider = h('input', { type: 'range', id: 'replay-slider', min: '0', max: '0', value: '0', 'aria-label': 'Move' });
  const counter = h('span', { id: 'replay-ply' });
  // Each side's time left at the ply shown (timed games).
  const clockLine = h('p', { class: 'replay-clocks', id: 'replay-clocks', hidden: true });
  const exportSlot = h('p', {});
  const buttons = {
    first: h('button', { type: 'button', id: 'replay-first', 'aria-label': 'First' }, '⇤'),
    prev: h('button', { type: 'button', id: 'replay-prev', 'aria-label': 'Previous' }, '◀'),
    next: h('button', { type: 'button', id: 'replay-next', 'aria-label': 'Next' }, '▶'),
    last: h('button', { type: 'button', id: 'replay-last', 'aria-label': 'Last' }, '⇥'),
  };
  const flip = h('button', { type: 'button', id: 'flip' }, '⇅ Flip');
  const chatSlot = h('div', { class: 'chat-slot' });
  fill(
    root,
    h(
      'section',
      { class: 'game-page replay-page' },
      h('div', { class: 'board-column' }, boardSlot, h('div', { class: 'replay-bar' }, buttons.first, buttons.prev, slider, buttons.next, buttons.last, counter), clockLine),
      h('aside', { class: 'side-column' }, title, info, h('div', { class: 'moves-box' }, moves), h('div', { class: 'row' }, flip), exportSlot, chatSlot),
    ),
  );

  let record: Message | null = null;
  let board: Board | null = null;
  let analysis: AnalysisPanel | null = null;
  let ply = 0;

  function show(target: number): void {
    if (!record || !board) return;
    const v = variantOf(record.variant);
    ply = Math.max(0, Math.min(record.moves.length, target));
    const position = ply === 0 ? record.initial_position : record.moves[ply - 1].position;
    const firstMoves = v.firstToMove(position);
    board.set({
      position,
      orientation: board.orientation(),
      legal: [],
      movable: 'none',
      turn: firstMoves ? 'white' : 'black',
      lastMove: ply ? record.moves[ply - 1].move : null,
      // The server says which positions were check: xiangqi's "+" is a direction, not a check.
      check: ply ? !!record.moves[ply - 1].check : !!record.initial_check,
    });
    slider.value = String(ply);
    counter.textContent = `${ply} / ${record.moves.length}`;
    renderMoves(moves, record.moves.map((m: Message) => m.notation ?? m.move), v.firstToMove(record.initial_position), ply, show);
    showClocks(v.seats);
    appendResult(moves, v, record.result, record.reason, record.status);
    analysis?.decorateMoves(moves);
    analysis?.show(ply, position);
  }

  /** The mover's time left under each move, and both sides' at the ply shown. */
  function showClocks(seats: [string, string]): void {
    const firstMovesFirst = variantOf(record!.variant).firstToMove(record!.initial_position);
    record!.moves.forEach((move: Message, index: number) => {
      const cell = moves.querySelector(`.move[data-ply="${index + 1}"]`);
      if (cell && typeof move.clock_ms === 'number') cell.append(h('span', { class: 'clock-time' }, formatClock(move.clock_ms)));
    });
    const initial = typeof record!.time_control?.initial_ms === 'number' ? record!.time_control.initial_ms : null;
    const clocks = clocksAt(record!.moves, ply, seats, firstMovesFirst, initial);
    clockLine.hidden = !clocks;
    if (clocks) clockLine.textContent = seats.map((s) => `${seatTitle(s)} ${formatClock(clocks[s])}`).join(' · ');
  }

  buttons.first.addEventListener('click', () => show(0));
  buttons.prev.addEventListener('click', () => show(ply - 1));
  buttons.next.addEventListener('click', () => show(ply + 1));
  buttons.last.addEventListener('click', () => show(Infinity));
  slider.addEventListener('input', () => show(Number(slider.value)));
  flip.addEventListener('click', () => {
    board?.flip();
    show(ply);
  });
  const onKey = (event: KeyboardEvent) => {
    if (event.target instanceof HTMLInputElement && event.target.type !== 'range') return;
    const target = record ? replayKeyTarget(event.key, ply, record.moves.length) : null;
    if (target !== null) {
      event.preventDefault();
      show(target);
    }
  };
  document.addEventListener('keydown', onKey);

  const offOpen = app.conn.onOpen(async () => {
    const reply = await app.conn.request({ type: 'replay', game: gameId });
    if (reply.type === 'error') {
      if (reply.code === 'disconnected') return;
      if (reply.code === 'unknown_game') {
        showNoSuchGame(root, gameId);
        return;
      }
      title.textContent = 'No replay';
      info.textContent = reply.message || reply.code;
      return;
    }
    if (reply.type !== 'record') return;
    const firstLoad = !record;
    record = reply;
    const v = variantOf(reply.variant);
    fillHeading(title, v, reply.players);
    fill(exportSlot, exportLink(reply.game, reply.variant));
    const outcome = reply.result || reply.status === 'aborted' ? describeResult(v, reply.result, reply.reason, reply.status) : 'In progress';
    const changes = ratingChanges(reply.ratings);
    const parts: (Node | string)[] = [];
    v.seats.forEach((s, index) => {
      if (index) parts.push(' · ');
      const change = changes?.[s];
      parts.push(`${seatTitle(s)}: `, playerNode(reply.players?.[s]), ...(change ? [' ', diffNode(change)] : []));
    });
    const range = formatRange(reply.rating_range);
    const mode = typeof reply.rated === 'boolean' ? ` (${reply.rated ? `rated${range ? ` ${range}` : ''}` : 'casual'})` : '';
    fill(info, ...parts, ` — ${outcome}${mode}`);
    slider.max = String(reply.moves.length);
    fill(chatSlot, chatLog(reply.chat));
    if (!board) {
      board = new Board(v, () => undefined);
      fill(boardSlot, board.element);
      boardSlot.parentElement!.classList.add(v.name);
      board.set({ position: reply.initial_position, orientation: colorOf(v, v.seats[0]), legal: [], movable: 'none', turn: 'white', lastMove: null, check: false });
      analysis = new AnalysisPanel(app, gameId, v, board, show);
      boardSlot.append(analysis.bar);
      root.querySelector('.side-column')!.append(analysis.element);
    }
    show(firstLoad ? reply.moves.length : ply);
  });

  return () => {
    offOpen();
    document.removeEventListener('keydown', onKey);
    analysis?.destroy();
    board?.destroy();
  };
}
