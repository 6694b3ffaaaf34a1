// Reconnects with `since`, duplicate moves, a SIGKILL right after acknowledged moves, one server
// per database, a stored game that no longer replays, a SIGTERM at once after start, and the
// check flag stored with each move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startServer, inTempFolder, Client, startGame, play } from './harness.mjs';

/** Runs one SQL statement on a stopped server's database file, with `args` bound to its `?`s, and
 * returns its rows (python3's sqlite3: Node 20 has no SQLite of its own). */
function sql(db, statement, ...args) {
  const run = spawnSync('python3', ['-c',
    'import json, sqlite3, sys; c = sqlite3.connect(sys.argv[1]); ' +
    'rows = c.execute(sys.argv[2], sys.argv[3:]).fetchall(); c.commit(); print(json.dumps(rows))',
    db, statement, ...args], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

test('resume with since replays exactly the missed events', async () => {
  const server = await startServer();
  try {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenB } = await startGame(a, b, { variant: 'chess' });
    const last = await play(game, a, b, ['e2e4', 'e7e5']);
    const seenSeq = last.seq;
    await b.close();
    await a.nextOf('presence', (m) => m.connected === false);
    await a.ok({ type: 'move', game, move: 'g1f3', ply: 2 });
    await a.ok({ type: 'draw', game, action: 'offer' });

    const b2 = await Client.connect(server.url, 'Bo');
    b2.send({ type: 'resume', game, token: tokenB, since: seenSeq });
    const replayed = [];
    for (;;) {
      const m = await b2.next((x) => x.game === game && x.seq !== undefined);
      replayed.push(m);
      if (m.type === 'offer') break;
    }
    assert.deepEqual(replayed.map((m) => m.type), ['presence', 'moved', 'offer']);
    assert.equal(replayed[1].move, 'g1f3');
    assert.deepEqual(replayed.map((m) => m.seq), [seenSeq + 1, seenSeq + 2, seenSeq + 3]);
    assert.ok(!b2.pending().some((m) => m.type === 'state'), 'no full state when events suffice');
    // The opponent is told of the return.
    assert.equal((await a.nextOf('presence', (m) => m.connected === true)).seat, 'black');

    // A since older than the kept history, or no since, gives a full state.
    const b3 = await Client.connect(server.url, 'Bo');
    const full = await b3.ok({ type: 'resume', game, token: tokenB });
    assert.equal(full.type, 'state');
    assert.equal(full.you, 'black');
    assert.deepEqual(full.moves, ['e2e4', 'e7e5', 'g1f3']);
  } finally {
    await server.stop();
  }
});

test('a duplicate move is applied once and answered like the first time', async () => {
  const server = await startServer();
  try {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'draughts' });
    const first = await a.ok({ type: 'move', game, move: '22-18', ply: 0 });
    const again = await a.request({ type: 'move', game, move: '22-18', ply: 0 });
    assert.equal(again.type, 'moved');
    assert.equal(again.seq, first.seq);
    assert.equal(again.ply, 1);
    const record = await a.ok({ type: 'replay', game });
    assert.deepEqual(record.moves.map((m) => m.move), ['22-18']);
    const stale = await a.request({ type: 'move', game, move: '21-17', ply: 0 });
    assert.equal(stale.code, 'stale_ply', 'a different move at a played ply is stale');
  } finally {
    await server.stop();
  }
});

test('a re-send of a move in the display notation the player typed (no check or mate mark) is answered with its moved again', async () => {
  // The server accepts "Qh5" for the move it writes "Qh5+"; a client that re-sends the text it
  // sent the first time (its answer lost with the connection) must get that move's event, not
  // stale_ply or game_over, which would tell it that its move did not count.
  const server = await startServer();
  try {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'chess' });
    await play(game, a, b, ['e2e4', 'f7f6']);
    const check = await a.ok({ type: 'move', game, move: 'Qh5', ply: 2 });
    assert.equal(check.notation, 'Qh5+');
    await b.nextOf('moved', (m) => m.game === game && m.ply === 3);
    const again = await a.request({ type: 'move', game, move: 'Qh5', ply: 2 });
    assert.equal(again.type, 'moved', JSON.stringify(again));
    assert.equal(again.seq, check.seq);

    // The mating move, typed without '#', re-sent from a new connection after a resume: the game
    // is over, and the answer is still the move's own event.
    const c = await Client.connect(server.url, 'Ana');
    const d = await Client.connect(server.url, 'Bo');
    const mate = await startGame(c, d, { variant: 'chess' });
    await play(mate.game, c, d, ['e2e4', 'e7e5', 'd1h5', 'b8c6', 'f1c4', 'g8f6']);
    const last = await c.ok({ type: 'move', game: mate.game, move: 'Qxf7', ply: 6 });
    assert.equal(last.notation, 'Qxf7#');
    await c.close();
    const c2 = await Client.connect(server.url, 'Ana');
    await c2.ok({ type: 'resume', game: mate.game, token: mate.tokenA });
    const resent = await c2.request({ type: 'move', game: mate.game, move: 'Qxf7', ply: 6 });
    assert.equal(resent.type, 'moved', JSON.stringify(resent));
    assert.equal(resent.seq, last.seq);
    assert.equal(resent.ply, 7);
  } finally {
    await server.stop();
  }
});

