// The board: chessgroundx draws all three games (8x8 chess, 9x10 xiangqi on a drawn grid with
// river and palaces, 8x8 draughts with discs); this wrapper feeds it the server's position and
// legal moves, and turns a drag or click-click into one wire move, asking the player with a
// picker when several legal moves share the same two squares (promotions, draughts paths).
import { Chessground } from 'chessgroundx';
import type { Api } from 'chessgroundx/api';
import type { Key } from 'chessgroundx/types';
import type { DrawShape } from 'chessgroundx/draw';
import { h } from './dom';
import { destinations, movesForDrop } from './dropmoves';
import { KeyboardCursor, type CaptureUnderWay, type DropOutcome } from './keyboard';
import { anySquare, bindPremoveCancel, premoveOutcome } from './premove';
import { captureStillStands, firstClicks, mustCapture, resolveClicks } from './jumps';
import type { Route } from './model';
import { draughtsSquare, type Color, type Variant } from './variants';
import { wxfFileLabels } from './xiangqi_labels';

export interface BoardView {
  position: string;
  orientation: Color;
  /** Wire moves the player may make now; empty when it is not their move. */
  legal: string[];
  /** Whose pieces may move ("none" for spectators and replays); during the opponent's turn
   * (no `legal` moves) the player's pieces may be moved as a premove. */
  movable: Color | 'none';
  turn: Color;
  lastMove: string | null;
  check: boolean;
  /** Draughts: the route of each move of `legal` (protocol.md, Routes). */
  routes?: Route[];
  /** Draughts: the last move's route, drawn with the men it took. */
  lastRoute?: Route | null;
}

const FILE_LETTERS = 'abcdefgh';
/** A draughts square 1..32 as a board key, and back. */
const draughtsKey = (n: number): Key => {
  const [file, rank] = draughtsSquare(n);
  return (FILE_LETTERS[file] + String(rank + 1)) as Key;
};
const draughtsNumber = (key: Key): number => {
  for (let n = 1; n <= 32; n++) if (draughtsKey(n) === key) return n;
  return 0;
};

