// Races between a connection's close and what it (or its opponent) asked for just before: a
// `create` whose connection drops at once, a rematch accepted while the offerer's socket closes, a
// connection holding both seats that closes, timed games left before the clocks start, and the
// order of `rematch` and `joined`. Each test loops enough rounds to hit the window reliably on a
// server that has the race, and asserts only what protocol.md requires, so a server without it
// passes whichever way each round's race goes. Each test starts its own server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame, play, withServer, claimUntilEnded } from './harness.mjs';
import { scrapeUntil, gamesInMemory } from './prometheus.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const TIMEOUT_MS = 1000; // --disconnect-timeout 1
const MARGIN_MS = 2500; // allowed beyond the disconnect timeout (a debug ASan build is slow)
const STATUSES = ['waiting', 'playing', 'ended', 'aborted'];
const inMemory = (now, variant) => STATUSES.reduce((sum, status) => sum + gamesInMemory(now, status, variant), 0);
const byStatus = (now, variant) => Object.fromEntries(STATUSES.map((status) => [status, gamesInMemory(now, status, variant)]));

/** Connects, sends `create` and drops the connection without a close handshake: at once, or
 * (every other round) a millisecond later, so that the close lands at different points of the
 * game's creation. */
async function createAndDrop(url, round, create) {
  const client = await Client.connect(url, 'Ana');
  client.send({ type: 'create', variant: 'chess', side: 'first', ...create });
  if (round % 2) await sleep(1);
  client.ws.terminate();
  await client.closedPromise;
}

const CREATE_ROUNDS = 20;

// protocol.md, The lifecycle of a game, waiting: "When the creator's connection leaves and no
// `resume` brings them back within the disconnect timeout ..., the server aborts the game (reason
// `abandoned`): it leaves the lobby, and a `join` is `game_over`." A connection that closed while
// its `create` was still being handled has left too.
test('a waiting game whose creator closed right after create is aborted as abandoned and leaves the lobby', async () => {
  await withServer(['--disconnect-timeout', '1'], async (server) => {
    for (let i = 0; i < CREATE_ROUNDS; i++) await createAndDrop(server.url, i, {});
    const closed = Date.now();
    const w = await Client.connect(server.url, 'Watcher');
    let waiting;
    for (;;) {
      waiting = (await w.ok({ type: 'games', status: 'waiting', limit: 200 })).games.map((g) => g.game);
      if (waiting.length === 0 || Date.now() - closed > TIMEOUT_MS + MARGIN_MS) break;
      await sleep(100);
    }
    const stored = (await w.ok({ type: 'games', variant: 'chess', limit: 200 })).games;
    assert.ok(stored.length > 0, 'no create was handled: the rounds did not exercise the race');
    assert.equal(
      waiting.length,
      0,
      `${waiting.length} of ${stored.length} games whose creator closed at once still wait ` +
        `${Date.now() - closed} ms after the last close (disconnect timeout ${TIMEOUT_MS} ms)`,
    );
    const lobby = await w.ok({ type: 'lobby' });
    assert.deepEqual(lobby.games.map((g) => g.game), [], 'the lobby lists games whose creator left');
    for (const g of stored) {
      assert.equal(g.status, 'aborted', `${g.game}: ${JSON.stringify(g)}`);
      assert.equal(g.reason, 'abandoned', `${g.game}: ${JSON.stringify(g)}`);
      assert.equal(g.result, null);
    }
    // Aborted with nobody in it, each leaves memory too (looked at before the join below, which
    // reads one back).
    const now = await scrapeUntil(server.http, (now) => inMemory(now, 'chess') === 0, null, 2000);
    assert.equal(inMemory(now, 'chess'), 0, `abandoned games nobody is in stay in memory: ${JSON.stringify(byStatus(now, 'chess'))}`);
    const join = await w.request({ type: 'join', game: stored[0].game });
    assert.equal(join.code, 'game_over', `join of an abandoned game: ${JSON.stringify(join)}`);
  });
});