test('SIGKILL right after acknowledged moves loses none of them; the game goes on', async () => {
  const server = await startServer();
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game, tokenA, tokenB } = await startGame(a, b, { variant: 'xiangqi', clock: { initial_ms: 600000, increment_ms: 0 } });
  const moves = ['h3e3', 'h10g8', 'h1g3', 'i10h10'];
  await play(game, a, b, moves.slice(0, 3));
  // The last move is acknowledged to its mover; kill at once.
  const acked = await b.ok({ type: 'move', game, move: moves[3], ply: 3 });
  await server.kill();
  // The server stays down a while: that time must be charged to no one.
  await new Promise((r) => setTimeout(r, 2000));

  const restarted = Date.now();
  const again = await startServer({ db: server.database });
  try {
    const a2 = await Client.connect(again.url, 'Ana');
    const b2 = await Client.connect(again.url, 'Bo');
    const stateA = await a2.ok({ type: 'resume', game, token: tokenA });
    assert.deepEqual(stateA.moves, moves);
    assert.equal(stateA.status, 'playing');
    assert.equal(stateA.turn, 'red');
    // Black has not come back: away from the restart, and the state says when a claim opens.
    const away = stateA.players.black.claim_after_ms;
    assert.ok(away > 0 && away <= 60000, `black's claim_after_ms after the restart: ${away}`);
    assert.equal(stateA.players.red.claim_after_ms, undefined, 'red is here');
    assert.ok(acked.clock.running, 'the clocks run from ply 2');
    // Red's turn started when the game was restored, after the restart began: the 2 s the
    // server was down are not in what red was charged.
    const lost = acked.clock.red_ms - stateA.clock.red_ms;
    assert.ok(lost <= Date.now() - restarted + 20, `red was charged ${lost} ms for the server's downtime`);
    await b2.ok({ type: 'resume', game, token: tokenB });
    // Moves whose answers went down with the server are re-sent (protocol.md): each is answered
    // with its event as first sent (same seq, position, legal moves, clocks), rebuilt since the
    // restarted server never held it, and applied once.
    const withoutId = ({ id, ...rest }) => rest;
    const resent = await b2.request({ type: 'move', game, move: moves[3], ply: 3 });
    assert.deepEqual(withoutId(resent), withoutId(acked));
    const first = a.messages.find((m) => m.type === 'moved' && m.ply === 3);
    const older = await a2.request({ type: 'move', game, move: moves[2], ply: 2 });
    assert.deepEqual(withoutId(older), withoutId(first));
    assert.equal((await a2.request({ type: 'move', game, move: 'b1c3', ply: 2 })).code, 'stale_ply');
    await play(game, a2, b2, ['b1c3', 'b10c8'], 4);
  } finally {
    await again.stop();
    server.cleanup();
  }
});

test('open offers survive SIGKILL: listed after the restart, and the opponent can answer them', async () => {
  const server = await startServer();
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game, tokenA, tokenB } = await startGame(a, b, { variant: 'chess' });
  await play(game, a, b, ['e2e4', 'e7e5']);
  await a.ok({ type: 'draw', game, action: 'offer' });
  await b.ok({ type: 'takeback', game, action: 'offer' });
  await server.kill();

  const again = await startServer({ db: server.database });
  try {
    const a2 = await Client.connect(again.url, 'Ana');
    const b2 = await Client.connect(again.url, 'Bo');
    const open = [
      { kind: 'draw', by: 'white' },
      { kind: 'takeback', by: 'black' },
    ];
    assert.deepEqual((await a2.ok({ type: 'resume', game, token: tokenA })).offers, open);
    assert.deepEqual((await b2.ok({ type: 'resume', game, token: tokenB })).offers, open);
    const declined = await a2.ok({ type: 'takeback', game, action: 'decline' });
    assert.equal(declined.action, 'decline');
    assert.deepEqual((await b2.ok({ type: 'watch', game })).offers, [open[0]]);
    const ended = await b2.ok({ type: 'draw', game, action: 'accept' });
    assert.equal(ended.type, 'ended');
    assert.equal(ended.reason, 'agreement');
    assert.deepEqual((await a2.ok({ type: 'watch', game })).offers, []);
  } finally {
    await again.stop();
    server.cleanup();
  }
});

