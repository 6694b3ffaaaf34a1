// Seats, members and replies at the edges: a resume or watch whose connection closes while the
// game is read back, watch/unwatch bookkeeping, a rematch whose offerer is away, a seat taken over
// by another connection, claims after a join, re-sends after a takeback, `since` replies, requests
// on a waiting game, and `connected` in listings. Each test starts its own server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame, play, withServer, claimUntilEnded, httpCall } from './harness.mjs';
import { scrape, metric, scrapeUntil, gamesInMemory } from './prometheus.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection that sends `messages` and drops at once (no close handshake), without waiting
 * for any answer: the server learns of the close while it may still be handling them. */
async function sendAndClose(url, messages) {
  const client = await Client.connect(url);
  for (const message of messages) client.send(message);
  client.ws.terminate();
  await client.closedPromise;
}

/** A chess game played to its end (a resignation) by two connections that then close. */
async function finishedGame(url) {
  const a = await Client.connect(url, 'Ana');
  const b = await Client.connect(url, 'Bo');
  const { game } = await startGame(a, b, { variant: 'chess' });
  await b.ok({ type: 'resign', game });
  await a.nextOf('ended', (m) => m.game === game);
  await a.close();
  await b.close();
  return game;
}

const ROUNDS = 5; // the close must land while the game is read back: a few rounds hit that window

test('a resume whose connection closes while the game is read back leaves no seat holder behind', async () => {
  await withServer(['--disconnect-timeout', '1'], async (server) => {
    const games = [];
    for (let i = 0; i < ROUNDS; i++) {
      const a = await Client.connect(server.url, 'Ana');
      const b = await Client.connect(server.url, 'Bo');
      const started = await startGame(a, b, { variant: 'chess' });
      await play(started.game, a, b, ['e2e4', 'e7e5']);
      await a.close();
      await b.close();
      games.push(started);
    }
    // An untimed game everyone left leaves memory after the disconnect timeout (protocol.md).
    await scrapeUntil(server.http, (now) => gamesInMemory(now, 'playing', 'chess') === 0, 'the games to leave memory');

    await Promise.all(
      games.map(async ({ game, tokenA, tokenB }, round) => {
        // Ana resumes and is gone before the game is back in memory.
        await sendAndClose(server.url, [{ type: 'resume', game, token: tokenA }]);
        const b2 = await Client.connect(server.url, 'Bo');
        const state = await b2.ok({ type: 'resume', game, token: tokenB });
        assert.equal(state.you, 'black');
        if (state.players.white.connected) {
          // Allowed only if the close is still on its way: then it is announced.
          const presence = await b2
            .nextOf('presence', (m) => m.game === game && m.seat === 'white' && m.connected === false, 1500)
            .catch(() => null);
          assert.ok(presence, `round ${round}: white's connection closed, yet its seat shows connected and no presence said otherwise`);
        }
        // Ana's connection is gone: after the disconnect timeout, Bo may claim.
        const claim = await claimUntilEnded(b2, game, 3000);
        assert.equal(claim.type, 'ended', `round ${round}: claim after the disconnect timeout: ${JSON.stringify(claim)}`);
        assert.equal(claim.reason, 'abandoned');
        assert.equal(claim.result, '0-1');
        await b2.close();
      }),
    );
  });
});

