// The analysis board (issue 42): from any replayed position, try other moves and ask the engine.
// The page holds no rules: each position's legal moves, side to move and status come from
// GET /api/explore, and the engine's view from GET /api/explore/eval (protocol.md, "Explore").
import { api } from './api';
import { Board } from './board';
import { fill, h } from './dom';
import { formatEval, type Eval } from './evalgraph';
import { colorOf, describeResult, type Color, type Variant } from './variants';

/** GET /api/explore's answer. */
export interface ExploreAnswer {
  variant: string;
  position: string;
  turn: string;
  legal: string[];
  status: { over: boolean; result: string | null; reason: string | null };
  played?: { move: string; notation: string };
}

/** GET /api/explore/eval's answer. */
export interface EngineAnswer {
  eval: Eval;
  best: string | null;
  pv: string[];
  engine: string;
}

/** The query of an explore request. */
export function explorePath(variant: string, position: string, move?: string): string {
  const query = new URLSearchParams({ variant, position });
  if (move !== undefined) query.set('move', move);
  return `/api/explore?${query}`;
}

export class ExploreBoard {
  readonly element: HTMLElement;
  private board: Board;
  /** The positions of the line tried, the replayed one first. */
  private line: ExploreAnswer[] = [];
  private orientation: Color = 'white';
  private readonly moves = h('p', { class: 'explore-line', id: 'explore-line' });
  private readonly message = h('p', { class: 'status', id: 'explore-message', role: 'status' });
  private readonly engine = h('p', { class: 'explore-engine', id: 'explore-engine' });
  private busy = false;

  constructor(private variant: Variant) {
    this.board = new Board(variant, (move) => void this.play(move));
    const back = h('button', { type: 'button', id: 'explore-back' }, '◀ Back');
    const ask = h('button', { type: 'button', id: 'explore-engine-ask' }, 'Ask the engine');
    const close = h('button', { type: 'button', id: 'explore-close' }, 'Close');
    back.addEventListener('click', () => this.back());
    ask.addEventListener('click', () => void this.askEngine());
    close.addEventListener('click', () => this.element.setAttribute('hidden', ''));
    this.element = h(
      'section',
      { class: `explore ${variant.name}`, id: 'explore', hidden: true, 'aria-label': 'Analysis board' },
      h('h3', {}, 'Analysis board'),
      h('div', { class: 'board-slot' }, this.board.element),
      h('div', { class: 'row' }, back, ask, close),
      this.moves,
      this.engine,
      this.message,
    );
  }

  /** Opens the board on `position` (a replayed one), seen from `orientation`. */
  async open(position: string, orientation: Color): Promise<void> {
    this.element.removeAttribute('hidden');
    this.orientation = orientation;
    this.line = [];
    this.say('');
    const answer = await api<ExploreAnswer>('GET', explorePath(this.variant.name, position));
    if (!answer.ok) return this.say(`This position cannot be explored: ${answer.message}`);
    this.line = [answer.body];
    this.render();
  }

  private async play(move: string): Promise<void> {
    const here = this.line[this.line.length - 1];
    if (!here || this.busy) return;
    this.busy = true;
    this.board.lock();
    const answer = await api<ExploreAnswer>('GET', explorePath(this.variant.name, here.position, move));
    this.busy = false;
    if (!answer.ok) {
      this.say(answer.message);
    } else {
      this.line.push(answer.body);
      this.say('');
    }
    this.render();
  }

  private back(): void {
    if (this.line.length > 1) this.line.pop();
    this.say('');
    this.render();
  }

  private async askEngine(): Promise<void> {
    const here = this.line[this.line.length - 1];
    if (!here) return;
    this.engine.textContent = 'Thinking…';
    const query = new URLSearchParams({ variant: this.variant.name, position: here.position });
    const answer = await api<EngineAnswer>('GET', `/api/explore/eval?${query}`);
    if (this.line[this.line.length - 1] !== here) return; // moved on meanwhile
    if (!answer.ok) {
      this.engine.textContent =
        answer.status === 404 ? 'This server cannot evaluate positions yet.' : `The engine could not answer: ${answer.message}`;
      return;
    }
    const { eval: evaluation, best, pv, engine } = answer.body;
    this.engine.textContent = `${engine}: ${formatEval(evaluation)}${best ? ` · best ${best}` : ''}${pv.length ? ` · ${pv.join(' ')}` : ''}`;
    this.board.arrows(best ? [best] : []);
  }

  private render(): void {
    const here = this.line[this.line.length - 1];
    if (!here) return;
    const turn = colorOf(this.variant, here.turn);
    this.board.set({
      position: here.position,
      orientation: this.orientation,
      legal: here.legal,
      movable: here.status.over ? 'none' : turn,
      turn,
      lastMove: here.played?.move ?? null,
      check: false,
    });
    this.board.arrows([]);
    this.engine.textContent = '';
    fill(this.moves, ...this.line.slice(1).map((step) => h('span', { class: 'move' }, step.played?.notation ?? '')));
    this.element.dataset.ply = String(this.line.length - 1);
    if (here.status.over) this.say(describeResult(this.variant, here.status.result, here.status.reason, 'ended'));
  }

  private say(text: string): void {
    this.message.textContent = text;
  }

  destroy(): void {
    this.board.destroy();
  }
}