const PROMOTION_NAMES: Record<string, string> = { q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight' };
/** Piece names by chessgroundx role letter, for the keyboard cursor's words. */
const ROLE_NAMES: Record<string, Record<string, string>> = {
  chess: { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' },
  xiangqi: { k: 'general', a: 'advisor', b: 'elephant', e: 'elephant', n: 'horse', h: 'horse', r: 'chariot', c: 'cannon', p: 'soldier' },
  draughts: { m: 'man', k: 'king' },
};

export class Board {
  readonly element: HTMLElement;
  private ground: Api;
  private view: BoardView | null = null;
  private picker: HTMLElement | null = null;
  private pickerMoves: string[] = [];
  private keyboard: KeyboardCursor;
  private unbindPremoveCancel: () => void;
  /** Draughts: the squares clicked so far of a capture entered square by square. */
  private pending: number[] | null = null;
  /** Draughts: the landings that may follow `pending` (clicking one goes on with the capture). */
  private pendingNext: number[] = [];
  /** Draughts: the men the capture under way took so far. */
  private pendingTaken: number[] = [];

  constructor(
    private variant: Variant,
    private onMove: (move: string) => void,
  ) {
    const cg = h('div', { class: `cg-wrap ${variant.name}` });
    this.element = h('div', { class: `board board-${variant.name}` }, cg);
    this.element.dataset.variant = variant.name;
    this.ground = Chessground(cg, {
      dimensions: { width: variant.width, height: variant.height },
      // Xiangqi's edges carry WXF file numbers of its own (labelFiles), as its move list.
      coordinates: variant.name === 'chess',
      animation: { enabled: true, duration: 150 },
      movable: { free: false, showDests: true, events: { after: (o, d) => this.afterDrop(o, d) } },
      premovable: { enabled: true, premoveFunc: anySquare(variant.width, variant.height) },
      draggable: { enabled: true, showGhost: true },
      drawable: { enabled: true },
      highlight: { lastMove: true, check: true },
      events: { select: (key) => this.afterSelect(key) },
    });
    this.unbindPremoveCancel = bindPremoveCancel(this.element, () => this.ground.cancelPremove());
    this.keyboard = new KeyboardCursor({
      element: this.element,
      width: variant.width,
      height: variant.height,
      orientation: () => this.orientation(),
      canPickUp: (key) => !!this.view && this.view.movable !== 'none' && !!this.ground.state.movable.dests?.get(key)?.length,
      describe: (key) => this.describe(key),
      name: (key) => this.squareName(key),
      drop: (orig, dest) => this.keyDrop(orig, dest),
      capture: () => this.captureUnderWay(),
      cancelCapture: () => this.putBack(),
    });
    if (variant.name === 'xiangqi') this.labelFiles();
  }

  /** Xiangqi: each edge's WXF file numbers, as the side sitting there counts them. */
  private labelFiles(): void {
    const labels = wxfFileLabels(this.orientation());
    const row = (edge: 'top' | 'bottom') =>
      h(
        'div',
        { class: `xq-files ${edge}`, 'aria-hidden': 'true' },
        ...labels[edge].map((label) => h('span', { 'data-file': label.file }, String(label.number))),
      );
    this.element.querySelectorAll('.xq-files').forEach((old) => old.remove());
    this.element.prepend(row('top'));
    this.element.append(row('bottom'));
  }

  /**
   * Redraws from the server's view of the game. An open picker stays open while its moves are
   * still legal in the same position, and a draughts capture entered landing by landing stays
   * under way while the view offers the same moves: the opponent's chat line, offer or
   * reconnection redraws the page, and must not drop the player's half-made move.
   */
  set(view: BoardView): void {
    const keeps = this.picker
      ? this.pickerStillStands(view)
      : !!this.pending && !!this.view && captureStillStands(this.view, view);
    if (keeps) {
      this.keepPlaying(view);
      return;
    }
    this.closePicker();
    // A capture under way is dropped too: the piece goes back to its start.
    if (view.position !== this.view?.position || view.movable !== this.view?.movable || this.pending) this.keyboard.reset();
    this.pending = null;
    this.pendingNext = [];
    this.pendingTaken = [];
    this.view = view;
    const dests = view.movable === 'none' ? new Map<Key, Key[]>() : destinations(this.variant, view.position, view.legal);
    if (view.movable === 'none') this.ground.cancelPremove();
    else {
      // A capture may also be entered landing by landing: its first landing is a destination.
      for (const [from, targets] of firstClicks(view.routes ?? [])) {
        const list = dests.get(draughtsKey(from)) ?? [];
        for (const target of targets) if (!list.includes(draughtsKey(target))) list.push(draughtsKey(target));
        dests.set(draughtsKey(from), list);
      }
    }
    const last = view.lastMove ? this.variant.squares(view.lastMove) : null;
    this.ground.set({
      fen: this.variant.boardFen(view.position),
      orientation: view.orientation,
      turnColor: view.turn,
      check: view.check ? view.turn : false,
      lastMove: last ?? undefined,
      movable: {
        color: view.movable === 'none' ? undefined : view.movable,
        dests,
      },
    });
    if (!last) this.ground.set({ lastMove: undefined });
    this.element.dataset.position = view.position;
    if (this.variant.name === 'draughts') this.drawRoutes();
    if (this.variant.name === 'xiangqi') this.labelFiles();
  }

  /**
   * Takes in a view that offers the same moves: what is under way (the picker, the capture's
   * route and the piece on its landing, the keyboard's piece) stays; only the board may turn.
   */
  private keepPlaying(view: BoardView): void {
    this.view = view;
    if (this.ground.state.orientation === view.orientation) return;
    this.ground.set({ orientation: view.orientation });
    if (this.variant.name === 'xiangqi') this.labelFiles();
  }

  /**
   * Drops what is under way (a capture, the picker) and redraws the view as it stands: the piece
   * goes back to its start, and the keyboard's piece on a landing is put down.
   */
  private putBack(): void {
    this.closePicker();
    if (this.pending) this.keyboard.reset();
    this.pending = null;
    if (this.view) this.set(this.view);
  }

  /**
   * Draughts marks: the men that must capture (yellow), the capture being entered (green arrows,
   * the men it takes in red), or else the last move's route and the men it took. The squares are
   * also on the element (data-must-capture, data-pending, data-route, data-taken).
   */
  private drawRoutes(taken: number[] = []): void {
    const view = this.view;
    if (!view) return;
    const shapes: DrawShape[] = [];
    const arrows = (path: number[], brush: string) => {
      for (let i = 0; i + 1 < path.length; i++) shapes.push({ orig: draughtsKey(path[i]), dest: draughtsKey(path[i + 1]), brush });
    };
    const rings = (squares: number[], brush: string) => squares.forEach((n) => shapes.push({ orig: draughtsKey(n), brush }));
    const must = view.movable !== 'none' && !this.pending ? mustCapture(view.routes ?? []) : [];
    const route = this.pending ? null : view.lastRoute ?? null;
    rings(must, 'yellow');
    if (this.pending) {
      arrows(this.pending, 'green');
      rings(taken, 'red');
    } else if (route) {
      arrows(route.path, 'blue');
      rings(route.taken, 'red');
    }
    this.ground.setAutoShapes(shapes);
    const data = this.element.dataset;
    data.mustCapture = must.join(' ');
    data.pending = this.pending?.join(' ') ?? '';
    data.route = route?.path.join(' ') ?? '';
    data.taken = (this.pending ? taken : route?.taken ?? []).join(' ');
  }

  /**
   * A draughts piece went to `dest`: the end of a capture or one of its landings. Returns false
   * when no route runs that way (the drop is then read by its two squares).
   */
  private afterJump(orig: Key, dest: Key): boolean {
    const view = this.view!;
    const from = draughtsNumber(orig);
    const clicked = this.pending && this.pending[this.pending.length - 1] === from ? [...this.pending, draughtsNumber(dest)] : [from, draughtsNumber(dest)];
    const found = resolveClicks(view.legal, view.routes ?? [], clicked);
    if (found.kind === 'none') {
      this.pending = null;
      return false;
    }
    if (found.kind === 'move') {
      this.pending = null;
      if (found.moves.length === 1) this.onMove(found.moves[0]);
      else this.openPicker(found.moves);
      return true;
    }
    // Under way: the piece stands on the landing, and only the next landings are offered.
    // chessgroundx passed the turn to the other side on the drop; the capture goes on, so the
    // turn comes back (else the piece on the landing is picked up as a premove, and so queued).
    this.pending = clicked;
    this.pendingNext = found.next;
    this.pendingTaken = found.taken;
    this.ground.set({ turnColor: view.turn, movable: { dests: new Map([[dest, found.next.map(draughtsKey)]]) } });
    this.ground.selectSquare(dest);
    this.drawRoutes(found.taken);
    return true;
  }

  /** Draws `moves` as arrows (the engine's best move in analysis); none clears them. */
  arrows(moves: string[]): void {
    const shapes = moves.flatMap((move) => {
      const squares = this.variant.squares(move);
      return squares ? [{ orig: squares[0], dest: squares[1], brush: 'paleBlue' }] : [];
    });
    this.ground.setAutoShapes(shapes);
    this.element.dataset.arrows = moves.join(' ');
  }

  /** Freezes the board as it stands (a move is on its way to the server). */
  lock(): void {
    this.closePicker();
    this.ground.set({ movable: { color: undefined, dests: new Map() } });
  }

  orientation(): Color {
    return this.ground.state.orientation as Color;
  }

  flip(): void {
    this.ground.toggleOrientation();
    if (this.view) this.view.orientation = this.orientation();
    if (this.variant.name === 'xiangqi') this.labelFiles();
  }

  /** The move queued during the opponent's turn ([from, to]), or null. */
  premove(): [Key, Key] | null {
    const current = this.ground.state.premovable.current;
    return current ? [current[0] as Key, current[1]] : null;
  }

  /**
   * The turn came: plays the queued move if it means a legal move now (asking which, when it
   * means several), and drops it otherwise. Returns what became of it (null: none was queued).
   */
  playPremove(): 'sent' | 'asked' | 'dropped' | null {
    const queued = this.premove();
    this.ground.cancelPremove();
    if (!queued || !this.view) return null;
    const outcome = premoveOutcome(movesForDrop(this.variant, this.view.position, this.view.legal, ...queued));
    if (outcome.kind === 'send') this.onMove(outcome.move);
    else if (outcome.kind === 'ask') this.openPicker(outcome.moves);
    return outcome.kind === 'send' ? 'sent' : outcome.kind === 'ask' ? 'asked' : 'dropped';
  }

  /** Plays the move a piece taken from `orig` and put on `dest` means; false when none. */
  private play(orig: Key, dest: Key): boolean {
    const view = this.view;
    if (!view || view.movable === 'none') return false;
    const candidates = movesForDrop(this.variant, view.position, view.legal, orig, dest);
    if (candidates.length === 1) this.onMove(candidates[0]);
    else if (candidates.length > 1) this.openPicker(candidates);
    return candidates.length > 0;
  }

  /**
   * The keyboard put the piece from `orig` down on `dest`: a draughts capture goes the mouse's way
   * (afterJump), landing by landing; put down on its own square, a piece offers the captures that
   * run round and back there.
   */
  private keyDrop(orig: Key, dest: Key): DropOutcome {
    const view = this.view;
    if (!view || view.movable === 'none') return false;
    if (orig === dest) return this.offerCircular(orig) ? 'played' : false;
    if (this.variant.name === 'draughts' && view.routes?.length) {
      const from = draughtsNumber(orig);
      const to = draughtsNumber(dest);
      // Under way, a capture goes on only to one of its next landings; else the two squares must
      // start a route (or be its start and end).
      const goesOn = this.pending
        ? this.pending[this.pending.length - 1] === from && this.pendingNext.includes(to)
        : resolveClicks(view.legal, view.routes, [from, to]).kind !== 'none';
      if (!goesOn) return this.pending ? false : this.play(orig, dest) ? 'played' : false;
      // The piece moves as a drop moves it, then the capture is read as the mouse's.
      this.ground.selectSquare(null);
      this.ground.move(orig, dest);
      this.afterJump(orig, dest);
      return this.pending ? 'continue' : 'played';
    }
    return this.play(orig, dest) ? 'played' : false;
  }

  /** The draughts capture being entered landing by landing, in square numbers; null if none. */
  private captureUnderWay(): CaptureUnderWay | null {
    if (!this.pending) return null;
    return { next: this.pendingNext.map(String), taken: this.pendingTaken.map(String) };
  }

  /** A piece was dropped on one of its server-given destinations: pick the wire move. */
  private afterDrop(orig: Key, dest: Key): void {
    const view = this.view;
    if (!view) return;
    if (this.variant.name === 'draughts' && view.routes?.length && this.afterJump(orig, dest)) return;
    // cannot fail with server dests; if it does, the piece goes back
    if (!this.play(orig, dest)) this.set(view);
  }

  /** A square as the move list names it: "e2", "h10", "17". */
  private squareName(key: Key): string {
    if (this.variant.name === 'draughts') return String(draughtsNumber(key));
    return key[1] === ':' ? `${key[0]}10` : key;
  }

  /** The keyboard cursor's words for a square: "e2, white pawn", "17, black king", "e4, empty". */
  private describe(key: Key): string {
    const name = this.squareName(key);
    const piece = this.ground.state.boardState.pieces.get(key);
    if (!piece) return `${name}, empty`;
    const role = ROLE_NAMES[this.variant.name][piece.role.charAt(0)] ?? piece.role;
    const side = this.variant.name === 'xiangqi' && piece.color === 'white' ? 'red' : piece.color;
    return `${name}, ${side} ${role}`;
  }

  /**
   * A draughts capture can run round and end where it started ("22x22"): no drop can say that,
   * so selecting the piece offers it.
   */
  private afterSelect(key: Key): void {
    const view = this.view;
    if (!view || view.movable === 'none') return;
    // A click away from a capture under way drops it: the piece goes back to its start. A click
    // on a next landing is not away: chessgroundx tells of it (deferred, as of the move itself)
    // before afterJump hears of the move, and by then the board's destinations are cleared.
    const stays = (n: number) => n === this.pending?.[this.pending.length - 1] || this.pendingNext.includes(n);
    if (this.pending && !stays(draughtsNumber(key))) {
      this.putBack();
      return;
    }
    this.offerCircular(key);
  }

  /** Asks which of the captures from `key` that end on `key` to play; false when there are none. */
  private offerCircular(key: Key): boolean {
    const circular = (this.view?.legal ?? []).filter((move) => {
      const squares = this.variant.squares(move);
      return !!squares && squares[0] === key && squares[1] === key;
    });
    if (circular.length) this.openPicker(circular, 'Capture round and back to this square?');
    return circular.length > 0;
  }

  private pickerStillStands(view: BoardView): boolean {
    return (
      view.movable !== 'none' &&
      view.position === this.view?.position &&
      view.movable === this.view?.movable &&
      this.pickerMoves.every((move) => view.legal.includes(move))
    );
  }

  private openPicker(candidates: string[], heading?: string): void {
    this.closePicker();
    this.pickerMoves = candidates;
    const chess = this.variant.name === 'chess';
    const title = heading ?? (chess ? 'Promote to' : 'Which capture path?');
    const buttons = candidates.map((move) => {
      const label = chess ? PROMOTION_NAMES[move.slice(-1)] ?? move : move;
      const button = h('button', { type: 'button', class: 'pick', 'data-move': move }, label);
      if (chess) {
        const colour = this.view?.movable === 'black' ? 'black' : 'white';
        const role = move.slice(-1);
        button.prepend(h('span', { class: `cg-wrap chess pick-piece` }, h('piece', { class: `${role}-piece ${colour}` })));
      }
      button.addEventListener('click', () => {
        this.closePicker();
        this.onMove(move);
      });
      return button;
    });
    const cancel = h('button', { type: 'button', class: 'pick cancel' }, 'Cancel');
    cancel.addEventListener('click', () => this.putBack());
    this.picker = h('div', { class: 'picker', role: 'dialog', 'aria-label': title }, h('p', {}, title), ...buttons, cancel);
    this.picker.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.putBack();
    });
    this.element.append(this.picker);
    buttons[0]?.focus();
  }

  private closePicker(): void {
    this.picker?.remove();
    this.picker = null;
    this.pickerMoves = [];
  }

  destroy(): void {
    this.unbindPremoveCancel();
    this.ground.destroy();
  }
}

