// The chat panel of a game page (protocol.md, Chat): the players' room and the spectators' room as
// this page may use them, an input for the one room it writes to (140 characters), a mute button
// for players, and the read-only log of a replay. Every message is set as text (textContent, via
// h()), never as markup: what a player types is shown exactly as typed and runs nothing.
import { fill, h } from './dom';
import type { Message } from './net';

/** One message as `state.chat`, `record.chat` and the `chat` event carry it. */
export interface ChatLine {
  seq: number;
  room: 'players' | 'spectators';
  from: string;
  text: string | null;
  at_ms: number;
}

export const MAX_CHAT_LENGTH = 140;
const KEPT = 200;

const isLine = (value: any): value is ChatLine =>
  typeof value === 'object' && value !== null && Number.isInteger(value.seq) &&
  (value.room === 'players' || value.room === 'spectators') && typeof value.from === 'string' &&
  (typeof value.text === 'string' || value.text === null);

/** Characters as the server counts them: code points, not UTF-16 units. */
const length = (text: string) => [...text.trim()].length;

function lineNode(line: ChatLine): HTMLElement {
  const time = new Date(line.at_ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return h('li', { class: 'chat-line', 'data-seq': line.seq }, h('span', { class: 'chat-from' }, line.from), ' ', h('span', { class: 'chat-text' }, line.text ?? ''), h('time', { class: 'chat-time' }, time));
}

function roomSection(room: ChatLine['room'], lines: ChatLine[]): HTMLElement {
  const title = room === 'players' ? 'Players' : 'Spectators';
  const list = h('ol', { class: 'chat-list', id: `chat-${room}`, 'aria-label': `${title}' chat`, 'aria-live': 'polite' });
  fill(list, ...lines.filter((line) => line.room === room && line.text !== null).map(lineNode));
  return h('section', { class: `chat-room ${room}` }, h('h3', {}, title), list);
}

/** The chat of a replay (`record.chat`): each room that has messages, read only. */
export function chatLog(chat: unknown): HTMLElement | null {
  const lines = Array.isArray(chat) ? chat.filter(isLine) : [];
  if (!lines.length) return null;
  const rooms = (['players', 'spectators'] as const).filter((room) => lines.some((line) => line.room === room));
  return h('div', { class: 'chat replay-chat', id: 'chat' }, ...rooms.map((room) => roomSection(room, lines)));
}

export class ChatPanel {
  readonly element: HTMLElement;
  private lines: ChatLine[] = [];
  private seat: string | null = null;
  private status = 'waiting';
  private muted = false;
  private readonly rooms = h('div', { class: 'chat-rooms' });
  private readonly input = h('input', { id: 'chat-input', maxlength: String(MAX_CHAT_LENGTH * 2), autocomplete: 'off', 'aria-label': 'Chat message' });
  private readonly counter = h('span', { class: 'chat-counter', id: 'chat-counter' });
  private readonly send = h('button', { type: 'submit', id: 'chat-send' }, 'Send');
  private readonly mute = h('button', { type: 'button', id: 'chat-mute', hidden: true });
  private readonly form = h('form', { class: 'chat-form' }, this.input, this.counter, this.send);

  constructor(private readonly act: (message: Message) => void) {
    this.element = h('div', { class: 'chat', id: 'chat' }, this.rooms, this.form, this.mute);
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = this.input.value.trim();
      if (!text || length(text) > MAX_CHAT_LENGTH) return;
      this.act({ type: 'chat', room: this.seat ? 'players' : 'spectators', text });
      this.input.value = '';
      this.renderCounter();
    });
    this.input.addEventListener('input', () => this.renderCounter());
    this.mute.addEventListener('click', () => this.act({ type: 'chat_mute', mute: !this.muted }));
    this.render();
  }

  /** A `state`: its chat, and who this page is in the game now. */
  load(chat: unknown, seat: string | null, status: string): void {
    this.lines = Array.isArray(chat) ? chat.filter(isLine) : [];
    this.seat = seat;
    this.status = status;
    this.render();
  }

  /** A `chat` event applied in seq order. */
  add(event: Message): void {
    if (!isLine(event)) return;
    this.lines.push({ seq: event.seq, room: event.room, from: event.from, text: event.text, at_ms: event.at_ms });
    if (this.lines.length > KEPT) this.lines.shift();
    this.render();
  }

  /** The page's seat or the game's status changed. */
  update(seat: string | null, status: string): void {
    if (seat === this.seat && status === this.status) return;
    this.seat = seat;
    this.status = status;
    this.render();
  }

  /** The server's answer to chat_mute. */
  setMuted(muted: boolean): void {
    this.muted = muted;
    this.render();
  }

  private render(): void {
    const over = this.status === 'ended' || this.status === 'aborted';
    // A player reads the players' room, and the spectators' once the game is over; a spectator
    // reads only theirs.
    const rooms: ChatLine['room'][] = this.seat ? (over ? ['players', 'spectators'] : ['players']) : ['spectators'];
    fill(this.rooms, ...rooms.map((room) => roomSection(room, this.lines)));
    this.input.placeholder = this.seat ? 'Chat with your opponent' : 'Chat with the spectators';
    this.mute.hidden = !this.seat;
    this.mute.textContent = this.muted ? 'Unmute opponent' : 'Mute opponent';
    this.mute.setAttribute('aria-pressed', String(this.muted));
    this.renderCounter();
  }

  private renderCounter(): void {
    const used = length(this.input.value);
    this.counter.textContent = `${used}/${MAX_CHAT_LENGTH}`;
    this.counter.classList.toggle('over', used > MAX_CHAT_LENGTH);
    this.send.disabled = used === 0 || used > MAX_CHAT_LENGTH;
  }
}