test('a watch whose connection closes while the game is read back leaves no spectator behind', async () => {
  await withServer(['--disconnect-timeout', '1'], async (server) => {
    // Twice the rounds, all at once: a finished game is read back fast, and the closes must win.
    const games = await Promise.all(
      Array.from({ length: 2 * ROUNDS }, () => finishedGame(server.url)),
    );
    await scrapeUntil(server.http, (now) => gamesInMemory(now, 'ended', 'chess') === 0, 'the finished games to leave memory');

    await Promise.all(games.map((game) => sendAndClose(server.url, [{ type: 'watch', game }])));
    // Nobody follows the finished games now: they leave memory again (protocol.md: a connection
    // that has moved on "does not hold a finished game in the server's memory"). Allowed: the
    // disconnect timeout and a margin. Looked at now (the watchers below take the games back into
    // memory), asserted after the spectator counts; not at once, since the reads may still be
    // under way (then no game is in memory yet).
    await sleep(1500);
    const now = await scrapeUntil(server.http, (now) => gamesInMemory(now, 'ended', 'chess') === 0, null, 1500);
    const left = gamesInMemory(now, 'ended', 'chess');
    await Promise.all(
      games.map(async (game, round) => {
        const watcher = await Client.connect(server.url, 'Watcher');
        const state = await watcher.ok({ type: 'watch', game });
        assert.equal(state.status, 'ended');
        if (state.spectators !== 1) {
          // Allowed only if the earlier watcher's close is still on its way: then the count follows.
          const count = await watcher
            .nextOf('spectators', (m) => m.game === game && m.count === 1, 1500)
            .catch(() => null);
          assert.ok(count, `game ${round}: the only watcher sees spectators=${state.spectators}`);
        }
        await watcher.close();
      }),
    );
    assert.equal(left, 0, `${left} of ${games.length} finished games whose only watcher left stay in memory`);
  });
});

test('watch, unwatch and close of a game, repeated, leave no connection counted in /metrics', async () => {
  await withServer(['--disconnect-timeout', '1'], async (server) => {
    const game = await finishedGame(server.url);
    for (let i = 0; i < 10; i++) {
      // Each round starts with the game out of memory if it left (the watch then reads it back).
      await scrapeUntil(server.http, (now) => gamesInMemory(now, 'ended', 'chess') === 0, null, 1500);
      await sendAndClose(server.url, [{ type: 'watch', game }, { type: 'unwatch', game }]);
    }
    // Every WebSocket is closed now: no role may count one.
    const roles = ['player', 'spectator', 'lobby', 'other'];
    const total = (now) => roles.reduce((sum, role) => sum + metric(now, 'arbiter_websocket_connections', { role }), 0);
    const now = await scrapeUntil(server.http, (now) => total(now) === 0, null, 3000);
    const counted = Object.fromEntries(roles.map((role) => [role, metric(now, 'arbiter_websocket_connections', { role })]));
    assert.equal(total(now), 0, `no WebSocket is open, yet arbiter_websocket_connections counts ${JSON.stringify(counted)}`);
  });
});

/** Ends a game of `a` (first seat) and `b` by b's resignation, and has `a` offer a rematch. */
async function rematchOffered(server) {
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  const started = await startGame(a, b, { variant: 'chess' });
  await b.ok({ type: 'resign', game: started.game });
  await a.nextOf('ended', (m) => m.game === started.game);
  await a.ok({ type: 'rematch', game: started.game, action: 'offer' });
  await b.nextOf('offer', (m) => m.game === started.game && m.kind === 'rematch');
  return { a, b, ...started };
}

/** Waits (up to 2 s) until a spectator's `state` of `game` shows `seat` disconnected: the server
 * has then handled that player's leaving. */
async function untilDisconnected(server, game, seat) {
  const observer = await Client.connect(server.url, 'Observer');
  const deadline = Date.now() + 2000;
  for (;;) {
    const state = await observer.ok({ type: 'watch', game });
    observer.send({ type: 'unwatch', game });
    if (!state.players[seat].connected || Date.now() > deadline) break;
    await sleep(50);
  }
  await observer.close();
}

/** No rematch was started: nobody heard a `rematch`, or was seated in a game other than `game`. */
function noRematchStarted(clients, game) {
  for (const client of clients) {
    const heard = client.messages.filter((m) => m.type === 'rematch' || (m.type === 'joined' && m.game !== game));
    assert.deepEqual(heard, [], 'no rematch was started');
  }
}

/** With `a` (back) in the old game, `b` accepts the rematch (`a` offers again if its offer went
 * with it); both get `joined` and `state` for the new game, seats swapped, and can play it. */