test('an offer to an engine that a stop left open is answered by the engine once the server is back', async () => {
  await inTempFolder(async (dir) => {
    const db = path.join(dir, 'arbiter.db');
    const first = await startServer({ db });
    const a = await Client.connect(first.url, 'Ana');
    const created = await a.ok({ type: 'create', variant: 'chess', side: 'first', opponent: { engine: 'builtin', level: 1 } });
    const game = created.game;
    await a.ok({ type: 'move', game, move: 'e2e4', ply: 0 });
    await a.nextOf('moved', (m) => m.game === game && m.ply === 2);
    await first.stop();
    // The engine declines an offer as soon as it is made: an open one is what a crash between
    // the offer's commit and that answer leaves behind.
    sql(db, "UPDATE games SET offers = 'draw:first' WHERE id = ?", game);

    const server = await startServer({ db });
    try {
      const a2 = await Client.connect(server.url, 'Ana');
      const state = await a2.ok({ type: 'resume', game, token: created.token });
      assert.deepEqual(state.offers, [], 'the engine declined the offer it found open');
      // Offering again is an offer (not "already made"), and is declined as usual.
      await a2.ok({ type: 'draw', game, action: 'offer' });
      const declined = await a2.nextOf('offer', (m) => m.game === game && m.action === 'decline');
      assert.equal(declined.by, 'black');
    } finally {
      await server.stop();
    }
  });
});

test('a second server on the same database refuses to start and says why; the first plays on', async () => {
  await inTempFolder(async (dir) => {
    const db = path.join(dir, 'arbiter.db');
    const server = await startServer({ db });
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'chess' });
    await assert.rejects(startServer({ db }), (error) => {
      assert.match(error.message, /exited with 1/);
      assert.match(error.message, /database_open_failed/);
      assert.match(error.message, /in use by another server \(process \d+\)/);
      return true;
    });
    await play(game, a, b, ['e2e4', 'e7e5']);
    await server.stop();
    // Stopped, it lets the next one in, with the game as it was.
    const next = await startServer({ db });
    try {
      const c = await Client.connect(next.url, 'Cy');
      const state = await c.ok({ type: 'watch', game });
      assert.deepEqual(state.moves, ['e2e4', 'e7e5']);
    } finally {
      await next.stop();
    }
  });
});

test('a stored game that does not replay is set aside at start; the other games go on', async () => {
  await inTempFolder(async (dir) => {
    const db = path.join(dir, 'arbiter.db');
    const first = await startServer({ db });
    const a = await Client.connect(first.url, 'Ana');
    const b = await Client.connect(first.url, 'Bo');
    const broken = await startGame(a, b, { variant: 'chess' });
    await play(broken.game, a, b, ['e2e4', 'e7e5']);
    const sound = await startGame(a, b, { variant: 'chess' });
    await play(sound.game, a, b, ['d2d4']);
    await first.stop();
    // By hand, as a bad edit or a rules fix that now refuses an old move would leave it.
    sql(db, "UPDATE moves SET move = 'e2e5' WHERE game_id = ? AND ply = 1", broken.game);

    const server = await startServer({ db, logLevel: 'info' });
    try {
      // server_started is start-up's last line: the restore's lines are in before it.
      const logged = await server.waitForLog(/server_started/);
      assert.match(logged, new RegExp(`game_not_restored.*${broken.game}.*e2e5`));
      assert.match(logged, /server_started.*games_restored=1 games_not_restored=1/);
      const a2 = await Client.connect(server.url, 'Ana');
      const b2 = await Client.connect(server.url, 'Bo');
      const state = await b2.ok({ type: 'resume', game: sound.game, token: sound.tokenB });
      assert.deepEqual(state.moves, ['d2d4']);
      await a2.ok({ type: 'resume', game: sound.game, token: sound.tokenA });
      await play(sound.game, b2, a2, ['d7d5'], 1);
      const refused = await a2.request({ type: 'resume', game: broken.game, token: broken.tokenA });
      assert.equal(refused.code, 'unavailable', JSON.stringify(refused));
    } finally {
      await server.stop();
    }
  });
});

