// A move whose commit fails (here: the database reached --max-db-bytes) is refused with
// `unavailable` and changes nothing: the room's game goes back to the position before it, the
// same move is refused the same way when sent again, and once the bound is lifted the game goes
// on from the stored position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, Client, startGame } from './harness.mjs';

/** Plays random legal moves (seeded) until a move is refused; returns that refusal and its move. */
async function playUntilRefused(server, variant) {
  let seed = 7;
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (;;) {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const created = await a.request({ type: 'create', variant, side: 'first' });
    if (created.type === 'error') {
      return { refusal: created };
    }
    await a.nextOf('state', (s) => s.game === created.game);
    const joined = await b.ok({ type: 'join', game: created.game });
    let state = await a.nextOf('state', (s) => s.game === created.game && s.status === 'playing');
    const players = { [created.seat]: a, [joined.seat]: b };
    let { legal, ply, turn } = state;
    while (legal.length > 0) {
      const move = legal[random(legal.length)];
      const reply = await players[turn].request({ type: 'move', game: created.game, move, ply });
      if (reply.type === 'error') {
        return { refusal: reply, game: created.game, move, ply, mover: players[turn], a, b, created, joined };
      }
      ({ legal, ply, turn } = reply);
    }
    await a.close();
    await b.close();
  }
}

test('a move that cannot be stored is refused and changes nothing', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-full-'));
  const db = path.join(dir, 'arbiter.db');
  try {
    // The empty database's size, then a bound a little above it.
    const empty = await startServer({ db });
    await empty.stop();
    const bound = statSync(db).size + 16 * 4096;
    const server = await startServer({ db, args: ['--max-db-bytes', String(bound), '--rate', '1000', '--burst', '1000'] });
    let found;
    try {
      found = await playUntilRefused(server, 'chess');
      assert.equal(found.refusal.code, 'unavailable', JSON.stringify(found.refusal));
      assert.match(found.refusal.message, /nothing was changed/);
      // The host is told why, at error level (the players only get `unavailable`). The log line
      // goes out before the refusal, but on another pipe: Node may deliver the refusal first.
      const log = await server.waitForLog(/storage_failed/);
      const logged = log.split('\n').filter((line) => line.includes('storage_failed'));
      assert.ok(logged.length >= 1, server.stderr());
      assert.match(logged[0], /error/);
      assert.match(logged[0], /full/i, logged[0]);
      // The health check says so too (it probes at most once a second), so that a load balancer
      // or Docker's HEALTHCHECK sees a server that refuses every move.
      let health;
      for (let attempt = 0; attempt < 30; attempt += 1) {
        health = await fetch(`${server.http}/healthz`);
        if (health.status === 503) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(health.status, 503, 'healthz at --max-db-bytes');
      if (found.game) {
        // Sent again: the same refusal, not "stale" or "illegal" (the room did not keep the move).
        const again = await found.mover.request({ type: 'move', game: found.game, move: found.move, ply: found.ply });
        assert.equal(again.type, 'error');
        assert.equal(again.code, 'unavailable', JSON.stringify(again));
        // What a reconnecting player sees is the stored game, without the refused move.
        const watcher = await Client.connect(server.url, 'Cy');
        const state = await watcher.ok({ type: 'watch', game: found.game });
        assert.equal(state.ply, found.ply);
        assert.ok(state.legal.includes(found.move), 'the refused move is still to be played');
        const stored = await (await fetch(`${server.http}/api/games/${found.game}`)).json();
        assert.deepEqual(stored.moves.map((m) => m.move), state.moves);
      }
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
    assert.ok(found.game, 'the bound was reached by a move, not by a create');
    // Without the bound, the game goes on from the stored position with the refused move.
    const again = await startServer({ db });
    try {
      const player = await Client.connect(again.url, 'Ana');
      const token = found.mover === found.a ? found.created.token : found.joined.token;
      const state = await player.ok({ type: 'resume', game: found.game, token });
      assert.equal(state.ply, found.ply);
      const moved = await player.ok({ type: 'move', game: found.game, move: found.move, ply: found.ply });
      assert.equal(moved.ply, found.ply + 1);
    } finally {
      assert.equal((await again.stop()).code, 0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// A create that cannot be stored is answered `unavailable` and leaves nothing behind: no game in
// memory, and the connection goes on being served. Before, it was never answered, and a phantom
// game stayed in memory, counted among its creator's open games.
test('a create that cannot be stored is answered unavailable and leaves nothing behind', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-full-'));
  const db = path.join(dir, 'arbiter.db');
  try {
    const empty = await startServer({ db });
    await empty.stop();
    const bound = statSync(db).size + 4 * 4096;
    const server = await startServer({
      db,
      args: ['--max-db-bytes', String(bound), '--rate', '1000', '--burst', '1000', '--max-open-games', '100000',
        '--max-creates-per-minute', '100000'],
    });
    try {
      const creator = await Client.connect(server.url, 'Ana');
      let created = 0;
      let refusal;
      for (let i = 0; i < 5000 && !refusal; i += 1) {
        const reply = await creator.request({ type: 'create', variant: 'chess', private: true }, 5000);
        if (reply.type === 'error') {
          refusal = reply;
        } else {
          created += 1;
        }
      }
      assert.ok(refusal, 'the bound was reached');
      assert.equal(refusal.code, 'unavailable', JSON.stringify(refusal));
      assert.match(refusal.message, /not created/);
      // Every game in memory is one that was created.
      const metrics = await (await fetch(`${server.http}/metrics`)).text();
      const inMemory = metrics
        .split('\n')
        .filter((line) => line.startsWith('arbiter_games_in_memory{'))
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
      assert.equal(inMemory, created, metrics);
      assert.equal((await creator.request({ type: 'ping' })).type, 'pong');
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