async function rematchGoesAhead(a, b, game, back) {
  if (!back.offers.some((o) => o.kind === 'rematch' && o.by === 'white')) {
    await a.ok({ type: 'rematch', game, action: 'offer' });
  }
  const event = await b.ok({ type: 'rematch', game, action: 'accept' });
  assert.equal(event.type, 'rematch', JSON.stringify(event));
  const { next } = event;
  assert.equal((await a.nextOf('rematch', (m) => m.game === game, 2000)).next, next);
  const joinedA = await a.nextOf('joined', (m) => m.game === next, 2000);
  const joinedB = await b.nextOf('joined', (m) => m.game === next, 2000);
  assert.equal(joinedA.seat, 'black', 'seats swap');
  assert.equal(joinedB.seat, 'white');
  await a.nextOf('state', (m) => m.game === next);
  await b.nextOf('state', (m) => m.game === next);
  await play(next, b, a, ['e2e4', 'e7e5']);
}

// protocol.md, Rematch: "The new seats go to the players' connections in the old game, so both
// must still be there: accepting the offer of a player who has left it (closed, or entered another
// game) is `not_allowed`" (and an error "means the request changed nothing"). Once the offerer is
// back (resume), the rematch goes ahead and the offerer gets its seat.
test('accepting the rematch of an offerer who disconnected is not_allowed; after its resume the rematch goes ahead', async () => {
  await withServer(['--disconnect-timeout', '1'], async (server) => {
    const { a, b, game, tokenA } = await rematchOffered(server);
    await a.close();
    await untilDisconnected(server, game, 'white');
    const refused = await b.request({ type: 'rematch', game, action: 'accept' });
    assert.equal(refused.code, 'not_allowed', `accepting the rematch of a player who left: ${JSON.stringify(refused)}`);
    await sleep(200);
    noRematchStarted([b], game);
    const a2 = await Client.connect(server.url, 'Ana');
    const back = await a2.ok({ type: 'resume', game, token: tokenA });
    assert.equal(back.rematch, null, 'no rematch game');
    await rematchGoesAhead(a2, b, game, back);
  });
});

test('accepting the rematch of an offerer who entered another game is not_allowed; after its resume the rematch goes ahead', async () => {
  await withServer(['--disconnect-timeout', '1'], async (server) => {
    const [x, y] = [await Client.connect(server.url, 'X'), await Client.connect(server.url, 'Y')];
    const other = await startGame(x, y, { variant: 'chess' });
    const { a, b, game, tokenA } = await rematchOffered(server);
    await a.ok({ type: 'watch', game: other.game });
    const refused = await b.request({ type: 'rematch', game, action: 'accept' });
    assert.equal(refused.code, 'not_allowed', `accepting the rematch of a player who moved on: ${JSON.stringify(refused)}`);
    await sleep(200);
    noRematchStarted([a, b], game);
    const back = await a.ok({ type: 'resume', game, token: tokenA });
    assert.equal(back.rematch, null, 'no rematch game');
    await rematchGoesAhead(a, b, game, back);
  });
});

// protocol.md, Seats and tokens: "`resume {game, token}` binds the seat to a new connection (the
// previous connection, if still open, loses it)", and "Everything else ... is `forbidden`".
test('after a resume on another connection, the first connection can no longer act for the seat', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenA } = await startGame(a, b, { variant: 'chess' });
    const a2 = await Client.connect(server.url, 'Ana');
    assert.equal((await a2.ok({ type: 'resume', game, token: tokenA })).you, 'white');
    const refused = await a.request({ type: 'move', game, move: 'e2e4', ply: 0 });
    assert.equal(refused.code, 'forbidden', `the old connection moved: ${JSON.stringify(refused)}`);
    const resign = await a.request({ type: 'resign', game });
    assert.equal(resign.code, 'forbidden', `the old connection resigned: ${JSON.stringify(resign)}`);
    await play(game, a2, b, ['e2e4', 'e7e5']);
  });
});

