// What every node must know (issue 43, server/app/cluster_fanout.hpp): two cluster nodes on one
// private PostgreSQL (arbiter-test-postgres) and one redis-server, every process on 127.0.0.1.
// A player signs in over HTTP on node a and says hello with the token on node b: signed in. The
// name cannot be taken by a guest on b. A game created on a is in b's lobby, and leaves it once
// a player on b joins it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, httpCall as call, startServer, startPostgres } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const REDIS = process.env.ARBITER_REDIS ?? 'redis-server';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port nobody listens on now, on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** A redis-server without persistence in a temporary folder: its URI, and stop(). */
async function startRedis() {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-redis-'));
  const port = await freePort();
  const proc = spawn(
    REDIS,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  let log = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${log}`)), 10000);
    proc.stdout.on('data', (chunk) => {
      log += chunk;
      if (/Ready to accept connections/.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited:\n${log}`));
    });
  });
  return {
    uri: `redis://127.0.0.1:${port}`,
    async stop() {
      proc.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Retries `attempt` until it returns a value other than undefined, for up to `ms`. */
async function eventually(attempt, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

test('two nodes: a session, a name and a listing made on one are known on the other', async () => {
  const postgres = await startPostgres();
  const redis = await startRedis();
  const nodes = [];
  try {
    for (const id of ['node-a', 'node-b']) {
      nodes.push(
        await startServer({
          db: postgres.uri,
          args: ['--node-id', id, '--bus', redis.uri, '--password-cost', 'minimal', '--sync', 'normal'],
        }),
      );
    }
    const [a, b] = nodes;
    const created = await call(a, 'POST', '/api/account', { body: { username: 'Ann_F', password: PASSWORD } });
    assert.equal(created.status, 201, created.text);
    const session = await call(a, 'POST', '/api/session', { body: { username: 'Ann_F', password: PASSWORD } });
    assert.equal(session.status, 200, session.text);
    const token = session.json.token;

    // The token signs in on b: b heard of the session over Redis (a hop, not a restart).
    const ann = await eventually(
      async () => {
        const client = await Client.connect(b.url);
        const welcome = await client.request({ type: 'hello', name: 'Ann_F', token });
        if (welcome.type === 'welcome') return client;
        assert.equal(welcome.code, 'unauthorized');
        await client.close();
        return undefined;
      },
      5000,
      'the session signed in on node a is known on node b',
    );
    // The name is taken on b for a guest, whatever its case.
    const guest = await Client.connect(b.url);
    const refused = await guest.request({ type: 'hello', name: 'ann_f' });
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'name_taken');

    // A game created on a is listed in b's lobby, and leaves it when a player on b joins it.
    const host = await Client.connect(a.url, 'Hostess');
    const watcher = await Client.connect(b.url, 'Watcher');
    await watcher.ok({ type: 'lobby' });
    const open = await host.ok({ type: 'create', variant: 'chess', side: 'first' });
    const listed = await watcher.nextOf('lobby', (m) => m.games.some((g) => g.game === open.game), 5000);
    assert.equal(listed.games.find((g) => g.game === open.game).players.white.name, 'Hostess');
    const joined = await ann.ok({ type: 'join', game: open.game });
    assert.equal(joined.type, 'joined');
    await watcher.nextOf('lobby', (m) => !m.games.some((g) => g.game === open.game), 5000);

    // Signed out on a: the token no longer signs in on b.
    const out = await call(a, 'DELETE', '/api/session', { headers: { authorization: `Bearer ${token}` } });
    assert.ok(out.status === 200 || out.status === 204, out.text);
    await eventually(
      async () => {
        const client = await Client.connect(b.url);
        const reply = await client.request({ type: 'hello', name: 'Ann_F', token });
        await client.close();
        return reply.type === 'error' ? reply : undefined;
      },
      5000,
      'the session ended on node a is ended on node b',
    );
    for (const client of [ann, guest, host, watcher]) await client.close();
  } finally {
    for (const node of nodes.reverse()) {
      assert.equal((await node.stop()).code, 0, node.stderr());
    }
    await redis.stop();
    await postgres.stop();
  }
});