test('SIGTERM as soon as the server says it listens is a clean shutdown', async () => {
  // Scripts take the "listening" line for "ready"; the signal handlers came only later, so a
  // SIGTERM right after it killed the server (15 of 20 times) without its shutdown.
  for (let i = 0; i < 5; i++) {
    const server = await startServer();
    const result = await server.stop();
    assert.equal(result.code, 0, `round ${i}: ${JSON.stringify(result)}`);
    assert.equal(result.signal, null);
  }
});

test('a clean stop charges the side to move the time it used on its turn before the stop', async () => {
  await inTempFolder(async (dir) => {
    const db = path.join(dir, 'arbiter.db');
    const server = await startServer({ db });
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'chess', clock: { initial_ms: 60000, increment_ms: 0 } });
    // White's clock runs from here (after the two untimed first moves).
    const last = await play(game, a, b, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
    const turnStarted = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await server.stop();
    const used = Date.now() - turnStarted;
    const next = await startServer({ db });
    try {
      const c = await Client.connect(next.url, 'Cy');
      const state = await c.ok({ type: 'watch', game });
      assert.equal(state.clock.black_ms, last.clock.black_ms, 'the side not to move keeps its time');
      // At least the 1.5 s White thought before the stop is gone; the time the server was down
      // (from the stop to the restart) is charged to no one.
      assert.ok(state.clock.white_ms <= last.clock.white_ms - 1500, JSON.stringify({ last: last.clock, now: state.clock }));
      assert.ok(state.clock.white_ms >= last.clock.white_ms - used - 2000, JSON.stringify({ last: last.clock, now: state.clock, used }));
    } finally {
      await next.stop();
    }
  });
});

test('after a crash, the side to move is charged up to the last event stored, here its going away', async () => {
  const server = await startServer();
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const { game } = await startGame(a, b, { variant: 'chess', clock: { initial_ms: 60000, increment_ms: 0 } });
  const last = await play(game, a, b, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  // White leaves after thinking 1.5 s; the event says so, with the clocks of that moment.
  await a.close();
  await b.nextOf('presence', (m) => m.game === game && m.connected === false);
  await server.kill();
  const again = await startServer({ db: server.database });
  try {
    const c = await Client.connect(again.url, 'Cy');
    const state = await c.ok({ type: 'watch', game });
    assert.equal(state.clock.black_ms, last.clock.black_ms);
    assert.ok(state.clock.white_ms <= last.clock.white_ms - 1500, JSON.stringify({ last: last.clock, now: state.clock }));
  } finally {
    await again.stop();
  }
});

// A move's check flag is stored with it (schema version 5), as its `moved` event said; a game
// whose rows keep none (stored before version 5) is played through for its replay's checks.
test('each move is stored with its check flag, and a game stored without them still replays its checks', async () => {
  await inTempFolder(async (dir) => {
    const db = path.join(dir, 'arbiter.db');
    // Plies 3 and 5 check (Qh5+, Qxg6+); the rest do not.
    const moves = ['e2e4', 'f7f6', 'd1h5', 'g7g6', 'h5g6', 'h7g6'];
    const first = await startServer({ db });
    let game;
    let moved;
    try {
      const a = await Client.connect(first.url, 'Ana');
      const b = await Client.connect(first.url, 'Bo');
      ({ game } = await startGame(a, b, { variant: 'chess' }));
      await play(game, a, b, moves);
      await a.ok({ type: 'resign', game });
      await b.nextOf('ended', (m) => m.game === game);
      moved = b.messages.filter((m) => m.type === 'moved' && m.game === game).map((m) => m.check);
      await Promise.all([a.close(), b.close()]);
    } finally {
      assert.equal((await first.stop()).code, 0);
    }
    assert.deepEqual(moved, [false, false, true, false, true, false]);
    // A clean stop files the journal: every move is in `moves`, with the flag its event carried.
    const stored = sql(db, 'SELECT in_check FROM moves WHERE game_id = ? ORDER BY ply', game).map(([flag]) => flag);
    assert.deepEqual(stored, moved.map((check) => (check ? 1 : 0)));
    // As a database from before version 5 keeps them: no flags.
    sql(db, 'UPDATE moves SET in_check = NULL WHERE game_id = ?', game);
    const again = await startServer({ db });
    try {
      const w = await Client.connect(again.url, 'Watcher');
      const record = await w.ok({ type: 'replay', game });
      assert.deepEqual(record.moves.map((m) => m.move), moves);
      assert.deepEqual(record.moves.map((m) => m.check), moved);
      await w.close();
    } finally {
      assert.equal((await again.stop()).code, 0);
    }
  });
});