// ---- board backgrounds drawn once as SVG data URIs ------------------------------------------

function svgUrl(svg: string): string {
  return `url("data:image/svg+xml,${encodeURIComponent(svg)}")`;
}

/** The xiangqi board: 9x10 intersections, the river, the two palaces, point marks. */
function xiangqiBoard(): string {
  const line = (x1: number, y1: number, x2: number, y2: number) =>
    `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"/>`;
  const lines: string[] = [];
  for (let y = 0.5; y <= 9.5; y++) lines.push(line(0.5, y, 8.5, y));
  for (let x = 0.5; x <= 8.5; x++) {
    if (x === 0.5 || x === 8.5) lines.push(line(x, 0.5, x, 9.5));
    else lines.push(line(x, 0.5, x, 4.5), line(x, 5.5, x, 9.5));
  }
  // Palaces: the diagonals of the 3x3 squares at the middle files of each side.
  lines.push(line(3.5, 0.5, 5.5, 2.5), line(5.5, 0.5, 3.5, 2.5));
  lines.push(line(3.5, 7.5, 5.5, 9.5), line(5.5, 7.5, 3.5, 9.5));
  // Point marks where cannons and soldiers start.
  const marks: string[] = [];
  const mark = (x: number, y: number) => {
    const d = 0.08;
    const l = 0.18;
    for (const sx of [-1, 1]) {
      if ((sx < 0 && x === 0.5) || (sx > 0 && x === 8.5)) continue;
      for (const sy of [-1, 1]) {
        const px = x + sx * d;
        const py = y + sy * d;
        marks.push(`<polyline points="${px + sx * l},${py} ${px},${py} ${px},${py + sy * l}"/>`);
      }
    }
  };
  for (const y of [2.5, 7.5]) for (const x of [1.5, 7.5]) mark(x, y);
  for (const y of [3.5, 6.5]) for (const x of [0.5, 2.5, 4.5, 6.5, 8.5]) mark(x, y);
  const river =
    `<g font-size="0.55" fill="#6b3e1f" font-family="'Noto Serif CJK SC','Noto Sans CJK SC',serif" text-anchor="middle" dominant-baseline="central">` +
    `<text x="2" y="5">楚</text><text x="3" y="5">河</text><text x="6" y="5">漢</text><text x="7" y="5">界</text></g>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 10" preserveAspectRatio="none">` +
    `<rect width="9" height="10" fill="#e8c48a"/>` +
    `<g stroke="#5a3412" stroke-width="0.035" fill="none">${lines.join('')}${marks.join('')}` +
    `<rect x="0.42" y="0.42" width="8.16" height="9.16" stroke-width="0.06"/></g>${river}</svg>`
  );
}