// protocol.md, Disconnects and claims: "A creator who left while the game waited is away from the
// moment someone joins: the joiner gets `presence {connected: false, claim_after_ms}` then, and the
// window counts from the join."
test('a joiner cannot claim at once because the creator left while the game was waiting', async () => {
  await withServer(['--disconnect-timeout', '3'], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const { game } = await a.ok({ type: 'create', variant: 'chess', side: 'first' });
    await a.nextOf('state', (m) => m.game === game);
    await a.close();
    const left = Date.now();
    await sleep(2400); // inside the creator's 3 s grace
    const b = await Client.connect(server.url, 'Bo');
    await b.ok({ type: 'join', game });
    const joinedAt = Date.now();
    assert.ok(joinedAt - left < 2900, `the join came ${joinedAt - left} ms after the creator left: too late for this test`);
    const state = await b.nextOf('state', (m) => m.game === game && m.status === 'playing');
    // Past the creator's first 3 s, well inside the 3 s that count from the join.
    await sleep(Math.max(0, left + 3400 - Date.now()));
    const early = await b.request({ type: 'claim', game, kind: 'win' });
    assert.equal(early.code, 'not_allowed', `a claim ${Date.now() - joinedAt} ms after the join: ${JSON.stringify(early)}`);
    assert.equal(state.players.white.connected, false, 'the creator is not connected');
    const presence = await b.nextOf('presence', (m) => m.game === game && m.seat === 'white', 1000).catch(() => null);
    assert.ok(presence, 'the joiner is told the creator is away');
    assert.equal(presence.connected, false);
    assert.equal(presence.claim_after_ms, 3000);
    // The game is not stuck either: a full timeout after the join, the claim is allowed.
    const claim = await claimUntilEnded(b, game, 4000);
    assert.equal(claim.type, 'ended', JSON.stringify(claim));
    assert.equal(claim.reason, 'abandoned');
    assert.ok(Date.now() - joinedAt >= 2900, `claimed ${Date.now() - joinedAt} ms after the join`);
  });
});

// protocol.md, move: "A `move` whose `ply` and `move` are those of the move already played at
// that ply ... is answered with that move's `moved` event again (same `seq`)".
test('after a takeback, re-sending the new move at that ply returns the new move\'s event', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'chess' });
    await play(game, a, b, ['e2e4']);
    await a.ok({ type: 'takeback', game, action: 'offer' });
    await b.nextOf('offer', (m) => m.kind === 'takeback');
    await b.ok({ type: 'takeback', game, action: 'accept' });
    await a.nextOf('takeback', (m) => m.game === game);
    const first = await a.ok({ type: 'move', game, move: 'd2d4', ply: 0 });
    await b.nextOf('moved', (m) => m.game === game && m.move === 'd2d4');
    const again = await a.request({ type: 'move', game, move: 'd2d4', ply: 0 });
    assert.equal(again.type, 'moved', JSON.stringify(again));
    assert.equal(again.move, 'd2d4', `the re-send answered with ${again.move}, seq ${again.seq}`);
    assert.equal(again.seq, first.seq);
    assert.equal(again.position, first.position);
    const record = await a.ok({ type: 'replay', game });
    assert.deepEqual(record.moves.map((m) => m.move), ['d2d4'], 'applied once');
  });
});

// protocol.md, watch, unwatch: "A player who also watches its own game keeps its seat after
// `unwatch`: only closing the connection (or a `resume` of the seat elsewhere) gives a seat up."
test('a player who watches and unwatches its own game keeps its seat', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'chess' });
    await a.request({ type: 'watch', game });
    a.send({ type: 'unwatch', game });
    const moved = await a.request({ type: 'move', game, move: 'e2e4', ply: 0 });
    assert.equal(moved.type, 'moved', `the player's move after unwatch: ${JSON.stringify(moved)}`);
    await b.nextOf('moved', (m) => m.game === game && m.ply === 1);
    const presence = b.messages.filter((m) => m.type === 'presence' && m.game === game);
    assert.deepEqual(presence, [], 'the opponent was told of no disconnect');
    await play(game, b, a, ['e7e5'], 1);
  });
});

