// Test harness: starts a real arbiter-server on 127.0.0.1 (ephemeral port, temporary database),
// connects WebSocket clients, and checks every server message against the JSON Schemas.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import Ajv2020 from 'ajv/dist/2020.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../../..');
export const serverBinary =
  process.env.ARBITER_SERVER ?? path.join(repoRoot, 'build/debug-asan/bin/arbiter-server');

// ---- schema validation of everything the server says ------------------------------------
let validateServer = null;
function loadSchemas() {
  const dir = path.join(repoRoot, 'schema/messages');
  if (!existsSync(dir)) throw new Error(`no JSON Schemas in ${dir}`);
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  let index = null;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const schema = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    ajv.addSchema(schema, schema.$id ?? file);
    if (file === 'server.schema.json') index = schema.$id ?? file;
  }
  if (!index) throw new Error('schema/messages/server.schema.json (the server index) is missing');
  validateServer = ajv.getSchema(index);
}
export function checkServerMessage(message) {
  if (!validateServer) loadSchemas();
  if (!validateServer(message)) {
    throw new Error(
      `server message breaks the schema: ${JSON.stringify(message)}\n` +
        JSON.stringify(validateServer.errors, null, 1),
    );
  }
}

// ---- server process -----------------------------------------------------------------------
/** Runs `use(dir)` with a fresh temporary folder, removed afterwards: for a database that must
 * outlive one server (startServer removes the folder it made when that server stops). */