/** The draughts board with the PDN square numbers 1..32 on the dark squares. */
function draughtsBoard(orientation: Color): string {
  const cells: string[] = [];
  for (let rank = 0; rank < 8; rank++) {
    for (let file = 0; file < 8; file++) {
      const dark = (rank + file) % 2 === 0; // a1 is dark
      const x = orientation === 'white' ? file : 7 - file;
      const y = orientation === 'white' ? 7 - rank : rank;
      cells.push(`<rect x="${x}" y="${y}" width="1" height="1" fill="${dark ? '#8b5a2b' : '#f1dcb4'}"/>`);
    }
  }
  for (let n = 1; n <= 32; n++) {
    const [file, rank] = draughtsSquare(n);
    const x = orientation === 'white' ? file : 7 - file;
    const y = orientation === 'white' ? 7 - rank : rank;
    cells.push(`<text x="${x + 0.06}" y="${y + 0.2}" font-size="0.18" fill="#f6e7c8" font-family="sans-serif">${n}</text>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8" shape-rendering="crispEdges">${cells.join('')}</svg>`;
}

/** Installs the generated board backgrounds (once). */
export function installBoardStyles(): void {
  if (document.getElementById('board-backgrounds')) return;
  const css =
    `.cg-wrap.xiangqi cg-board { background-image: ${svgUrl(xiangqiBoard())}; }\n` +
    `.cg-wrap.draughts.orientation-white cg-board { background-image: ${svgUrl(draughtsBoard('white'))}; }\n` +
    `.cg-wrap.draughts.orientation-black cg-board { background-image: ${svgUrl(draughtsBoard('black'))}; }\n`;
  document.head.append(h('style', { id: 'board-backgrounds' }, css));
}
