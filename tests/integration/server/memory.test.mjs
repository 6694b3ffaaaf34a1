// One memory budget for the whole server (issue 38): connections that ask for `lobby` again and
// again and never read each stay under their own queue bound (4 MiB), yet together they took the
// server from 30 MB to 1.3 GB. With --max-outgoing-bytes the connections holding the most unsent
// bytes are closed (1013), players last, and a player on a connection that reads plays on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { startServer, Client, startGame } from './harness.mjs';
import { scrape, metric } from './prometheus.mjs';

const BUDGET = 8 << 20;
const STALLED = 100; // connections that flood and never read
const OPEN_GAMES = 100; // the lobby lists 100 at most
const PER_CONNECTION_BYTES = 3.5 * (1 << 20); // under --max-queue-bytes (4 MiB): no slow-consumer close
// Without the budget the stalled connections pin STALLED x 3.5 MiB = 350 MiB of lobby copies.
// With it, the budget (8 MiB), 64 KiB per stalled connection past it (each is closed at its next
// frame), and what ASan keeps around freed memory. Closing only at the sheds (a few times a
// second) let 93-135 MiB through on a loaded machine.
const RSS_GROWTH_BOUND = 64 << 20;

// Italian game, no castling and no capture: every move is legal and none ends the game.
const MOVES = ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'f8c5', 'b1c3', 'g8f6', 'd2d3', 'd7d6',
  'h2h3', 'h7h6', 'a2a3', 'a7a6', 'c1e3', 'c8e6', 'g2g3', 'g7g6', 'b2b3', 'b7b6'];

let server;
before(async () => {
  server = await startServer({
    args: ['--max-outgoing-bytes', String(BUDGET), '--rate', '100000', '--burst', '100000',
      '--max-open-games', String(OPEN_GAMES), '--max-creates-per-minute', '1000', '--idle-timeout', '120'],
    // ASan holds freed blocks in a quarantine (256 MB by default) before reusing them: RSS would
    // count every shed queue. A small one lets RSS show what is live.
    env: { ASAN_OPTIONS: 'detect_leaks=1:quarantine_size_mb=4' },
  });
});
after(async () => assert.equal((await server.stop()).code, 0));

function rssBytes(pid) {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(match[1]) * 1024;
}

// A masked client text frame (RFC 6455 section 5.2).
function textFrame(text) {
  const payload = Buffer.from(text);
  const header = payload.length < 126
    ? Buffer.from([0x81, 0x80 | payload.length])
    : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  const mask = crypto.randomBytes(4);
  const masked = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) masked[i] = payload[i] ^ mask[i % 4];
  return Buffer.concat([header, mask, masked]);
}

// A WebSocket connection that completes the handshake and then never reads again: what the
// server sends it fills the kernel's buffers, then the server's outgoing queue.
async function openStalled(port) {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {}); // a shed ends it with a reset
  const key = crypto.randomBytes(16).toString('base64');
  socket.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n` +
    `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  const head = await new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) {
        socket.off('data', onData);
        socket.pause();
        resolve(text);
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed during the handshake: ${text}`)));
  });
  assert.match(head, /^HTTP\/1\.1 101/);
  return socket;
}

test('connections flooding `lobby` without reading stay under the memory budget; a player plays on', async (t) => {
  const ana = await Client.connect(server.url, 'Ana');
  const bo = await Client.connect(server.url, 'Bo');
  const { game } = await startGame(ana, bo, { variant: 'chess' });

  // A long lobby: OPEN_GAMES waiting games by a creator with a long name.
  const filler = await Client.connect(server.url, 'A filler of the lobby, long name');
  for (let i = 0; i < OPEN_GAMES; i++) await filler.ok({ type: 'create', variant: 'xiangqi', private: false });
  const listBytes = JSON.stringify(await filler.ok({ type: 'lobby' })).length;
  assert.ok(listBytes > 20000, `the list is ${listBytes} bytes`);
  const perConnection = Math.floor(PER_CONNECTION_BYTES / listBytes);

  const baseline = rssBytes(server.proc.pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(server.proc.pid))), 20);
  try {
    const stalled = await Promise.all(Array.from({ length: STALLED }, () => openStalled(server.port)));
    let request = 0;
    for (const socket of stalled) {
      const frames = [];
      for (let i = 0; i < perConnection; i++) frames.push(textFrame(JSON.stringify({ type: 'lobby', id: `l${request++}` })));
      socket.write(Buffer.concat(frames));
    }
    // The player plays on throughout, on a connection that reads.
    const movers = [ana, bo];
    for (let ply = 0; ply < MOVES.length; ply++) {
      const moved = await movers[ply % 2].ok({ type: 'move', game, move: MOVES[ply], ply });
      assert.equal(moved.type, 'moved');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    peak = Math.max(peak, rssBytes(server.proc.pid));
    const metrics = await scrape(server.http);
    assert.ok(metric(metrics, 'arbiter_memory_sheds_total') > 0, 'no connection was shed');
    assert.ok(metric(metrics, 'arbiter_outgoing_queued_bytes') <= BUDGET);
    assert.equal(metric(metrics, 'arbiter_slow_consumer_closes_total'), 0, 'each flooder stayed under its own bound');
    for (const socket of stalled) socket.destroy();
  } finally {
    clearInterval(sampler);
  }
  const sheds = metric(await scrape(server.http), 'arbiter_memory_sheds_total');
  t.diagnostic(`list ${listBytes} bytes, ${perConnection} requests per connection; RSS ` +
    `${(baseline / (1 << 20)).toFixed(1)} MiB, peak +${((peak - baseline) / (1 << 20)).toFixed(1)} MiB; ${sheds} shed`);
  assert.ok(peak - baseline < RSS_GROWTH_BOUND,
    `RSS grew by ${((peak - baseline) / (1 << 20)).toFixed(1)} MiB (from ${(baseline / (1 << 20)).toFixed(1)} MiB)`);
  assert.equal(ana.closed, null, 'the players were not shed');
  assert.equal(bo.closed, null);
  const state = await ana.ok({ type: 'watch', game });
  assert.equal(state.moves.length, MOVES.length);
  for (const c of [ana, bo, filler]) await c.close();
});
