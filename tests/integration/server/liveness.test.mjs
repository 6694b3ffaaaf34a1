// Liveness across a real network (protocol.md, "Liveness"): clients behind a user-space link
// (netlink.mjs) with delay, jitter, stalls and cuts. A cut link sends no FIN: the server finds the
// player gone from the silence alone, within its idle timeout, and the opponent hears it; the
// player comes back on a new connection with `resume` and `since`. The server runs with its
// default liveness flags (pings every 2 s, gone after 8 s of silence), so what is measured here
// is what a player gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, play, startGame, withServer } from './harness.mjs';
import { startLink } from './netlink.mjs';

const IDLE_TIMEOUT_MS = 8000; // the server's default --idle-timeout
// How long a test waits for the presence after a cut: the window plus slack for a loaded machine
// (ARBITER_CUT_WAIT_MS raises it, to measure a server without the liveness rule).
const CUT_WAIT_MS = Number(process.env.ARBITER_CUT_WAIT_MS ?? IDLE_TIMEOUT_MS + 4000);

/** The highest event seq of `game` that `client` has received (a state's included). */
function lastSeq(client, game) {
  return Math.max(...client.messages.filter((m) => m.game === game && m.seq !== undefined).map((m) => m.seq));
}

/** The game events of `game` (messages with a seq, other than a state) `client` received. */
function events(client, game) {
  return client.messages.filter((m) => m.game === game && m.seq !== undefined && m.type !== 'state');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('after a cut the opponent hears presence within the liveness window; resume with since gets every event once, in order', async () => {
  await withServer([], async (server) => {
    const link = await startLink(server.port, { delayMs: 25, jitterMs: 10 });
    try {
      const ana = await Client.connect(server.url, 'Ana');
      const bo = await Client.connect(link.url, 'Bo');
      const { game, tokenB } = await startGame(ana, bo, { variant: 'chess' });
      await play(game, ana, bo, ['e2e4', 'e7e5']);
      // Long enough for a few pings through the link: the connection is a healthy one when cut.
      await sleep(2500);
      const since = lastSeq(bo, game);

      link.cut();
      const cutAt = Date.now();
      const gone = await ana.nextOf('presence', (m) => m.game === game && !m.connected, CUT_WAIT_MS);
      const detected = Date.now() - cutAt;
      console.log(`cut -> opponent's presence {connected:false}: ${detected} ms`);
      assert.equal(gone.seat, 'black');
      assert.ok(detected <= IDLE_TIMEOUT_MS + 1000, `presence came ${detected} ms after the cut`);
      assert.ok(detected >= IDLE_TIMEOUT_MS - 2000 - 1000, `too soon for the silence rule: ${detected} ms`);

      // The game goes on meanwhile; then Bo comes back by another route.
      await ana.ok({ type: 'move', game, move: 'g1f3', ply: 2 });
      const backAt = Date.now();
      const bo2 = await Client.connect(link.url, 'Bo');
      const first = await bo2.ok({ type: 'resume', game, token: tokenB, since });
      assert.equal(first.seq, since + 1, 'the replay starts right after `since`');
      await ana.nextOf('presence', (m) => m.game === game && m.connected);
      console.log(`reconnect -> resumed and announced: ${Date.now() - backAt} ms`);
      await bo2.ok({ type: 'ping' });
      const replayed = events(bo2, game).map((m) => [m.seq, m.type, m.connected ?? m.ply]);
      assert.deepEqual(replayed, [
        [since + 1, 'presence', false],
        [since + 2, 'moved', 3],
        [since + 3, 'presence', true],
      ]);
      // And the seat works: Bo moves on the new connection.
      assert.equal((await bo2.ok({ type: 'move', game, move: 'b8c6', ply: 3 })).type, 'moved');
      await ana.nextOf('moved', (m) => m.game === game && m.ply === 4);
      await ana.close();
      await bo2.close();
    } finally {
      await link.close();
    }
  });
});

test('a move whose answer a cut lost is re-sent on a new connection and applied once', async () => {
  await withServer([], async (server) => {
    // 200 ms each way: the answer to Bo's move is still on its way back when Ana, on a direct
    // connection, already has the move; the cut then keeps the answer from Bo for good.
    const link = await startLink(server.port, { delayMs: 200 });
    try {
      const ana = await Client.connect(server.url, 'Ana');
      const bo = await Client.connect(link.url, 'Bo');
      const { game, tokenB } = await startGame(ana, bo, { variant: 'chess' });
      await play(game, ana, bo, ['e2e4']);
      bo.send({ type: 'move', game, move: 'e7e5', ply: 1, id: 'lost' });
      const applied = await ana.nextOf('moved', (m) => m.game === game && m.ply === 2);
      link.cut();
      await sleep(600);
      assert.ok(!bo.messages.some((m) => m.id === 'lost' || (m.type === 'moved' && m.ply === 2)), 'the answer was lost');

      // Bo comes back by another route and, not knowing whether the move counted, sends it again.
      const bo2 = await Client.connect(server.url, 'Bo');
      await bo2.ok({ type: 'resume', game, token: tokenB });
      const again = await bo2.ok({ type: 'move', game, move: 'e7e5', ply: 1 });
      assert.equal(again.type, 'moved', 'answered with the move already played');
      assert.equal(again.seq, applied.seq, 'the same event, not a second one');
      assert.equal(again.ply, 2);
      // Applied once: Ana saw one moved at ply 2, and white is to move at ply 2.
      assert.equal((await ana.ok({ type: 'move', game, move: 'g1f3', ply: 2 })).ply, 3);
      assert.equal(ana.messages.filter((m) => m.type === 'moved' && m.game === game && m.ply === 2).length, 1);
      await ana.close();
      await bo2.close();
    } finally {
      await link.close();
    }
  });
});

test('a resume that replaces a half-open connection tells the opponent: gone, then back', async () => {
  await withServer([], async (server) => {
    const link = await startLink(server.port, { delayMs: 25 });
    try {
      const ana = await Client.connect(server.url, 'Ana');
      const bo = await Client.connect(link.url, 'Bo');
      const { game, tokenB } = await startGame(ana, bo, { variant: 'chess' });
      await sleep(2500);
      link.cut();
      // Past one and a half ping periods of silence (unanswered pings), before the idle timeout.
      await sleep(4000);
      assert.deepEqual(events(ana, game), [], 'nothing told yet: the silence is shorter than the timeout');
      const bo2 = await Client.connect(link.url, 'Bo');
      await bo2.ok({ type: 'resume', game, token: tokenB, since: lastSeq(bo, game) });
      await ana.nextOf('presence', (m) => m.game === game && m.connected);
      const told = events(ana, game).map((m) => [m.type, m.seat, m.connected]);
      assert.deepEqual(told, [
        ['presence', 'black', false],
        ['presence', 'black', true],
      ]);
      // The half-open connection, dropped later for its silence, is told to nobody again.
      await sleep(IDLE_TIMEOUT_MS - 4000 + 1000);
      await ana.ok({ type: 'ping' });
      assert.equal(events(ana, game).length, 2);
      await ana.close();
      await bo2.close();
    } finally {
      await link.close();
    }
  });
});

test('a spectator behind a jittery, stalling link sees every move once and in order', async () => {
  await withServer([], async (server) => {
    const link = await startLink(server.port, { delayMs: 40, jitterMs: 80, stallRate: 0.1, stallMs: 400 });
    try {
      const ana = await Client.connect(server.url, 'Ana');
      const bo = await Client.connect(server.url, 'Bo');
      const { game } = await startGame(ana, bo, { variant: 'chess' });
      const watcher = await Client.connect(link.url, 'Watcher');
      await watcher.ok({ type: 'watch', game });
      const moves = ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1b5', 'a7a6', 'b5a4', 'g8f6', 'e1g1', 'f8e7',
        'f1e1', 'b7b5', 'a4b3', 'd7d6', 'c2c3', 'e8g8', 'h2h3', 'c6a5', 'b3c2', 'c7c5'];
      await play(game, ana, bo, moves);
      await watcher.nextOf('moved', (m) => m.game === game && m.ply === moves.length, 20000);
      await watcher.ok({ type: 'ping' });
      const seen = events(watcher, game).filter((m) => m.type === 'moved');
      assert.deepEqual(seen.map((m) => m.ply), moves.map((_, i) => i + 1));
      const seqs = seen.map((m) => m.seq);
      assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y));
      assert.equal(watcher.closed, null, 'a jittery link is no silence');
      await watcher.close();
      await ana.close();
      await bo.close();
    } finally {
      await link.close();
    }
  });
});
