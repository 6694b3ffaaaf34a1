// HTTP on the game port: REST API, export, health, metrics, static files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame, play } from './harness.mjs';

let server;
let finished;
before(async () => {
  server = await startServer();
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  ({ game: finished } = await startGame(a, b, { variant: 'chess' }));
  await play(finished, a, b, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  await a.nextOf('ended');
});
after(async () => assert.equal((await server.stop()).code, 0));

test('GET /healthz says the database is writable', async () => {
  const response = await fetch(`${server.http}/healthz`);
  assert.equal(response.status, 200);
});

test('GET /api/games lists stored games with filters', async () => {
  const all = await (await fetch(`${server.http}/api/games`)).json();
  assert.ok(all.games.some((g) => g.game === finished));
  const ended = await (await fetch(`${server.http}/api/games?status=ended&variant=chess&limit=5`)).json();
  assert.ok(ended.games.every((g) => g.status === 'ended' && g.variant === 'chess'));
  const bad = await fetch(`${server.http}/api/games?limit=0`);
  assert.equal(bad.status, 400);
});

test('GET /api/games/{id} gives the record; /export gives PGN', async () => {
  const record = await (await fetch(`${server.http}/api/games/${finished}`)).json();
  assert.deepEqual(record.moves.map((m) => m.move), ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  const pgn = await (await fetch(`${server.http}/api/games/${finished}/export`)).text();
  assert.match(pgn, /\[Result "0-1"\]/);
  assert.match(pgn, /1\. f3 e5 2\. g4 Qh4#/);
  assert.equal((await fetch(`${server.http}/api/games/nosuchgame`)).status, 404);
});

test('GET /metrics speaks Prometheus text', async () => {
  const text = await (await fetch(`${server.http}/metrics`)).text();
  assert.match(text, /arbiter_moves_accepted_total \d+/);
});

test('static files cannot escape the web root', async () => {
  const response = await fetch(`${server.http}/..%2f..%2fetc%2fpasswd`);
  assert.ok(response.status === 404 || response.status === 400);
});