// protocol.md, The lifecycle of a game, playing: "An untimed game that every player and spectator
// has left leaves the server's memory after the disconnect timeout"; against the builtin engine the
// player is the only one in it (the engine seat is no connection).
test('a game against the engine whose player closed right after create leaves memory after the disconnect timeout', async () => {
  await withServer(['--disconnect-timeout', '1'], async (server) => {
    const vsEngine = { opponent: { engine: 'builtin', level: 1 } };
    for (let i = 0; i < CREATE_ROUNDS; i++) await createAndDrop(server.url, i, vsEngine);
    const closed = Date.now();
    const now = await scrapeUntil(server.http, (now) => inMemory(now, 'chess') === 0, null, TIMEOUT_MS + MARGIN_MS);
    const w = await Client.connect(server.url, 'Watcher');
    const stored = (await w.ok({ type: 'games', variant: 'chess', limit: 200 })).games;
    assert.ok(stored.length > 0, 'no create was handled: the rounds did not exercise the race');
    assert.equal(
      inMemory(now, 'chess'),
      0,
      `of ${stored.length} games against the engine whose player closed at once, ` +
        `${JSON.stringify(byStatus(now, 'chess'))} are in memory ${Date.now() - closed} ms after the last close ` +
        `(disconnect timeout ${TIMEOUT_MS} ms)`,
    );
    // Left memory, not lost: a watch brings one back as it was.
    const state = await w.ok({ type: 'watch', game: stored[0].game });
    assert.equal(state.status, 'playing');
    assert.equal(state.players.black.engine, true);
  });
});

// protocol.md, Rematch: "each player then gets `joined` for the new game, with the new seat and
// token"; the new seats "go to the players' connections in the old game". When the offerer's
// connection closes as the rematch is accepted, either the close comes first ("accepting the offer
// of a player who has left it ... is `not_allowed`", and nothing starts), or the new game is made
// and the offerer has left it like any player whose connection drops (Disconnects and claims):
// the opponent gets `presence {connected: false, claim_after_ms}` and may `claim` once the window
// has passed.
test('a rematch accepted while the offerer\'s connection closes: the offerer is away in the new game and can be claimed against', async () => {
  await withServer(['--disconnect-timeout', '1'], async (server) => {
    const WANTED = 8; // rounds in which the rematch is made
    const MAX_ROUNDS = 30;
    const tally = { rematch: 0, not_allowed: 0 };
    const checks = []; // one per round, run alongside the later rounds; each resolves to a problem or null
    let round = 0;
    for (; round < MAX_ROUNDS && tally.rematch < WANTED; round++) {
      const r = round;
      const a = await Client.connect(server.url, 'Ana');
      const b = await Client.connect(server.url, 'Bo');
      const { game } = await startGame(a, b, { variant: 'chess' });
      await b.ok({ type: 'resign', game });
      await a.ok({ type: 'rematch', game, action: 'offer' });
      await b.nextOf('offer', (m) => m.game === game && m.kind === 'rematch');
      // Three orders, so that the close lands before, with and after the accept.
      let accepted;
      if (r % 3 === 0) {
        accepted = b.request({ type: 'rematch', game, action: 'accept' });
        a.ws.terminate();
      } else if (r % 3 === 1) {
        a.ws.terminate();
        accepted = b.request({ type: 'rematch', game, action: 'accept' });
      } else {
        accepted = b.request({ type: 'rematch', game, action: 'accept' });
        await sleep(1);
        a.ws.terminate();
      }
      const reply = await accepted;
      const at = Date.now();
      if (reply.type === 'error') {
        assert.equal(reply.code, 'not_allowed', `round ${r}: accept while the offerer closes: ${JSON.stringify(reply)}`);
        tally.not_allowed++;
        checks.push(
          (async () => {
            // "An error means the request changed nothing": no rematch started.
            await sleep(300);
            const heard = b.messages.filter((m) => m.type === 'rematch' || (m.type === 'joined' && m.game !== game));
            await b.close();
            return heard.length ? `round ${r}: the refused accept started a rematch: ${JSON.stringify(heard)}` : null;
          })(),
        );
        continue;
      }
      assert.equal(reply.type, 'rematch', `round ${r}: ${JSON.stringify(reply)}`);
      tally.rematch++;
      const { next } = reply;
      checks.push(
        (async () => {
          const state = await b.nextOf('state', (m) => m.game === next, 3000);
          assert.equal(state.you, 'white', 'seats swap');
          const presence = await b
            .nextOf('presence', (m) => m.game === next && m.seat === 'black' && m.connected === false, TIMEOUT_MS + MARGIN_MS)
            .catch(() => null);
          const claim = await claimUntilEnded(b, next, TIMEOUT_MS + MARGIN_MS - (Date.now() - at));
          await b.close();
          const what =
            `round ${r}: new game ${next}, the offerer shown ${state.players.black.connected ? '' : 'not '}connected ` +
            `in Bo's state, presence ${JSON.stringify(presence)}, claim ${Date.now() - at} ms after the accept: ${JSON.stringify(claim)}`;
          if (!presence) return `no presence {connected: false} for the offerer: ${what}`;
          if (!(presence.claim_after_ms >= 0 && presence.claim_after_ms <= TIMEOUT_MS)) return `claim_after_ms: ${what}`;
          if (claim.type !== 'ended' || claim.reason !== 'abandoned' || claim.result !== '1-0') return `the claim did not end the game: ${what}`;
          return null;
        })().catch((error) => `round ${r}: ${error.message}`),
      );
    }
    const problems = (await Promise.all(checks)).filter((p) => p !== null);
    console.log(`rematch accepted as the offerer closes: ${round} rounds, ${JSON.stringify(tally)}`);
    assert.equal(problems.length, 0, `${problems.length} problems in ${round} rounds (${JSON.stringify(tally)}):\n${problems.join('\n')}`);
    assert.ok(tally.rematch >= WANTED, `only ${tally.rematch} of ${round} rounds made a rematch: too few to test the race`);
  });
});

