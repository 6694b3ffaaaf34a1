// TLS: with --tls-cert and --tls-key one port serves https:// and wss://. The certificate is made
// here (openssl CLI, self-signed for 127.0.0.1) and the clients trust exactly it (`ca`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startServer, Client, startGame } from './harness.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-tls-'));
const cert = path.join(dir, 'cert.pem');
const key = path.join(dir, 'key.pem');
const otherKey = path.join(dir, 'other-key.pem');

function makeCertificate(certFile, keyFile) {
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' });
}

function httpsGet(url, options) {
  return new Promise((resolve, reject) => {
    https
      .get(url, options, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body }));
      })
      .on('error', reject);
  });
}

let server;
let ca;
before(async () => {
  makeCertificate(cert, key);
  makeCertificate(path.join(dir, 'other-cert.pem'), otherKey);
  ca = readFileSync(cert);
  server = await startServer({ args: ['--tls-cert', cert, '--tls-key', key] });
});
after(async () => {
  assert.equal((await server.stop()).code, 0);
  rmSync(dir, { recursive: true, force: true });
});

test('https:// serves the REST API and /healthz with the test certificate', async () => {
  const health = await httpsGet(`https://127.0.0.1:${server.port}/healthz`, { ca });
  assert.equal(health.status, 200);
  assert.equal(health.body.trim(), 'ok');
  const games = await httpsGet(`https://127.0.0.1:${server.port}/api/games`, { ca });
  assert.equal(games.status, 200);
  assert.ok(Array.isArray(JSON.parse(games.body).games));
});

test('wss:// plays a game on the same port', async () => {
  const url = `wss://127.0.0.1:${server.port}/ws`;
  const a = await Client.connect(url, 'Ana', { ca });
  const b = await Client.connect(url, 'Bo', { ca });
  const { game } = await startGame(a, b, { variant: 'chess' });
  const moved = await a.ok({ type: 'move', game, move: 'e2e4', ply: 0 });
  assert.equal(moved.type, 'moved');
  await b.nextOf('moved', (m) => m.ply === 1);
  for (const c of [a, b]) await c.close();
});

test('a client that does not trust the certificate is refused by its own TLS check', async () => {
  await assert.rejects(httpsGet(`https://127.0.0.1:${server.port}/healthz`, {}), /self.signed|certificate/i);
});

test('plain ws:// and http:// get no game on the TLS port', async () => {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`);
  const outcome = await new Promise((resolve) => {
    ws.once('open', () => resolve('open'));
    ws.once('error', () => resolve('error'));
    ws.once('close', () => resolve('close'));
  });
  assert.notEqual(outcome, 'open');
  await assert.rejects(fetch(`http://127.0.0.1:${server.port}/healthz`));
  // The server is unharmed.
  assert.equal((await httpsGet(`https://127.0.0.1:${server.port}/healthz`, { ca })).status, 200);
});

test('a missing certificate or a key that does not match fails at start with a clear message', async () => {
  await assert.rejects(
    startServer({ args: ['--tls-cert', path.join(dir, 'missing.pem'), '--tls-key', key] }),
    /cannot load TLS certificate .*missing\.pem/,
  );
  await assert.rejects(
    startServer({ args: ['--tls-cert', cert, '--tls-key', otherKey] }),
    /cannot load TLS key .*other-key\.pem: key values mismatch|TLS key .*other-key\.pem does not match/,
  );
  await assert.rejects(startServer({ args: ['--tls-cert', cert] }), /--tls-cert and --tls-key go together/);
});
