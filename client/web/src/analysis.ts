// Engine analysis in replay (issue 42; protocol.md, "Analysis"): the "Request analysis" button,
// its progress (the `analysis` WebSocket message, and polling GET while it runs), the evaluation
// graph over the whole game, the evaluation bar beside the board, the best move as an arrow on
// the board, the marks in the move list and each side's accuracy. replay.ts calls show() for each
// position it shows; everything computed lives in evalgraph.ts.
import { api } from './api';
import type { Board } from './board';
import { fill, h } from './dom';
import {
  formatEval,
  graphGeometry,
  markName,
  plyAt,
  plyEntry,
  progressText,
  winPercent,
  type Analysis,
} from './evalgraph';
import { ExploreBoard } from './explore';
import type { App } from './main';
import type { Message } from './net';
import { colorOf, seatTitle, type Variant } from './variants';

const SVG = 'http://www.w3.org/2000/svg';
const GRAPH = { width: 600, height: 120 };
const POLL_MS = 1500;

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  return element;
}

export class AnalysisPanel {
  /** The side panel's section: button, progress, graph, accuracy, analysis board. */
  readonly element: HTMLElement;
  /** The evaluation bar, placed beside the board by replay.ts. */
  readonly bar: HTMLElement;
  private readonly fillBar = h('div', { class: 'eval-bar-fill' });
  private readonly barLabel = h('span', { class: 'eval-bar-label' });
  private readonly request = h('button', { type: 'button', id: 'analysis-request' }, 'Request analysis');
  private readonly status = h('p', { class: 'status', id: 'analysis-status', role: 'status' });
  private readonly graph = h('div', { class: 'eval-graph', id: 'eval-graph-box' });
  private readonly summary = h('div', { class: 'analysis-summary', id: 'analysis-summary' });
  private readonly best = h('p', { class: 'analysis-best', id: 'analysis-best' });
  private readonly explore: ExploreBoard;
  private analysis: Analysis | null = null;
  private ply = 0;
  private position = '';
  private poll: ReturnType<typeof setTimeout> | null = null;
  private offMessages: () => void;
  private closed = false;

  constructor(
    app: App,
    private gameId: string,
    private variant: Variant,
    private board: Board,
    private jump: (ply: number) => void,
  ) {
    this.bar = h('div', { class: 'eval-bar', id: 'eval-bar', hidden: true, 'aria-label': 'Evaluation' }, this.fillBar, this.barLabel);
    this.explore = new ExploreBoard(variant);
    const exploreButton = h('button', { type: 'button', id: 'explore-open' }, 'Analysis board from here');
    exploreButton.addEventListener('click', () => void this.explore.open(this.position, this.board.orientation()));
    this.request.addEventListener('click', () => void this.start());
    this.element = h(
      'section',
      { class: 'analysis', id: 'analysis', 'aria-label': 'Analysis' },
      h('div', { class: 'row' }, this.request, exploreButton),
      this.status,
      this.graph,
      this.best,
      this.summary,
      this.explore.element,
    );
    this.offMessages = app.conn.on((message: Message) => {
      if (message.type !== 'analysis' || message.game !== gameId) return;
      if (this.analysis && message.status !== 'done' && message.status !== 'failed') {
        this.analysis = { ...this.analysis, status: message.status, done: message.done, total: message.total };
        this.status.textContent = progressText(this.analysis);
      } else {
        void this.load();
      }
    });
    void this.load();
  }

  /** Shows the analysis of `ply` (the position `position` on the replay board). */
  show(ply: number, position: string): void {
    this.ply = ply;
    this.position = position;
    const entry = plyEntry(this.analysis, ply);
    const percent = winPercent(entry?.eval ?? null);
    if (!this.analysis || this.analysis.status !== 'done' || !entry) {
      this.bar.setAttribute('hidden', '');
      this.board.arrows([]);
      this.best.textContent = '';
    } else {
      this.bar.removeAttribute('hidden');
      // The first seat's share grows from its own side of the board.
      const firstAtBottom = this.board.orientation() === colorOf(this.variant, this.variant.seats[0]);
      const shown = percent ?? 50;
      this.fillBar.style.height = `${firstAtBottom ? shown : 100 - shown}%`;
      this.fillBar.classList.toggle('second', !firstAtBottom);
      this.bar.dataset.percent = shown.toFixed(1);
      this.barLabel.textContent = formatEval(entry.eval);
      this.board.arrows(entry.best ? [entry.best] : []);
      this.best.textContent = entry.best ? `Best: ${entry.best}${entry.pv.length > 1 ? ` (${entry.pv.join(' ')})` : ''}` : '';
    }
    this.graph.querySelectorAll('.graph-cursor').forEach((cursor) => {
      const point = this.graph.querySelector(`circle[data-ply="${ply}"]`);
      if (point) {
        cursor.setAttribute('x1', point.getAttribute('cx')!);
        cursor.setAttribute('x2', point.getAttribute('cx')!);
      }
    });
  }

