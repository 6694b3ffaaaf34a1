// The one WebSocket to the server: request/reply by "id", a stream of server events, and
// reconnection with exponential backoff. Views register an `onOpen` hook to re-subscribe
// (resume / watch with `since`, lobby) every time the socket (re)opens.

export type Message = { type: string; [field: string]: any };
type Listener = (message: Message) => void;
type StatusListener = (status: ConnectionStatus) => void;

export interface ConnectionStatus {
  state: 'connecting' | 'open' | 'closed';
  /** Seconds until the next attempt while closed. */
  retryIn?: number;
  /** True once a dropped connection came back. */
  reconnected?: boolean;
}

/** Who the connection is signed in as (`welcome.user`): null for a guest. */
export interface SignedInUser {
  username: string;
}

/** An opponent the server offers (`welcome.engines`): its name and the variants it plays. */
export interface EngineInfo {
  name: string;
  variants: string[];
}

const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 10000;
/** After this long without a message the page sends a `ping` (the server answers `pong`)... */
const PING_AFTER_MS = 2000;
/** ...and after this long it counts the connection as lost: a server or link gone silent
 * without closing anything (a cut cable, a sleeping laptop's Wi-Fi) is noticed in seconds. */
const SILENT_AFTER_MS = 5000;

export class Connection {
  private ws: WebSocket | null = null;
  private listeners = new Set<Listener>();
  private statusListeners = new Set<StatusListener>();
  private openHooks = new Set<() => void>();
  private pending = new Map<string, (reply: Message) => void>();
  private nextId = 1;
  private delay = MIN_DELAY_MS;
  private everOpened = false;
  private queue: string[] = [];
  private lastHeard = 0;
  status: ConnectionStatus = { state: 'connecting' };
  /** The engines of the last `welcome` ("play the computer"); empty until it arrives. */
  engines: EngineInfo[] = [];
  /**
   * Who the last `welcome` says this connection is signed in as: null for a guest, undefined
   * until a welcome says (or from a server whose welcome has no `user`).
   */
  user: SignedInUser | null | undefined = undefined;
  /** The next open is one the page asked for (sign-in, sign-out): not a "Reconnected." */
  private quietOpen = false;

  constructor(private url: string, private name: () => string) {
    this.open();
  }

  private setStatus(status: ConnectionStatus): void {
    this.status = status;
    for (const listener of this.statusListeners) listener(status);
  }