// protocol.md, Events, seq and since: the missed events are "direct replies to the request, so the
// first echoes its `id`".
test('resume with since: the first replayed event echoes the request id', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenA } = await startGame(a, b, { variant: 'chess' });
    const last = await play(game, a, b, ['e2e4', 'e7e5']);
    const a2 = await Client.connect(server.url, 'Ana');
    a2.send({ type: 'resume', game, token: tokenA, since: last.seq - 1, id: 'since-1' });
    const first = await a2.next((m) => m.game === game, 3000);
    assert.equal(first.id, 'since-1', `the first answer: ${JSON.stringify(first)}`);
    if (first.type !== 'state') assert.equal(first.seq, last.seq, 'the first missed event');
  });
});

// protocol.md, Events, seq and since: a `state` "always for a timed game in play, whose clocks only
// a `state` gives as they are now".
test('resume with since of a timed game in play is answered with a state holding the clocks now', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenB } = await startGame(a, b, { variant: 'chess', clock: { initial_ms: 60000, increment_ms: 0 } });
    await play(game, a, b, ['e2e4', 'e7e5']);
    const last = await a.ok({ type: 'move', game, move: 'g1f3', ply: 2 });
    await sleep(1200); // black's clock runs (both sides have moved once)
    const b2 = await Client.connect(server.url, 'Bo');
    const reply = await b2.ok({ type: 'resume', game, token: tokenB, since: last.seq - 1 });
    assert.equal(reply.type, 'state', `a replayed event carries the clock of its time: ${JSON.stringify(reply)}`);
    assert.ok(reply.clock.running);
    assert.ok(reply.clock.black_ms <= last.clock.black_ms - 1000, `black ${reply.clock.black_ms} ms, at the move ${last.clock.black_ms}`);
  });
});

// protocol.md, Events, seq and since: "otherwise (also when N is the current `seq` and nothing was
// missed) it sends a `state`, which echoes the `id`".
test('watch with since equal to the current seq is answered with a state that echoes the id', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'chess' });
    const last = await play(game, a, b, ['e2e4', 'e7e5']);
    const w = await Client.connect(server.url, 'Watcher');
    const reply = await w.request({ type: 'watch', game, since: last.seq }, 2000).catch((e) => e);
    assert.ok(!(reply instanceof Error), `no reply to watch since=${last.seq} (the current seq)`);
    assert.equal(reply.type, 'state', JSON.stringify(reply));
    assert.equal(reply.seq, last.seq);
    assert.equal(reply.you, 'spectator');
    // And it follows the game from there.
    await play(game, a, b, ['g1f3'], 2);
    assert.equal((await w.nextOf('moved', (m) => m.game === game)).seq, last.seq + 1);
  });
});

test('resume with since equal to the current seq is answered, echoing the id', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenA } = await startGame(a, b, { variant: 'chess' });
    await play(game, a, b, ['e2e4', 'e7e5']);
    await a.close();
    const presence = await b.nextOf('presence', (m) => m.game === game && m.connected === false);
    const a2 = await Client.connect(server.url, 'Ana');
    const reply = await a2.request({ type: 'resume', game, token: tokenA, since: presence.seq }, 2000).catch((e) => e);
    assert.ok(!(reply instanceof Error), `no reply to resume since=${presence.seq} (the current seq)`);
    assert.equal(reply.type, 'state', JSON.stringify(reply));
    assert.equal(reply.you, 'white');
    assert.ok(reply.seq >= presence.seq, JSON.stringify(reply));
    await play(game, a2, b, ['g1f3'], 2);
  });
});

// protocol.md, Errors: `not_ready` is "the game has not started: a move, `resign`, `draw`,
// `takeback` or `claim` while it waits for an opponent (the creator cancels a waiting game with
// `abort`)", and an `error` "means the request changed nothing".
test('resign in a waiting game is not_ready and changes nothing', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const lobby = await Client.connect(server.url, 'Lobby');
    const { game } = await a.ok({ type: 'create', variant: 'chess', side: 'first' });
    await a.nextOf('state', (m) => m.game === game);
    const resign = await a.request({ type: 'resign', game });
    assert.equal(resign.code, 'not_ready', `resign while waiting: ${JSON.stringify(resign)}`);
    const state = await lobby.ok({ type: 'watch', game });
    assert.equal(state.status, 'waiting');
    assert.equal(state.result, null);
    const listed = await lobby.ok({ type: 'lobby' });
    assert.ok(listed.games.some((g) => g.game === game && g.status === 'waiting'), 'still in the lobby');
    // Still open to join.
    const b = await Client.connect(server.url, 'Bo');
    await b.ok({ type: 'join', game });
  });
});