  /** Adds the marks (?!, ?, ??) to the move list that replay.ts rendered. */
  decorateMoves(list: HTMLElement): void {
    if (this.analysis?.status !== 'done') return;
    for (const entry of this.analysis.plies) {
      const name = markName(entry.mark);
      const cell = list.querySelector(`.move[data-ply="${entry.ply}"]`);
      if (!name || !cell || cell.querySelector('.mark')) continue;
      cell.classList.add(`mark-${name}`);
      // Right after the move, before anything else in its cell (the clock time under it).
      cell.insertBefore(h('span', { class: 'mark', title: name }, entry.mark!), cell.querySelector('.clock-time'));
    }
  }

  private async load(): Promise<void> {
    const answer = await api<Analysis>('GET', `/api/games/${this.gameId}/analysis`);
    if (this.closed) return;
    if (!answer.ok) {
      if (answer.status !== 404) this.status.textContent = `Analysis: ${answer.message}`;
      return;
    }
    this.take(answer.body);
  }

  private async start(): Promise<void> {
    this.request.disabled = true;
    this.status.textContent = 'Requesting analysis…';
    const answer = await api<Analysis>('POST', `/api/games/${this.gameId}/analysis`);
    if (this.closed) return;
    if (!answer.ok) {
      this.request.disabled = false;
      this.status.textContent =
        answer.status === 404 ? 'This server cannot analyse games yet.' : `No analysis: ${answer.message}`;
      return;
    }
    this.take(answer.body);
  }

  private take(analysis: Analysis): void {
    this.analysis = analysis;
    this.status.textContent = progressText(analysis);
    this.request.hidden = true;
    if (this.poll) clearTimeout(this.poll);
    this.poll = null;
    if (analysis.status === 'queued' || analysis.status === 'running') {
      this.poll = setTimeout(() => void this.load(), POLL_MS);
    }
    if (analysis.status === 'failed') this.request.hidden = false;
    this.request.disabled = false;
    this.drawGraph();
    this.drawSummary();
    this.jump(this.ply); // redraws the position, the bar, the arrow and the marks
  }

  private drawGraph(): void {
    const analysis = this.analysis;
    const geometry = analysis?.status === 'done' ? graphGeometry(analysis.plies, GRAPH) : null;
    if (!geometry) return fill(this.graph);
    const root = svg('svg', { id: 'eval-graph', viewBox: `-6 -6 ${GRAPH.width + 12} ${GRAPH.height + 12}`, role: 'img', 'aria-label': 'Evaluation graph' });
    root.append(
      svg('rect', { class: 'graph-back', x: 0, y: 0, width: GRAPH.width, height: GRAPH.height }),
      svg('path', { class: 'graph-area', d: geometry.area }),
      svg('line', { class: 'graph-middle', x1: 0, x2: GRAPH.width, y1: geometry.middle, y2: geometry.middle }),
      svg('path', { class: 'graph-line', d: geometry.line }),
      svg('line', { class: 'graph-cursor', x1: 0, x2: 0, y1: 0, y2: GRAPH.height }),
    );
    for (const point of geometry.points) {
      const name = markName(point.mark);
      const dot = svg('circle', { class: `graph-point${name ? ` mark-${name}` : ''}`, cx: point.x, cy: point.y, r: name ? 5 : 3, 'data-ply': point.ply });
      const title = svg('title', {});
      title.textContent = `${point.ply}: ${formatEval(plyEntry(analysis, point.ply)?.eval ?? null)}`;
      dot.append(title);
      dot.addEventListener('click', () => this.jump(point.ply));
      root.append(dot);
    }
    // Anywhere else on the graph: the nearest ply (a long game's dots are small targets).
    root.addEventListener('click', (event) => {
      const ctm = (root as SVGGraphicsElement).getScreenCTM();
      if ((event.target as Element).tagName === 'circle' || !ctm) return;
      this.jump(plyAt(geometry, (event.clientX - ctm.e) / ctm.a));
    });
    fill(this.graph, root);
  }

  private drawSummary(): void {
    const analysis = this.analysis;
    if (analysis?.status !== 'done') return fill(this.summary);
    const rows = this.variant.seats.map((seat) => {
      const accuracy = analysis.accuracy?.[seat];
      const counts = analysis.counts?.[seat];
      return h(
        'tr',
        { 'data-seat': seat },
        h('th', {}, seatTitle(seat)),
        h('td', { class: 'accuracy' }, typeof accuracy === 'number' ? `${Math.round(accuracy)}%` : '–'),
        h('td', {}, String(counts?.inaccuracy ?? 0)),
        h('td', {}, String(counts?.mistake ?? 0)),
        h('td', {}, String(counts?.blunder ?? 0)),
      );
    });
    fill(
      this.summary,
      h(
        'table',
        { class: 'accuracy-table' },
        h('thead', {}, h('tr', {}, h('th', {}, analysis.engine), h('th', {}, 'Accuracy'), h('th', { title: 'inaccuracies' }, '?!'), h('th', { title: 'mistakes' }, '?'), h('th', { title: 'blunders' }, '??'))),
        h('tbody', {}, ...rows),
      ),
    );
  }

  destroy(): void {
    this.closed = true;
    if (this.poll) clearTimeout(this.poll);
    this.offMessages();
    this.explore.destroy();
  }
}