  private open(): void {
    this.setStatus({ state: 'connecting' });
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.lastHeard = Date.now();
      const beat = setInterval(() => {
        if (this.ws !== ws) {
          clearInterval(beat);
          return;
        }
        const quiet = Date.now() - this.lastHeard;
        if (quiet >= SILENT_AFTER_MS) {
          clearInterval(beat);
          this.drop();
        } else if (quiet >= PING_AFTER_MS && ws.readyState === WebSocket.OPEN) {
          ws.send(JSON.stringify({ type: 'ping' }));
        }
      }, 1000);
      const reconnected = this.everOpened && !this.quietOpen;
      this.everOpened = true;
      this.quietOpen = false;
      this.delay = MIN_DELAY_MS;
      // Re-entry first (hello, then the hooks' resume / watch / lobby), then what was queued
      // while closed: a move sent before its seat's resume would be refused as forbidden.
      ws.send(JSON.stringify({ type: 'hello', name: this.name() }));
      this.setStatus({ state: 'open', reconnected });
      for (const hook of this.openHooks) hook();
      for (const text of this.queue.splice(0)) ws.send(text);
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return; // a dropped socket's late messages
      this.lastHeard = Date.now();
      let message: Message;
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      // Every server message is an object with a string type (protocol.md); anything else is noise.
      if (typeof message !== 'object' || message === null || Array.isArray(message) || typeof message.type !== 'string') return;
      if (message.type === 'welcome') {
        this.engines = Array.isArray(message.engines)
          ? message.engines.filter(
              (e: any) => e && typeof e.name === 'string' && Array.isArray(e.variants) && e.variants.every((v: unknown) => typeof v === 'string'),
            )
          : [];
        if ('user' in message) {
          const user = message.user;
          this.user = user && typeof user.username === 'string' ? { username: user.username } : null;
        }
      }
      if (typeof message.id === 'string' && this.pending.has(message.id)) {
        const resolve = this.pending.get(message.id)!;
        this.pending.delete(message.id);
        resolve(message);
      }
      // One view failing on a message must not keep it from the others.
      for (const listener of this.listeners) {
        try {
          listener(message);
        } catch (error) {
          console.error('arbiter: a server message could not be shown', message.type, error);
        }
      }
    };
    ws.onclose = () => this.lost(ws);
  }

  /** Forgets `ws` as the live socket, fails its requests in flight, and schedules a reconnect. */
  private lost(ws: WebSocket): void {
    if (this.ws !== ws) return;
    this.ws = null;
    // Requests in flight will never be answered on this socket.
    for (const [id, resolve] of this.pending) {
      resolve({ type: 'error', code: 'disconnected', message: 'the connection was lost', id });
    }
    this.pending.clear();
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
    const started = Date.now();
    const tick = () => {
      const left = Math.max(0, Math.ceil((wait - (Date.now() - started)) / 1000));
      if (this.ws) return;
      this.setStatus({ state: 'closed', retryIn: left });
      if (Date.now() - started >= wait) this.open();
      else setTimeout(tick, Math.min(1000, wait));
    };
    tick();
  }

  /** Sends now if open, else queues until the next open (after hello and the open hooks). */
  send(message: Message): void {
    const text = JSON.stringify(message);
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
    else this.queue.push(text);
  }

  /** Sends with a fresh id; resolves with the reply or error that echoes it. */
  request(message: Message): Promise<Message> {
    const id = `c${this.nextId++}`;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.send({ ...message, id });
    });
  }

  /** Says hello again (the player changed their name). */
  rename(): void {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ type: 'hello', name: this.name() }));
    }
  }

  /**
   * Opens a new socket now, closing the current one: its upgrade carries the session cookie as
   * it stands after a sign-in or sign-out. The open hooks resume, watch and list again as on any
   * reconnect, and requests in flight are answered `disconnected`.
   */
  reconnect(): void {
    const ws = this.ws;
    this.quietOpen = true;
    if (ws) {
      this.ws = null;
      for (const [id, resolve] of this.pending) {
        resolve({ type: 'error', code: 'disconnected', message: 'the connection was lost', id });
      }
      this.pending.clear();
      ws.close();
    }
    this.delay = MIN_DELAY_MS;
    this.open();
  }

  isOpen(): boolean {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  /**
   * Drops the socket as if the network failed (the reconnect tests' hook): the page counts it lost
   * at once, as it would on a network error, rather than after a closing handshake that a slow or
   * offline peer may take long to finish.
   */
  drop(): void {
    const ws = this.ws;
    if (!ws) return;
    this.lost(ws);
    ws.close();
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onStatus(listener: StatusListener): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Runs `hook` now if open and after every (re)open; returns the remover. */
  onOpen(hook: () => void): () => void {
    this.openHooks.add(hook);
    if (this.isOpen()) hook();
    return () => this.openHooks.delete(hook);
  }
}

/** Seat tokens per game id, kept in the browser's storage. */
export interface SeatGrant {
  seat: string;
  token: string;
}

export function loadSeat(game: string): SeatGrant | null {
  try {
    const text = localStorage.getItem(`arbiter.seat.${game}`);
    return text ? (JSON.parse(text) as SeatGrant) : null;
  } catch {
    return null;
  }
}

export function saveSeat(game: string, grant: SeatGrant): void {
  localStorage.setItem(`arbiter.seat.${game}`, JSON.stringify(grant));
}

export function forgetSeat(game: string): void {
  localStorage.removeItem(`arbiter.seat.${game}`);
}

/**
 * Marks `game` as one this tab was just seated in (created, joined from the lobby, a rematch):
 * the game page opened next greets a game already under way with the start sound. The mark is
 * the tab's own (sessionStorage), so another tab or a later visit hears nothing.
 */
export function markJustSeated(game: string): void {
  try {
    sessionStorage.setItem(`arbiter.seated.${game}`, '1');
  } catch {
    // no storage: the game starts in silence
  }
}

/** Whether this tab was just seated in `game`; the mark is used up, so a reload is not a start. */
export function takeJustSeated(game: string): boolean {
  try {
    const key = `arbiter.seated.${game}`;
    const marked = sessionStorage.getItem(key) !== null;
    sessionStorage.removeItem(key);
    return marked;
  } catch {
    return false;
  }
}
