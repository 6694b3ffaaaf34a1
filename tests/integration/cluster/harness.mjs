// The cluster's test rig (issue 43): in one temporary folder, a private PostgreSQL
// (arbiter-test-postgres), a redis-server, an nginx in front, and N arbiter-server nodes, every
// process on 127.0.0.1. Each part can be broken the way a machine breaks: a node killed (-9),
// frozen (SIGSTOP) and thawed, stopped (SIGTERM) and started again; Redis killed and started on
// its port; PostgreSQL stopped and started on its port. The nodes are started by the server
// tests' harness (../server/harness.mjs: ARBITER_SERVER names the binary).
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot, serverBinary, startServer } from '../server/harness.mjs';

export const postgresHelper =
  process.env.ARBITER_TEST_POSTGRES ?? path.join(repoRoot, 'build/debug-asan/bin/arbiter-test-postgres');
const NGINX = process.env.ARBITER_NGINX ?? 'nginx';
const REDIS = process.env.ARBITER_REDIS ?? 'redis-server';
const PSQL = process.env.ARBITER_PSQL ?? 'psql';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port nobody listens on now, on 127.0.0.1 (the kernel's pick). */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on `port`, or rejects after `ms`. */
async function waitForPort(port, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${what} does not listen on ${port} after ${ms} ms`);
    await sleep(25);
  }
}

/** Waits until `read()` matches `pattern` (up to `ms`); rejects with what it read otherwise. */
async function waitForText(read, pattern, ms, what) {
  const deadline = Date.now() + ms;
  while (!pattern.test(read())) {
    if (Date.now() > deadline) throw new Error(`${what}: no ${pattern} within ${ms} ms:\n${read().slice(-2000)}`);
    await sleep(20);
  }
}

/** Does this arbiter-server run as a cluster node (`--node-id`, `--bus`)? */
export function serverHasClusterFlags() {
  const help = spawnSync(serverBinary, ['--help'], { encoding: 'utf8' });
  return /--node-id/.test(help.stdout + help.stderr) && /--bus/.test(help.stdout + help.stderr);
}

// ---- PostgreSQL ----------------------------------------------------------------------------
/** The tests' PostgreSQL (tests/support/postgres_for_tests.cpp): its URI, down() and up() (the
 * same port and data), stop() (which deletes it). */
export async function startPostgres() {
  const proc = spawn(postgresHelper, [], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk) => (stdout += chunk));
  proc.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  proc.on('error', (error) => (stderr += String(error)));
  const read = () => stdout + stderr;
  await Promise.race([
    waitForText(read, /^postgresql-uri \S+$/m, 60000, 'arbiter-test-postgres'),
    exited.then((code) => {
      throw new Error(`arbiter-test-postgres exited with ${code}:\n${stderr}`);
    }),
  ]);
  const uri = stdout.match(/^postgresql-uri (\S+)$/m)[1];
  let answered = stdout.length;
  /** Writes `command` and waits for the helper's answer line. */
  async function ask(command, expected) {
    const from = answered;
    proc.stdin.write(`${command}\n`);
    const fresh = () => stdout.slice(from);
    await waitForText(fresh, new RegExp(`^(${expected}|start-failed.*)$`, 'm'), 60000, `postgres ${command}`);
    answered = stdout.length;
    const failed = fresh().match(/^start-failed (.*)$/m);
    if (failed) throw new Error(`PostgreSQL did not start again: ${failed[1]}`);
  }
  return {
    uri,
    port: Number(uri.match(/:(\d+)\//)[1]),
    /** Stops the server (fast shutdown); resolves once it is down. */
    down: () => ask('stop', 'stopped'),
    /** Starts it again on its port; resolves once it takes connections. */
    up: () => ask('start', 'started'),
    async stop() {
      proc.stdin.end();
      return exited;
    },
  };
}

/** Runs `statement` with psql on `uri`; resolves to its rows, each an array of text fields. */
export function sql(uri, statement, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    execFile(
      PSQL,
      ['-X', '-A', '-t', '-q', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-d', uri, '-c', statement],
      { timeout: timeoutMs, env: { ...process.env, PGCONNECT_TIMEOUT: '2' } },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`psql: ${stderr || error.message}`));
        resolve(stdout.split('\n').filter((line) => line !== '').map((line) => line.split('\t')));
      },
    );
  });
}

// ---- Redis ---------------------------------------------------------------------------------
/** A redis-server with no persistence on a port of its own: kill() and start() again on it. */
export async function startRedis(dir) {
  const port = await freePort();
  let proc = null;
  let exited = null;
  let log = '';
  const redis = {
    port,
    uri: `redis://127.0.0.1:${port}`,
    log: () => log,
    async start() {
      proc = spawn(
        REDIS,
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
          '--daemonize', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const mine = proc;
      exited = new Promise((resolve) => mine.on('exit', (code, signal) => resolve({ code, signal })));
      let text = '';
      mine.stdout.on('data', (chunk) => ((text += chunk), (log += chunk)));
      mine.stderr.on('data', (chunk) => (log += chunk));
      await Promise.race([
        waitForText(() => text, /Ready to accept connections/, 10000, 'redis-server'),
        exited.then((how) => {
          throw new Error(`redis-server exited (${JSON.stringify(how)}):\n${log}`);
        }),
      ]);
    },
    /** SIGKILL: Redis dies; what it held (only pub/sub subscriptions here) is gone. */
    async kill() {
      if (!proc) return;
      proc.kill('SIGKILL');
      await exited;
      proc = null;
    },
  };
  await redis.start();
  return redis;
}

// ---- nginx ---------------------------------------------------------------------------------
function nginxConfig(dir, port, upstreams) {
  const servers = upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n');
  // As root, nginx's workers would run as nobody, who cannot enter the test's private folder.
  const user = process.getuid?.() === 0 ? 'user root root;' : '';
  return `# generated by tests/integration/cluster/harness.mjs
${user}
daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log notice;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/nginx-client-body;
  proxy_temp_path ${dir}/nginx-proxy;
  fastcgi_temp_path ${dir}/nginx-fastcgi;
  uwsgi_temp_path ${dir}/nginx-uwsgi;
  scgi_temp_path ${dir}/nginx-scgi;
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  upstream arbiter {
    least_conn;
${servers}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://arbiter;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_connect_timeout 1s;
      # Clients ping; a node that says nothing for this long is gone (frozen).
      proxy_read_timeout 30s;
      proxy_send_timeout 30s;
      proxy_next_upstream error timeout;
      # Which node took the connection: the tests count viewers per node with it.
      add_header X-Arbiter-Upstream $upstream_addr always;
    }
  }
}
`;
}

/** nginx in front of `upstreams` (ports): least_conn, WebSocket upgrades, X-Forwarded-For. */
export async function startNginx(dir, upstreams) {
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  const errorLog = path.join(dir, 'nginx-error.log');
  writeFileSync(conf, nginxConfig(dir, port, upstreams));
  const proc = spawn(NGINX, ['-p', dir, '-c', conf, '-e', errorLog], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (chunk) => (output += chunk));
  proc.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const readLog = () => {
    try {
      return readFileSync(errorLog, 'utf8');
    } catch {
      return '';
    }
  };
  await Promise.race([
    waitForPort(port, 10000, 'nginx'),
    exited.then((how) => {
      throw new Error(`nginx exited (${JSON.stringify(how)}):\n${output}\n${readLog()}`);
    }),
  ]);
  return {
    port,
    url: `ws://127.0.0.1:${port}/ws`,
    http: `http://127.0.0.1:${port}`,
    log: readLog,
    /** New upstream ports (a node restarted on another port): a graceful reload; resolves once
     * the new worker runs. Connections on the old worker stay until they close. */
    async reload(ports) {
      // Done once the old worker has closed its listening socket ("gracefully shutting down"):
      // until then it may still take a new connection, for the old upstreams.
      const count = () => (readLog().match(/gracefully shutting down/g) ?? []).length;
      const before = count();
      writeFileSync(conf, nginxConfig(dir, port, ports));
      proc.kill('SIGHUP');
      await waitForText(() => String(count() > before), /true/, 10000, 'nginx reload');
    },
    async stop() {
      proc.kill('SIGQUIT');
      let timer;
      const late = new Promise((resolve) => (timer = setTimeout(resolve, 5000, 'late')));
      if ((await Promise.race([exited, late])) === 'late') {
        proc.kill('SIGKILL');
        await exited;
      }
      clearTimeout(timer);
    },
  };
}

// ---- the cluster ---------------------------------------------------------------------------
/**
 * Starts PostgreSQL, Redis, `nodes` servers and nginx in front of them. With `cluster` (default)
 * each server is a cluster node (`--node-id n1 ...`, lease `leaseTtlMs`); without it, one
 * ordinary server on PostgreSQL (a single node: two would refuse to share the database).
 */
export async function startCluster({
  nodes = 3,
  cluster = true,
  leaseTtlMs = 3000,
  heartbeatMs = 1000,
  sweepMs = 1000,
  extraArgs = [],
  logLevel = process.env.ARBITER_CLUSTER_LOG_LEVEL ?? 'warn',
} = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-cluster-'));
  const rig = { dir, nodes: new Map(), events: [] };
  try {
    rig.postgres = await startPostgres();
    rig.redis = await startRedis(dir);
    const ids = Array.from({ length: nodes }, (_, i) => `n${i + 1}`);
    // Every test client is 127.0.0.1: 300 of them pass the 256 connections one address may hold.
    const argsOf = (id) => [
      '--max-connections-per-address',
      '4096',
      '--sync',
      'normal',
      ...(cluster
        ? ['--node-id', id, '--bus', rig.redis.uri, '--lease-ttl-ms', String(leaseTtlMs), '--heartbeat-ms',
          String(heartbeatMs), '--sweep-ms', String(sweepMs)]
        : []),
      ...extraArgs,
    ];
    const launch = async (id) => {
      const server = await startServer({ db: rig.postgres.uri, args: argsOf(id), logLevel, webRoot: null });
      const node = { id, server, pid: server.proc.pid, port: server.port, state: 'up', stderrs: [] };
      rig.nodes.set(id, node);
      return node;
    };
    // One after another: nodes that start together race for the schema's first migration.
    for (const id of ids) await launch(id);
    rig.nginx = await startNginx(dir, [...rig.nodes.values()].map((n) => n.port));
    return Object.assign(rig, clusterControls(rig, launch));
  } catch (error) {
    await closeCluster(rig);
    throw error;
  }
}

function clusterControls(rig, launch) {
  const node = (id) => {
    const found = rig.nodes.get(id);
    if (!found) throw new Error(`no node ${id}`);
    return found;
  };
  const note = (what) => rig.events.push({ at: Date.now(), what });
  const exitOf = (n) => new Promise((resolve) => {
    if (n.server.proc.exitCode !== null || n.server.proc.signalCode !== null) {
      resolve({ code: n.server.proc.exitCode, signal: n.server.proc.signalCode });
    } else {
      n.server.proc.once('exit', (code, signal) => resolve({ code, signal }));
    }
  });
  return {
    url: rig.nginx.url,
    http: rig.nginx.http,
    ids: () => [...rig.nodes.keys()],
    node,
    /** psql on the cluster's database. */
    sql: (statement, timeoutMs) => sql(rig.postgres.uri, statement, timeoutMs),
    /** The node whose port nginx reports as `address` (X-Arbiter-Upstream: 127.0.0.1:PORT). */
    nodeAt(address) {
      const port = Number(String(address ?? '').split(':').pop());
      return [...rig.nodes.values()].find((n) => n.port === port)?.id ?? null;
    },
    async kill(id) {
      const n = node(id);
      note(`kill -9 ${id}`);
      n.server.proc.kill('SIGKILL');
      await exitOf(n);
      n.state = 'killed';
    },
    freeze(id) {
      note(`kill -STOP ${id}`);
      node(id).server.proc.kill('SIGSTOP');
      node(id).state = 'frozen';
    },
    thaw(id) {
      note(`kill -CONT ${id}`);
      node(id).server.proc.kill('SIGCONT');
      node(id).state = 'up';
    },
    /** SIGTERM; resolves to the exit ({code, signal}) within `ms`, else SIGKILL and an error. */
    async terminate(id, ms = 20000) {
      const n = node(id);
      note(`kill -TERM ${id}`);
      n.server.proc.kill('SIGTERM');
      let timer;
      const late = new Promise((resolve) => (timer = setTimeout(resolve, ms, 'late')));
      const result = await Promise.race([exitOf(n), late]);
      clearTimeout(timer);
      n.state = 'stopped';
      if (result === 'late') {
        n.server.proc.kill('SIGKILL');
        await exitOf(n);
        throw new Error(`node ${id} did not exit within ${ms} ms of SIGTERM:\n${n.server.stderr()}`);
      }
      return result;
    },
    /** Starts a dead node again under its id (a new port; nginx reloads). */
    async restart(id) {
      const old = node(id);
      if (old.state === 'up' || old.state === 'frozen') throw new Error(`node ${id} is running`);
      note(`start ${id}`);
      const earlier = [...old.stderrs, old.server.stderr()];
      const fresh = await launch(id);
      fresh.stderrs = earlier;
      await rig.nginx.reload([...rig.nodes.values()].map((n) => n.port));
      return fresh;
    },
    async redisDown() {
      note('redis kill -9');
      await rig.redis.kill();
    },
    async redisUp() {
      note('redis start');
      await rig.redis.start();
    },
    async postgresDown() {
      note('postgres stop');
      await rig.postgres.down();
    },
    async postgresUp() {
      note('postgres start');
      await rig.postgres.up();
    },
    /** Every node's stderr so far (earlier lives included), for a failure's report. */
    logs() {
      return [...rig.nodes.values()]
        .map((n) => `---- node ${n.id} (${n.state}) ----\n${[...n.stderrs, n.server.stderr()].join('\n[restart]\n')}`)
        .join('\n');
    },
    /** SIGTERM to every running node: [{id, code, signal}]. */
    stopNodes: () => stopNodes(rig),
    close: () => closeCluster(rig),
  };
}

/** SIGTERM to every running node (thawing frozen ones first); resolves to how each exited:
 * [{id, code, signal}] (code null and `error` for one that did not exit within 20 s). */
async function stopNodes(rig) {
  const stops = [];
  for (const n of rig.nodes.values()) {
    if (n.state === 'frozen') n.server.proc.kill('SIGCONT');
    if (n.state === 'up' || n.state === 'frozen') {
      stops.push(n.server.stop().then(
        (result) => ({ id: n.id, ...result }),
        (error) => ({ id: n.id, code: null, error: error.message.split('\n')[0] }),
      ));
    }
    n.state = 'stopped';
  }
  return Promise.all(stops);
}

/** Stops everything and deletes the folder. */
async function closeCluster(rig) {
  for (const exit of await stopNodes(rig)) {
    if (exit.code !== 0) console.error(`node ${exit.id} exited with ${JSON.stringify(exit)}`);
  }
  await rig.nginx?.stop();
  await rig.redis?.kill();
  await rig.postgres?.stop();
  if (process.env.ARBITER_KEEP_CLUSTER) console.error(`cluster folder kept: ${rig.dir}`);
  else rmSync(rig.dir, { recursive: true, force: true });
}