// protocol.md, Game events, seq and since: `seq` "grows by exactly one per event", and "A `state`
// carries the game's `seq` as of that state". One connection holding both seats that closes is two
// players' connections dropping: two `presence` events, two seqs.
test('a connection holding both seats closes: two presence events with consecutive seqs, and state.seq is the last', async () => {
  await withServer([], async (server) => {
    for (let round = 0; round < 5; round++) {
      const a = await Client.connect(server.url, 'Ana');
      const b = await Client.connect(server.url, 'Bo');
      const { game, tokenA, tokenB } = await startGame(a, b, { variant: 'chess' });
      await play(game, a, b, ['e2e4']);
      const w = await Client.connect(server.url, 'Watcher');
      const watched = await w.ok({ type: 'watch', game });
      const c = await Client.connect(server.url, 'Cy');
      await c.ok({ type: 'resume', game, token: tokenA });
      await c.ok({ type: 'resume', game, token: tokenB });
      await a.close();
      await b.close();
      if (round % 2) c.ws.terminate();
      else c.ws.close();
      await c.closedPromise;
      const white = await w.nextOf('presence', (m) => m.game === game && m.seat === 'white' && m.connected === false);
      const black = await w.nextOf('presence', (m) => m.game === game && m.seat === 'black' && m.connected === false);
      const events = w.messages.filter((m) => m.game === game && m.type !== 'state' && m.seq !== undefined);
      const seqs = events.map((m) => m.seq);
      const expected = seqs.map((_, i) => watched.seq + 1 + i);
      assert.deepEqual(
        seqs,
        expected,
        `round ${round}: the watcher's events after its state (seq ${watched.seq}): ` +
          events.map((m) => `${m.seq}:${m.type}${m.seat ? ':' + m.seat : ''}`).join(' '),
      );
      assert.equal(Math.abs(white.seq - black.seq), 1, `round ${round}: presence seqs ${white.seq} and ${black.seq}`);
      const later = await Client.connect(server.url, 'Later');
      const after = await later.ok({ type: 'watch', game });
      assert.equal(after.seq, Math.max(white.seq, black.seq), `round ${round}: state.seq after both presence events`);
      assert.equal(after.players.white.connected, false);
      assert.equal(after.players.black.connected, false);
      await Promise.all([w.close(), later.close()]);
    }
  });
});

// protocol.md, The lifecycle of a game, playing: an untimed game everyone left "leaves the
// server's memory after the disconnect timeout"; "A timed game stays: its clock runs". Clocks:
// "`clock.running` is `false` until both sides have moved once": before that no clock runs, no flag
// can fall, and a timed game everyone left must leave memory like an untimed one (else it stays
// for ever).
test('timed games both players left before both sides moved leave memory after the disconnect timeout', async () => {
  await withServer(['--disconnect-timeout', '1'], async (server) => {
    const games = [];
    for (let round = 0; round < 6; round++) {
      const a = await Client.connect(server.url, 'Ana');
      const b = await Client.connect(server.url, 'Bo');
      const { game } = await startGame(a, b, { variant: 'chess', clock: { initial_ms: 60000, increment_ms: 0 } });
      const ply = round % 2; // no move, or white's first
      if (ply) await play(game, a, b, ['e2e4']);
      await a.close();
      if (round % 3 === 2) b.ws.terminate();
      else b.ws.close();
      await b.closedPromise;
      games.push({ game, ply });
    }
    const closed = Date.now();
    const now = await scrapeUntil(server.http, (now) => inMemory(now, 'chess') === 0, null, TIMEOUT_MS + MARGIN_MS);
    assert.equal(
      inMemory(now, 'chess'),
      0,
      `of ${games.length} timed games with no clock running that both players left, ` +
        `${JSON.stringify(byStatus(now, 'chess'))} are in memory ${Date.now() - closed} ms after the last close ` +
        `(disconnect timeout ${TIMEOUT_MS} ms)`,
    );
    // "the next resume or watch brings it back from storage as it was".
    const w = await Client.connect(server.url, 'Watcher');
    for (const { game, ply } of games.slice(0, 2)) {
      const state = await w.ok({ type: 'watch', game });
      assert.equal(state.status, 'playing', JSON.stringify(state));
      assert.equal(state.ply, ply);
      assert.equal(state.clock.running, false);
      w.send({ type: 'unwatch', game });
    }
    await w.close();
  });
});

