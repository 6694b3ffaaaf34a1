// A client that survives what the cluster tests break (issue 43): it connects through nginx,
// notices a dead connection (a close, an error, or silence: it pings as the browser client does),
// reconnects with backoff, and comes back with `resume {game, token, since}` (a player) or
// `watch {game, since}` (a spectator), retrying while the answer is `unavailable`. A player whose
// move got no answer sends it again with the same `ply` (schema/protocol.md: the server answers a
// re-send as the first time and never applies it twice).
//
// Every acknowledgement and every game event goes to a Journal, and each client checks its own
// stream of `seq` (protocol.md, "Game events, seq and since"): a `state` sets the last seq to its
// own (never lower than what the client had); an event must be exactly last + 1. A higher one is
// a gap, a lower one a duplicate. The one message allowed to repeat an old seq is the answer to a
// re-sent move: it is that move's `moved` again, same seq, by design.
import { Client } from '../server/harness.mjs';

const GAME_EVENTS = new Set(['moved', 'ended', 'offer', 'takeback', 'presence', 'rematch', 'chat']);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a run's clients did: acknowledgements, move refusals, drops, breaches of the protocol. */
export class Journal {
  constructor() {
    this.acks = []; // {client, game, seq, ply, move, sentAt, at, resent, node}
    this.refusals = []; // {client, game, what, code, at}
    this.violations = []; // {client, game, what, at}
    this.events = 0;
    this.lines = []; // one JSON line per ack and event, for a failure's report
  }

  log(entry) {
    this.lines.push(JSON.stringify({ at: Date.now(), ...entry }));
  }

  ack(entry) {
    this.acks.push(entry);
    this.log({ kind: 'ack', ...entry });
  }

  violation(client, what) {
    this.violations.push({ client: client.name, game: client.game, what, at: Date.now() });
    this.log({ kind: 'violation', client: client.name, game: client.game, what });
  }
}

/** A small deterministic choice among `n` from a text (a game id and a ply). */
function pick(text, n) {
  let hash = 2166136261;
  for (const c of text) hash = Math.imul(hash ^ c.charCodeAt(0), 16777619) >>> 0;
  return hash % n;
}

export class ResilientClient {
  /**
   * `role`: `player` or `spectator`. `nodeAt(address)` names the node behind nginx's
   * X-Arbiter-Upstream. `mayFinish(ply)`: whether the player to move at `ply` resigns now (a game
   * ends with a result once the test has seen what it came for).
   */
  constructor({ url, name, role, journal, nodeAt = () => null, mayFinish = () => false, thinkMs = 100,
    pingAfterMs = 2000, lostAfterMs = 5000, resumeDeadlineMs = 30000, direct = false }) {
    Object.assign(this, { url, name, role, journal, nodeAt, mayFinish, thinkMs, pingAfterMs, lostAfterMs,
      resumeDeadlineMs, direct });
    this.game = null;
    this.token = null;
    this.seat = null;
    this.lastSeq = null;
    this.view = { status: null, turn: null, ply: 0, legal: [] };
    this.endedSeq = null;
    this.conn = null;
    this.node = null; // the node this connection reached
    this.ready = false; // connected and in the game (created, joined, resumed or watching)
    this.drops = []; // {at, code, node, resumedAt, node after}
    this.pending = null; // the move awaiting its answer: {ply, move, firstSentAt, sends}
    this.resignSentAt = 0;
    this.moveIds = new Set();
    this.requests = 0;
    this.finished = false;
    this.reconnecting = null;
    this.timer = setInterval(() => this.checkLiveness(), 250);
  }

  // ---- connections ------------------------------------------------------------------------
  async connect() {
    const conn = new Client(this.url, { handshakeTimeout: 3000 });
    conn.ws.on('upgrade', (response) => {
      conn.node = this.nodeAt(response.headers['x-arbiter-upstream']);
    });
    await conn.opened;
    conn.lastHeard = Date.now();
    conn.pingedAt = 0;
    conn.ws.on('message', (data) => this.onMessage(conn, JSON.parse(data.toString())));
    conn.ws.on('close', (code) => this.dropped(conn, code));
    if (conn.closed) throw new Error('closed at once');
    this.conn = conn;
    this.node = conn.node;
    return conn;
  }

  /** Sends `message` with an id of ours; the reply that carries it, or a throw (closed, timeout). */
  async request(conn, message, timeoutMs = 10000, remember = null) {
    const id = `${this.name}.${++this.requests}`;
    remember?.add(id);
    conn.send({ ...message, id });
    return conn.next((m) => m.id === id, timeoutMs);
  }