test('draw and takeback offers in a waiting game are not_ready', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const { game } = await a.ok({ type: 'create', variant: 'chess', side: 'first' });
    await a.nextOf('state', (m) => m.game === game);
    for (const type of ['draw', 'takeback']) {
      const reply = await a.request({ type, game, action: 'offer' });
      assert.equal(reply.code, 'not_ready', `${type} offer while waiting: ${JSON.stringify(reply)}`);
    }
    const watched = await (await Client.connect(server.url)).ok({ type: 'watch', game });
    assert.equal(watched.status, 'waiting');
    assert.deepEqual(watched.offers, []);
  });
});

// protocol.md, Errors: `not_ready`: "a move, `resign`, `draw`, `takeback` or `claim` while it waits
// for an opponent"; `game_over` is only for "a game that has ended or was aborted".
test('claim in a waiting game is not_ready, not game_over', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const { game } = await a.ok({ type: 'create', variant: 'chess', side: 'first' });
    await a.nextOf('state', (m) => m.game === game);
    for (const kind of ['win', 'draw']) {
      const reply = await a.request({ type: 'claim', game, kind });
      assert.equal(reply.code, 'not_ready', `claim ${kind} while waiting: ${JSON.stringify(reply)}`);
    }
    const watched = await (await Client.connect(server.url)).ok({ type: 'watch', game });
    assert.equal(watched.status, 'waiting');
  });
});

// Item 10 of the review (a re-send in display notation, `e4` for `e2e4`) has no test: protocol.md
// says `move` is "the move in wire notation", so display notation is not part of the contract.

// protocol.md: a summary's and a record's `players` are as in `state`: `{"name", "connected"}`; a
// seat played by an engine "is always connected"; "`connected` is as of the answer" (here the game
// is in memory, so it is the players' connections).
test('games and replay show a live game\'s players as connected, and an engine seat always', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const observer = await Client.connect(server.url, 'Observer');
    const { game } = await startGame(a, b, { variant: 'chess' });
    await play(game, a, b, ['e2e4']);
    // Guests (issue 40): marked, and without a rating.
    const both = {
      white: { name: 'Ana', connected: true, guest: true, rating: null },
      black: { name: 'Bo', connected: true, guest: true, rating: null },
    };
    const replayed = (await observer.ok({ type: 'replay', game })).players;
    assert.deepEqual(replayed, both, `replay of a live game: ${JSON.stringify(replayed)}`);
    const listed = (await observer.ok({ type: 'games', status: 'playing' })).games.find((g) => g.game === game)?.players;
    assert.deepEqual(listed, both, `games, a live game: ${JSON.stringify(listed)}`);

    const engine = await a.ok({ type: 'create', variant: 'chess', side: 'first', opponent: { engine: 'builtin', level: 1 } });
    const engineSeat = (await observer.ok({ type: 'replay', game: engine.game })).players.black;
    assert.deepEqual(engineSeat, { name: 'Arbiter builtin (level 1)', connected: true, engine: true, guest: false, rating: null }, JSON.stringify(engineSeat));

    // And connected follows the connection.
    await b.close();
    await a.nextOf('presence', (m) => m.game === game && m.connected === false);
    const after = (await observer.ok({ type: 'replay', game })).players;
    assert.deepEqual(after, { ...both, black: { ...both.black, connected: false } }, JSON.stringify(after));
  });
});

