// Limits that follow the client, not the connection (issue 38): a client is its address, and
// reconnecting refills nothing. Loopback clients are limited per connection (the operator's own
// tools), so these tests come as clients elsewhere, named by X-Forwarded-For from this machine,
// which the server trusts by default (--trusted-proxy).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startServer, Client } from './harness.mjs';
import { scrape, metric } from './prometheus.mjs';

let server;
before(async () => (server = await startServer({ args: ['--max-open-games', '3', '--max-creates-per-minute', '5', '--api-rate', '0.05', '--api-burst', '5'] })));
after(async () => assert.equal((await server.stop()).code, 0));

const from = (address) => ({ headers: { 'X-Forwarded-For': address } });

test('reconnect churn from one address hits --max-open-games: closing frees no place', async () => {
  // Connect, create until refused, close, repeat: per connection this made 14,000 games in 100 s.
  let created = 0;
  for (let round = 0; round < 3; round++) {
    const c = await Client.connect(server.url, 'Churn', from('203.0.113.10'));
    for (;;) {
      const reply = await c.request({ type: 'create', variant: 'chess' });
      if (reply.type === 'error') {
        assert.equal(reply.code, 'not_allowed');
        assert.match(reply.message, /your address already has 3 open games/);
        break;
      }
      created += 1;
    }
    c.ws.close();
    await c.closedPromise;
  }
  assert.equal(created, 3);
  // Another address, and another host of an IPv6 /64 than the first's, have their own.
  const other = await Client.connect(server.url, 'Other', from('203.0.113.11'));
  assert.equal((await other.request({ type: 'create', variant: 'chess' })).type, 'created');
  other.ws.close();
});

test('games created a minute are counted per address: joined games free places, not creates', async () => {
  const opponent = await Client.connect(server.url, 'Opponent');
  let created = 0;
  let refusal = null;
  for (let round = 0; round < 8 && !refusal; round++) {
    const c = await Client.connect(server.url, 'Maker', from('2001:db8:7:7::1'));
    const reply = await c.request({ type: 'create', variant: 'chess' });
    if (reply.type === 'error') {
      refusal = reply;
    } else {
      created += 1;
      await opponent.ok({ type: 'join', game: reply.game });
    }
    c.ws.close();
    await c.closedPromise;
  }
  assert.equal(created, 5);
  assert.equal(refusal?.code, 'rate_limited');
  assert.match(refusal.message, /created 5 games in the last minute/);
  // The same /64, another host in it: the same client.
  const neighbour = await Client.connect(server.url, 'Neighbour', from('2001:db8:7:7::99'));
  assert.equal((await neighbour.request({ type: 'create', variant: 'chess' })).code, 'rate_limited');
  neighbour.ws.close();
  opponent.ws.close();
});

test('the REST API answers a client over its rate 429 with Retry-After, others still 200', async () => {
  const statuses = [];
  let retryAfter = null;
  for (let i = 0; i < 8; i++) {
    const response = await fetch(`${server.http}/api/games?limit=1`, { headers: { 'X-Forwarded-For': '198.51.100.77' } });
    statuses.push(response.status);
    if (response.status === 429) retryAfter = response.headers.get('retry-after');
    await response.arrayBuffer();
  }
  assert.deepEqual(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
  assert.ok(statuses.slice(5).every((status) => status === 429), statuses.join(' '));
  assert.match(retryAfter ?? '', /^[1-9][0-9]*$/);
  const other = await fetch(`${server.http}/api/games?limit=1`, { headers: { 'X-Forwarded-For': '198.51.100.78' } });
  assert.equal(other.status, 200);
  assert.ok(metric(await scrape(server.http), 'arbiter_api_rate_limited_total') >= 3);
});

test("a browser page of another site cannot open the game socket; the server's own can", async () => {
  const refused = await new Promise((resolve) => {
    const ws = new WebSocket(server.url, { origin: 'https://evil.example' });
    ws.on('unexpected-response', (_request, response) => resolve(response.statusCode));
    ws.on('open', () => resolve('open'));
    ws.on('error', () => {});
  });
  assert.equal(refused, 403);
  const own = await Client.connect(server.url, null, { origin: `http://127.0.0.1:${server.port}` });
  assert.equal((await own.request({ type: 'ping' })).type, 'pong');
  own.ws.close();
  assert.equal(metric(await scrape(server.http), 'arbiter_origin_refusals_total'), 1);
});