// protocol.md, Rematch: "Everyone following the old game gets `rematch {game, seq, next}` ...;
// each player then gets `joined` for the new game, with the new seat and token, followed by its
// `state`."
test('each player gets the old game\'s rematch before joined and state of the new game', async () => {
  // The two games' rooms run on different network threads: with more threads than the default
  // two, the window opens far more often (about one player in four, against one in twenty).
  await withServer(['--threads', '8'], async (server) => {
    const BATCHES = 10;
    const PARALLEL = 10; // games at once: the load widens the window too
    const bad = [];
    let seen = 0;
    const round = async () => {
      const a = await Client.connect(server.url, 'Ana');
      const b = await Client.connect(server.url, 'Bo');
      const { game } = await startGame(a, b, { variant: 'chess' });
      await a.ok({ type: 'resign', game });
      await a.ok({ type: 'rematch', game, action: 'offer' });
      await b.nextOf('offer', (m) => m.game === game && m.kind === 'rematch');
      const { next } = await b.ok({ type: 'rematch', game, action: 'accept' });
      for (const [name, client] of [['Ana', a], ['Bo', b]]) {
        await client.nextOf('state', (m) => m.game === next);
        const order = client.messages
          .filter((m) => (m.type === 'rematch' && m.game === game) || (m.game === next && ['joined', 'state'].includes(m.type)))
          .map((m) => m.type);
        seen++;
        if (order.join(',') !== 'rematch,joined,state') bad.push(`${name}: ${order.join(',')}`);
      }
      await Promise.all([a.close(), b.close()]);
    };
    for (let i = 0; i < BATCHES; i++) await Promise.all(Array.from({ length: PARALLEL }, round));
    assert.equal(bad.length, 0, `${bad.length} of ${seen} players heard of the rematch in another order: ${bad.slice(0, 5).join('; ')}`);
  });
});

test('a refused request for a finished game out of memory does not keep it in memory', async () => {
  // A join of a finished game read it back from storage, was refused (game_over), and left the
  // game in memory with nobody in it, for good.
  await withServer(['--disconnect-timeout', '1'], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'chess' });
    await b.ok({ type: 'resign', game });
    await a.nextOf('ended', (m) => m.game === game);
    await a.close();
    await b.close();
    await scrapeUntil(server.http, (now) => inMemory(now, 'chess') === 0, 'the finished game to leave memory');
    const stranger = await Client.connect(server.url, 'Cy');
    assert.equal((await stranger.request({ type: 'join', game })).code, 'game_over');
    assert.equal((await stranger.request({ type: 'move', game, move: 'e2e4', ply: 0 })).code, 'forbidden');
    const now = await scrapeUntil(server.http, (now) => inMemory(now, 'chess') === 0, null, MARGIN_MS);
    assert.equal(inMemory(now, 'chess'), 0, `in memory after refused requests: ${JSON.stringify(byStatus(now, 'chess'))}`);
    await stranger.close();
  });
});

test('requests sent at once for a finished game out of memory are answered in the order sent, across its unloads', async () => {
  // protocol.md, Transport: "Requests from one connection are handled in the order they were
  // sent". Each refused request here leaves the game with nobody in it, so it leaves memory again
  // while later ones are on their way to it: those must not fall behind a still later request that
  // found the game gone and started bringing it back.
  await withServer(['--threads', '4', '--rate', '100000', '--burst', '100000'], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenA } = await startGame(a, b, { variant: 'chess' });
    await b.ok({ type: 'resign', game });
    await a.close();
    await b.close();
    const SENT = 150;
    for (let round = 0; round < 30; round++) {
      const c = await Client.connect(server.url, 'Ana');
      for (let i = 0; i < SENT; i++) c.send({ type: 'move', game, move: 'e2e4', ply: 0, id: `q${i}` });
      c.send({ type: 'resume', game, token: tokenA, id: 'resume' });
      c.send({ type: 'rematch', game, action: 'offer', id: 'offer' });
      const order = [];
      while (order.length < SENT + 2) {
        const reply = await c.next((m) => m.id !== undefined, 20000);
        order.push(reply.id);
        // Behind the resume the connection holds its seat: the offer is made (the first round) or
        // refused as made already, never `forbidden`.
        if (reply.id === 'offer') assert.notEqual(reply.code, 'forbidden', `round ${round}: the offer went before the resume`);
      }
      const expected = [...Array.from({ length: SENT }, (_, i) => `q${i}`), 'resume', 'offer'];
      assert.deepEqual(order, expected, `round ${round}: answered out of order`);
      await c.close();
    }
  });
});