export async function inTempFolder(use) {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-it-'));
  try {
    return await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `webRoot: null` starts the server without --web-root; `cwd` is its working directory; `env`
 * adds to (or overrides) the server's environment, say ASAN_OPTIONS for a test that reads RSS. */
export async function startServer({
  args = [],
  db = null,
  logLevel = 'warn',
  webRoot = path.join(repoRoot, 'client/web'),
  cwd = undefined,
  env = {},
} = {}) {
  const dir = db ? null : mkdtempSync(path.join(tmpdir(), 'arbiter-it-'));
  const database = db ?? path.join(dir, 'arbiter.db');
  const proc = spawn(
    serverBinary,
    ['--port', '0', '--db', database, '--log-level', logLevel, ...(webRoot === null ? [] : ['--web-root', webRoot]), ...args],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1', ...env } },
  );
  let stderr = '';
  proc.stderr.on('data', (chunk) => (stderr += chunk));
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stderr}`)), 30000);
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/listening on [\d.]+:(\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${stderr}`));
    });
  });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    port,
    database,
    proc,
    url: `ws://127.0.0.1:${port}/ws`,
    http: `http://127.0.0.1:${port}`,
    stderr: () => stderr,
    /** Waits until stderr matches `pattern` (up to `ms`), and returns it. The server writes its
     * start-up log lines before "listening on", but to another pipe: Node may deliver stdout's
     * line first, so a test that reads what start-up logged waits for it here. */
    async waitForLog(pattern, ms = 10000) {
      const deadline = Date.now() + ms;
      while (!pattern.test(stderr) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return stderr;
    },
    /** SIGTERM and wait: the server must exit 0, within 20 s (else SIGKILL and an error: a
     * shutdown that hangs fails here with the server's stderr, not as the suite's timeout). */
    async stop() {
      proc.kill('SIGTERM');
      let timer;
      const late = new Promise((resolve) => (timer = setTimeout(resolve, 20000, 'late')));
      const result = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (result === 'late') {
        proc.kill('SIGKILL');
        await exited;
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (result === 'late') throw new Error(`server did not exit within 20 s of SIGTERM:\n${stderr}`);
      if (result.code !== 0) console.error(`server exited with ${result.code}:\n${stderr}`);
      return result;
    },
    /** SIGKILL: no chance to flush anything. */
    async kill() {
      proc.kill('SIGKILL');
      return exited;
    },
    cleanup() {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---- client -------------------------------------------------------------------------------
let nextId = 1;
export class Client {
  /** `options` go to the `ws` constructor (e.g. `{ ca }` for wss:// with a test certificate). */
  static async connect(url, name = null, options = {}) {
    const client = new Client(url, options);
    await client.opened;
    if (name) await client.request({ type: 'hello', name });
    return client;
  }

  constructor(url, options = {}) {
    this.messages = []; // every message received, in order
    this.unread = []; // received and not yet taken by next()
    this.waiters = [];
    this.closed = null;
    this.ws = new WebSocket(url, options);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', resolve);
      this.ws.once('error', reject);
    });
    this.closedPromise = new Promise((resolve) => {
      this.ws.on('close', (code, reason) => {
        this.closed = { code, reason: reason.toString() };
        resolve(this.closed);
        this.wake();
      });
    });
    this.ws.on('message', (data, isBinary) => {
      if (isBinary) throw new Error('server sent a binary frame');
      const message = JSON.parse(data.toString());
      checkServerMessage(message);
      this.messages.push(message);
      this.unread.push(message);
      this.wake();
    });
  }

  wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  send(message) {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Takes the oldest unread message that matches `predicate` (others stay unread). */
  async next(predicate = () => true, timeoutMs = 10000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.unread.findIndex(predicate);
      if (i >= 0) return this.unread.splice(i, 1)[0];
      if (this.closed) throw new Error(`connection closed (${this.closed.code}) while waiting`);
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`timed out; received so far:\n${this.messages.map((m) => JSON.stringify(m)).join('\n')}`);
      }
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Next message of a type (skipping others). */
  nextOf(type, extra = () => true, timeoutMs) {
    return this.next((m) => m.type === type && extra(m), timeoutMs);
  }

  /** Sends with a fresh id and returns the reply carrying that id (reply or error). */
  async request(message, timeoutMs) {
    const id = `r${nextId++}`;
    this.send({ ...message, id });
    const reply = await this.next((m) => m.id === id, timeoutMs);
    return reply;
  }

  /** Like request(), but the reply must not be an error. */
  async ok(message, timeoutMs) {
    const reply = await this.request(message, timeoutMs);
    if (reply.type === 'error') throw new Error(`${message.type} refused: ${reply.code}: ${reply.message}`);
    return reply;
  }

  close() {
    this.ws.close();
    return this.closedPromise;
  }

  /** Drops the unread messages that match (say, counts a later wait must not take). */
  discard(predicate) {
    this.unread = this.unread.filter((m) => !predicate(m));
  }

  /** Messages received but not yet taken by next(). */
  pending() {
    return [...this.unread];
  }
}

/** Creates a game as `a` (first seat) and joins it as `b`; returns ids, tokens, and both states. */
export async function startGame(a, b, create) {
  const created = await a.ok({ type: 'create', side: 'first', ...create });
  await a.nextOf('state', (s) => s.game === created.game);
  const joined = await b.ok({ type: 'join', game: created.game });
  const stateA = await a.nextOf('state', (s) => s.game === created.game && s.status === 'playing');
  const stateB = await b.nextOf('state', (s) => s.game === created.game && s.status === 'playing');
  return { game: created.game, tokenA: created.token, tokenB: joined.token, seatA: created.seat, seatB: joined.seat, stateA, stateB };
}

/** Plays `moves` alternately starting with `first`; returns the last `moved` seen by the mover. */
export async function play(game, first, second, moves, startPly = 0) {
  let last = null;
  let [mover, other] = [first, second];
  for (let i = 0; i < moves.length; i++) {
    last = await mover.ok({ type: 'move', game, move: moves[i], ply: startPly + i });
    if (last.type !== 'moved') throw new Error(`expected moved, got ${JSON.stringify(last)}`);
    await other.nextOf('moved', (m) => m.game === game && m.ply === startPly + i + 1);
    [mover, other] = [other, mover];
  }
  return last;
}

/** Runs `use(server)` against a fresh server started with `args`, and stops it afterwards (it must
 * exit 0). */
export async function withServer(args, use) {
  const server = await startServer({ args });
  try {
    return await use(server);
  } finally {
    const result = await server.stop();
    if (result.code !== 0) throw new Error(`server exited with ${JSON.stringify(result)}`);
  }
}

/** Sends `claim` until it ends the game or `deadlineMs` passes; returns the last reply. A claim
 * that is too early is refused and changes nothing, so asking again is harmless. */
export async function claimUntilEnded(client, game, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const reply = await client.request({ type: 'claim', game, kind: 'win' });
    if (reply.type === 'ended' || Date.now() > deadline) return reply;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/**
 * One HTTP request to `server`: `body` is sent as JSON (a string as it is); answers the status,
 * the headers, the text and the JSON it parses to (null when it is not JSON).
 */
export async function httpCall(server, method, path, { body, headers = {} } = {}) {
  const response = await fetch(server.http + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Starts the tests' PostgreSQL: its URI, and stop() (which deletes it). */
export async function startPostgres() {
  const helper =
    process.env.ARBITER_TEST_POSTGRES ?? path.join(repoRoot, 'build/debug-asan/bin/arbiter-test-postgres');
  const proc = spawn(helper, [], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  const uri = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start:\n${stderr}`)), 60000);
    proc.on('error', reject);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`arbiter-test-postgres exited with ${code}:\n${stderr}`));
    });
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/^postgresql-uri (\S+)$/m);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  return {
    uri,
    /** Closes the helper's input: it stops the server and deletes its folder. */
    async stop() {
      proc.stdin.end();
      return exited;
    },
  };
}