// protocol.md, Seats and tokens: "Whoever holds the token holds the seat: `resume {game, token}`
// binds the seat to a new connection". A connection that resumed both seats (one player's device
// taking over both sides of a game) acts for each: it moves for the side to move, and answers an
// offer that its other seat made.
test('a connection holding both seats moves for the side to move and can answer either seat\'s offer', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenA, tokenB } = await startGame(a, b, { variant: 'chess' });
    const both = await Client.connect(server.url, 'Cy');
    await both.ok({ type: 'resume', game, token: tokenA });
    await both.ok({ type: 'resume', game, token: tokenB });
    for (const [ply, move] of ['e2e4', 'e7e5', 'g1f3', 'b8c6'].entries()) {
      const reply = await both.request({ type: 'move', game, move, ply });
      assert.equal(reply.type, 'moved', `ply ${ply} (${move}) by the holder of both seats: ${JSON.stringify(reply)}`);
    }
    const offer = await both.ok({ type: 'takeback', game, action: 'offer' });
    assert.equal(offer.by, 'white', 'an offer is made for the side to move');
    const taken = await both.request({ type: 'takeback', game, action: 'accept' });
    assert.equal(taken.type, 'takeback', `the other seat accepts: ${JSON.stringify(taken)}`);
    assert.equal(taken.ply, 2);
    const watcher = await Client.connect(server.url, 'Watcher');
    assert.deepEqual((await watcher.ok({ type: 'watch', game })).moves, ['e2e4', 'e7e5']);
  });
});

// protocol.md, spectators: the message names the watchers, those watching longest first, at most
// 50, marked guest unless signed in; a player who resumes hears them with its state; and the
// players still get at most four a second, however many watchers come.
test('spectators names the first 50 watchers, guests marked, at most four messages a second', async () => {
  await withServer([], async (server) => {
    const password = 'a long enough passphrase 41';
    const signedUp = await httpCall(server, 'POST', '/api/account', { body: { username: 'Vera', password } });
    assert.equal(signedUp.status, 201, signedUp.text);
    const session = await httpCall(server, 'POST', '/api/session', { body: { username: 'Vera', password } });
    assert.equal(session.status, 200, session.text);

    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenB } = await startGame(a, b, { variant: 'chess' });
    const vera = await Client.connect(server.url);
    await vera.request({ type: 'hello', name: 'ignored', token: session.json.token });
    await vera.ok({ type: 'watch', game });
    const started = Date.now();
    const guests = [];
    for (let i = 0; i < 54; ++i) {
      const guest = await Client.connect(server.url, `Watcher${i}`);
      await guest.ok({ type: 'watch', game });
      guests.push(guest);
    }
    const last = await a.nextOf('spectators', (m) => m.game === game && m.count === 55, 5000);
    const elapsed = Date.now() - started;
    assert.equal(last.watchers.length, 50);
    assert.deepEqual(last.watchers[0], { name: 'Vera', guest: false });
    assert.deepEqual(last.watchers[1], { name: 'Watcher0', guest: true });
    assert.equal(last.watchers[49].name, 'Watcher48');
    const sent = a.messages.filter((m) => m.type === 'spectators' && m.game === game).length;
    assert.ok(sent <= 4 * (elapsed / 1000) + 2, `${sent} spectators messages in ${elapsed} ms`);

    // Vera leaves: the count drops, the list moves up. (A count of 54 heard on the way up, before
    // the last watcher came, must not be taken for it.)
    a.discard((m) => m.type === 'spectators');
    await vera.close();
    const after = await a.nextOf('spectators', (m) => m.game === game && m.count === 54, 5000);
    assert.deepEqual(after.watchers[0], { name: 'Watcher0', guest: true });
    assert.equal(after.watchers[49].name, 'Watcher49');

    // Bo comes back on a new connection: the names come with its state.
    const back = await Client.connect(server.url, 'Bo');
    const state = await back.ok({ type: 'resume', game, token: tokenB });
    assert.equal(state.spectators, 54);
    const heard = await back.nextOf('spectators', (m) => m.game === game, 2000);
    assert.equal(heard.count, 54);
    assert.equal(heard.watchers.length, 50);
    await Promise.all([...guests, a, b, back].map((client) => client.close()));
  });
});