  /** The first connection: `first` is the create, join or watch that puts this client in a game. */
  async open(first, deadlineMs = 20000) {
    const deadline = Date.now() + deadlineMs;
    this.opening = true;
    for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
      try {
        const conn = await this.connect();
        await this.request(conn, { type: 'hello', name: this.name });
        const reply = await this.request(conn, first);
        if (reply.type === 'error') throw new Error(`${first.type} refused: ${reply.code}: ${reply.message}`);
        this.ready = true;
        this.opening = false;
        return reply;
      } catch (error) {
        this.conn?.ws.terminate();
        this.conn = null;
        if (Date.now() > deadline) throw new Error(`${this.name}: ${first.type} failed: ${error.message}`);
        await sleep(delay);
      }
    }
  }

  checkLiveness() {
    const conn = this.conn;
    if (!conn || this.finished) return;
    const silent = Date.now() - conn.lastHeard;
    if (silent > this.lostAfterMs) {
      this.dropped(conn, 'silent');
    } else if (silent > this.pingAfterMs && Date.now() - conn.pingedAt > 1000) {
      conn.pingedAt = Date.now();
      conn.send({ type: 'ping' });
    }
  }

  /** `conn` is gone (a close code, or `silent`/`timeout`): drop it and come back. */
  dropped(conn, code) {
    if (conn !== this.conn || this.finished) return;
    if (this.opening) {
      this.conn = null; // open() tries again itself
      return;
    }
    this.journal.log({ kind: 'drop', client: this.name, game: this.game, code, node: this.node });
    this.drops.push({ at: Date.now(), code, node: this.node, resumedAt: null });
    this.conn = null;
    this.ready = false;
    conn.ws.terminate();
    this.reconnect();
  }

  reconnect() {
    if (this.reconnecting) return;
    this.reconnecting = this.comeBack().finally(() => (this.reconnecting = null));
  }

  async comeBack() {
    const since = Date.now();
    let lastProblem = '';
    for (let delay = 100; !this.finished; delay = Math.min(delay * 2, 1000)) {
      await sleep(delay * (0.5 + Math.random()));
      if (Date.now() - since > this.resumeDeadlineMs) {
        this.journal.violation(this, `not back within ${this.resumeDeadlineMs} ms: ${lastProblem}`);
        return;
      }
      let conn;
      try {
        conn = await this.connect();
        await this.request(conn, { type: 'hello', name: this.name });
      } catch (error) {
        lastProblem = `connect: ${error.message}`;
        if (conn && conn === this.conn) this.dropped(conn, 'hello failed');
        continue;
      }
      // In the game again; `unavailable` (no owner yet) is retried on the same connection.
      for (let wait = 100; conn === this.conn && !this.finished; wait = Math.min(wait * 2, 800)) {
        const back = this.since();
        const message =
          this.role === 'player'
            ? { type: 'resume', game: this.game, token: this.token, ...back }
            : { type: 'watch', game: this.game, ...back };
        let reply;
        try {
          reply = await this.request(conn, message);
        } catch (error) {
          lastProblem = `${message.type}: ${error.message}`;
          if (conn === this.conn) this.dropped(conn, 'timeout');
          break;
        }
        if (reply.type !== 'error') {
          this.ready = true;
          this.resignSentAt = 0;
          // Back from every drop since the last resume: a connection may be lost again (say,
          // closed with 1012 by a node that learnt of the owner's death) before it got back in.
          for (const drop of this.drops.filter((d) => d.resumedAt === null)) {
            drop.resumedAt = Date.now();
            drop.nodeAfter = this.node;
          }
          this.journal.log({ kind: 'back', client: this.name, game: this.game, seq: this.lastSeq, node: this.node });
          if (this.pending) this.sendMove(true);
          this.maybeMove();
          return;
        }
        this.journal.refusals.push({ client: this.name, game: this.game, what: message.type, code: reply.code, at: Date.now() });
        lastProblem = `${message.type}: ${reply.code}: ${reply.message}`;
        if (reply.code !== 'unavailable') this.journal.log({ kind: 'refused', client: this.name, what: lastProblem });
        if (Date.now() - since > this.resumeDeadlineMs) break;
        await sleep(wait);
      }
    }
  }

  since() {
    return this.lastSeq === null ? {} : { since: this.lastSeq };
  }

  // ---- what the server says ---------------------------------------------------------------
  onMessage(conn, m) {
    if (conn !== this.conn) return; // a connection given up: what it still says is not heard
    conn.lastHeard = Date.now();
    if ((m.type === 'created' || m.type === 'joined') && this.game === null) {
      Object.assign(this, { game: m.game, token: m.token, seat: m.seat });
      return;
    }
    if (m.game !== this.game) return;
    if (m.type === 'seat_lost') {
      this.journal.violation(this, `seat_lost on its own connection: ${JSON.stringify(m)}`);
      return;
    }
    if (m.type === 'state') {
      this.journal.log({ kind: 'state', client: this.name, game: m.game, seq: m.seq, ply: m.ply, node: this.node });
      if (this.lastSeq !== null && m.seq < this.lastSeq) {
        this.journal.violation(this, `state seq ${m.seq} below the last seq seen, ${this.lastSeq}`);
      }
      this.lastSeq = m.seq;
      this.view = { status: m.status, turn: m.turn, ply: m.ply, legal: m.legal };
      if (m.status === 'ended' || m.status === 'aborted') this.endedSeq ??= m.seq;
      this.maybeMove();
      return;
    }
    if (!GAME_EVENTS.has(m.type)) return;
    this.journal.events++;
    this.journal.log({ kind: 'event', client: this.name, game: m.game, seq: m.seq, type: m.type, ply: m.ply,
      move: m.move, node: this.node });
    if (m.id && this.moveIds.has(m.id) && this.lastSeq !== null && m.seq <= this.lastSeq) {
      return; // the answer to a re-sent move: its moved again (sendMove checks it)
    }
    if (this.lastSeq === null) {
      this.journal.violation(this, `event seq ${m.seq} before any state`);
    } else if (m.seq <= this.lastSeq) {
      this.journal.violation(this, `duplicate: ${m.type} seq ${m.seq} after seq ${this.lastSeq}`);
      return;
    } else if (m.seq > this.lastSeq + 1) {
      this.journal.violation(this, `gap: ${m.type} seq ${m.seq} after seq ${this.lastSeq}`);
    }
    this.lastSeq = m.seq;
    if (m.type === 'moved') {
      this.view = { ...this.view, turn: m.turn, ply: m.ply, legal: m.legal };
    } else if (m.type === 'ended') {
      this.view = { ...this.view, status: m.status, legal: [] };
      this.endedSeq = m.seq;
    }
    this.maybeMove();
  }

  // ---- playing ----------------------------------------------------------------------------
  myTurn() {
    return this.role === 'player' && this.view.status === 'playing' && this.view.turn === this.seat;
  }

  maybeMove() {
    if (!this.ready || this.pending || this.finished || this.scheduled || !this.myTurn()) return;
    this.scheduled = setTimeout(() => {
      this.scheduled = null;
      if (!this.ready || this.pending || this.finished || !this.myTurn()) return;
      if (this.mayFinish(this.view.ply)) {
        if (Date.now() - this.resignSentAt > 3000) {
          this.resignSentAt = Date.now();
          this.conn.send({ type: 'resign', game: this.game });
        }
        return;
      }
      const legal = this.view.legal;
      if (legal.length === 0) return;
      const move = legal[pick(`${this.game}/${this.view.ply}`, legal.length)];
      this.pending = { ply: this.view.ply, move, firstSentAt: Date.now(), sends: 0 };
      this.sendMove(false);
    }, this.thinkMs);
  }

  /** Sends the pending move (again, after a reconnect or a refusal: the same ply and move). */
  async sendMove(resent) {
    const pending = this.pending;
    const conn = this.conn;
    if (!pending || !conn || pending.inFlight) return;
    pending.inFlight = true;
    pending.sends++;
    const sentAt = Date.now();
    let reply;
    try {
      reply = await this.request(conn, { type: 'move', game: this.game, move: pending.move, ply: pending.ply },
        10000, this.moveIds);
    } catch (error) {
      pending.inFlight = false;
      // A connection that died is noticed by its close; one that answers nothing is dropped here.
      // Still pending: re-sent after the resume, or now if the resume came first.
      if (conn === this.conn && !conn.closed) this.dropped(conn, 'timeout');
      else if (this.ready && this.pending === pending && !this.finished) this.sendMove(true);
      return;
    }
    pending.inFlight = false;
    if (reply.type === 'moved') {
      if (reply.ply !== pending.ply + 1 || reply.move !== pending.move) {
        this.journal.violation(this, `move ${pending.move} at ply ${pending.ply} answered ${JSON.stringify(reply)}`);
      }
      this.journal.ack({ client: this.name, game: this.game, seq: reply.seq, ply: reply.ply, move: reply.move,
        sentAt, at: Date.now(), resent: resent || pending.sends > 1, node: this.node });
      this.pending = null;
      this.maybeMove();
      return;
    }
    this.journal.refusals.push({ client: this.name, game: this.game, what: 'move', code: reply.code, at: Date.now(),
      sentAt });
    if (reply.code === 'unavailable') {
      await sleep(200 + Math.random() * 300);
      if (this.pending === pending && this.ready && !this.finished) this.sendMove(true);
      return;
    }
    if (reply.code !== 'game_over') {
      this.journal.violation(this, `move ${pending.move} at ply ${pending.ply} refused: ${reply.code}: ${reply.message}`);
    }
    this.pending = null;
  }

  /** The game ended and this client saw its end. */
  done() {
    return this.endedSeq !== null;
  }

  async close() {
    this.finished = true;
    clearInterval(this.timer);
    clearTimeout(this.scheduled);
    const conn = this.conn;
    this.conn = null;
    if (conn && !conn.closed) {
      conn.ws.close();
      await Promise.race([conn.closedPromise, sleep(2000)]);
      conn.ws.terminate();
    }
  }
}
