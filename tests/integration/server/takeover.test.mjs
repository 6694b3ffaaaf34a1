// A seat taken over by a `resume` on another connection (protocol.md, "seat_lost"): the connection
// that held it is told once, with no seq, and hears nothing more of the game unless it holds the
// other seat or watches; the others' event numbering is untouched; a `resume` with the token takes
// the seat back, and the connection that loses it then is told in turn. Each test starts its own
// server; the harness checks every message against the JSON Schemas (server.seat_lost included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startGame, withServer } from './harness.mjs';

/** The `seat_lost` that a connection which held `seat` of `game` gets when a resume elsewhere takes
 * it; `you` is what the connection still is in the game (the other seat, 'spectator' or null). */
function seatLost(game, seat, you) {
  return { type: 'seat_lost', game, seat, reason: 'resumed_elsewhere', you };
}

/** The game events of `game` (messages with a seq, other than a state) that `client` has
 * received, in order. */
function events(client, game) {
  return client.messages.filter((m) => m.game === game && m.seq !== undefined && m.type !== 'state');
}

/** Every message of `client` since a ping sent now has been answered: what it holds is all it
 * was sent before (the server answers a connection's requests in order). */
async function settle(client) {
  await client.ok({ type: 'ping' });
}

test('the connection whose seat a resume takes over is told, can no longer move, and takes it back', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenB, stateA } = await startGame(a, b, { variant: 'chess' });
    const c = await Client.connect(server.url, 'Bo again');

    const resumed = await c.ok({ type: 'resume', game, token: tokenB });
    assert.equal(resumed.you, 'black');
    const lost = await b.nextOf('seat_lost');
    assert.deepEqual(lost, seatLost(game, 'black', null));
    // Not a game event: the seq a state gives is the one before the takeover.
    assert.equal(resumed.seq, stateA.seq);

    const refused = await b.request({ type: 'move', game, move: 'e7e5', ply: 1 });
    await a.ok({ type: 'move', game, move: 'e2e4', ply: 0 });
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'forbidden', `the displaced connection moved: ${JSON.stringify(refused)}`);
    await c.nextOf('moved', (m) => m.ply === 1);
    const replied = await c.ok({ type: 'move', game, move: 'e7e5', ply: 1 });
    assert.equal(replied.type, 'moved');
    await a.nextOf('moved', (m) => m.ply === 2);
    await settle(b);
    assert.deepEqual(
      b.pending().filter((m) => m.game === game),
      [],
      'the displaced connection hears nothing more of the game',
    );
    assert.equal(b.messages.filter((m) => m.type === 'seat_lost').length, 1, 'told once');

    // Back on the first connection: the second is told in turn.
    const back = await b.ok({ type: 'resume', game, token: tokenB });
    assert.equal(back.type, 'state');
    assert.equal(back.you, 'black');
    assert.deepEqual(await c.nextOf('seat_lost'), seatLost(game, 'black', null));
    await a.ok({ type: 'move', game, move: 'g1f3', ply: 2 });
    assert.equal((await b.ok({ type: 'move', game, move: 'b8c6', ply: 3 })).type, 'moved');
    assert.equal((await c.request({ type: 'resign', game })).code, 'forbidden');
    await a.nextOf('moved', (m) => m.ply === 4);

    // The player who kept a seat throughout saw one event per change, seq by seq: the takeovers
    // neither took a number nor left a gap (their seat never went away, so no presence either).
    const seen = events(a, game).map((m) => [m.type, m.seq]);
    assert.deepEqual(seen, [
      ['moved', stateA.seq + 1],
      ['moved', stateA.seq + 2],
      ['moved', stateA.seq + 3],
      ['moved', stateA.seq + 4],
    ]);
    assert.equal(a.messages.filter((m) => m.type === 'seat_lost').length, 0, 'only the displaced one is told');
  });
});

test('a connection holding both seats that loses one keeps the other and still hears the game', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenA, tokenB } = await startGame(a, b, { variant: 'xiangqi' });
    const both = await Client.connect(server.url, 'Cy');
    await both.ok({ type: 'resume', game, token: tokenA });
    await both.ok({ type: 'resume', game, token: tokenB });
    // a and b lost their seats to `both`: each told, with the seat name of xiangqi.
    assert.deepEqual(await a.nextOf('seat_lost'), seatLost(game, 'red', null));
    assert.deepEqual(await b.nextOf('seat_lost'), seatLost(game, 'black', null));

    const c = await Client.connect(server.url, 'Dee');
    await c.ok({ type: 'resume', game, token: tokenB });
    assert.deepEqual(await both.nextOf('seat_lost'), seatLost(game, 'black', 'red'));
    // Still red: it moves for red, and hears black's move.
    assert.equal((await both.ok({ type: 'move', game, move: 'h3e3', ply: 0 })).type, 'moved');
    await c.nextOf('moved', (m) => m.ply === 1);
    const refused = await both.request({ type: 'move', game, move: 'h10g8', ply: 1 });
    assert.equal(refused.type, 'error', `moved for the seat it lost: ${JSON.stringify(refused)}`);
    assert.equal(refused.code, 'not_your_turn');
    await c.ok({ type: 'move', game, move: 'h10g8', ply: 1 });
    await both.nextOf('moved', (m) => m.ply === 2);

    // It takes black back: c is told, and no longer in the game.
    const back = await both.ok({ type: 'resume', game, token: tokenB, since: 0 });
    assert.equal(back.type, 'state');
    assert.deepEqual(await c.nextOf('seat_lost'), seatLost(game, 'black', null));
    assert.equal((await both.ok({ type: 'move', game, move: 'h1g3', ply: 2 })).type, 'moved');
    assert.equal((await both.ok({ type: 'move', game, move: 'b10c8', ply: 3 })).type, 'moved');
    await settle(c);
    assert.deepEqual(c.pending().filter((m) => m.game === game), [], 'c hears nothing more');
  });
});

test('a player who also watches its game and loses the seat is left a spectator', async () => {
  await withServer([], async (server) => {
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game, tokenA } = await startGame(a, b, { variant: 'draughts' });
    await a.ok({ type: 'watch', game });
    const a2 = await Client.connect(server.url, 'Ana');
    await a2.ok({ type: 'resume', game, token: tokenA });
    assert.deepEqual(await a.nextOf('seat_lost'), seatLost(game, 'white', 'spectator'));
    assert.equal((await a.request({ type: 'move', game, move: '22-18', ply: 0 })).code, 'forbidden');
    await a2.ok({ type: 'move', game, move: '22-18', ply: 0 });
    const heard = await a.nextOf('moved', (m) => m.game === game && m.ply === 1);
    assert.equal(heard.move, '22-18', 'the spectator still hears the game');
  });
});
