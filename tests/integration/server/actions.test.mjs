// Resign, draw, abort, takeback, claim, rematch and flag fall, each through a real server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame, play } from './harness.mjs';

let server;
// 3 s: the early claim below must reach the server inside the window even on a loaded machine
// (the window opens at the disconnect, before the presence event is stored and sent).
before(async () => (server = await startServer({ args: ['--disconnect-timeout', '3'] })));
after(async () => assert.equal((await server.stop()).code, 0));

async function pair() {
  return [await Client.connect(server.url, 'Ana'), await Client.connect(server.url, 'Bo')];
}

test('resign: the opponent wins', async () => {
  const [a, b] = await pair();
  const { game } = await startGame(a, b, { variant: 'chess' });
  await play(game, a, b, ['e2e4']);
  const ended = await b.ok({ type: 'resign', game });
  assert.equal(ended.type, 'ended');
  assert.equal(ended.result, '1-0');
  assert.equal(ended.reason, 'resign');
  assert.equal((await a.nextOf('ended')).result, '1-0');
  const again = await a.request({ type: 'resign', game });
  assert.equal(again.code, 'game_over');
});

test('draw: offer, decline, offer again, accept', async () => {
  const [a, b] = await pair();
  const { game } = await startGame(a, b, { variant: 'xiangqi' });
  const offer = await a.ok({ type: 'draw', game, action: 'offer' });
  assert.equal(offer.type, 'offer');
  assert.equal(offer.by, 'red');
  assert.equal((await b.nextOf('offer')).action, 'offer');
  const noOffer = await a.request({ type: 'draw', game, action: 'accept' });
  assert.equal(noOffer.code, 'no_offer', 'one cannot accept one\'s own offer');
  const declined = await b.ok({ type: 'draw', game, action: 'decline' });
  assert.equal(declined.action, 'decline');
  await a.ok({ type: 'draw', game, action: 'offer' });
  const ended = await b.ok({ type: 'draw', game, action: 'accept' });
  assert.equal(ended.type, 'ended');
  assert.equal(ended.result, '1/2-1/2');
  assert.equal(ended.reason, 'agreement');
});

test('abort: allowed until both sides moved, refused after', async () => {
  const [a, b] = await pair();
  const first = await startGame(a, b, { variant: 'draughts' });
  await play(first.game, a, b, ['21-17']);
  const aborted = await b.ok({ type: 'abort', game: first.game });
  assert.equal(aborted.type, 'ended');
  assert.equal(aborted.status, 'aborted');

  const second = await startGame(a, b, { variant: 'chess' });
  await play(second.game, a, b, ['e2e4', 'e7e5']);
  const refused = await a.request({ type: 'abort', game: second.game });
  assert.equal(refused.code, 'not_allowed');
});

test('takeback restores the position and both clocks exactly', async () => {
  const [a, b] = await pair();
  const { game } = await startGame(a, b, { variant: 'chess', clock: { initial_ms: 60000, increment_ms: 1000 } });
  await play(game, a, b, ['e2e4', 'e7e5']);
  const before = await a.ok({ type: 'move', game, move: 'g1f3', ply: 2 });
  await b.nextOf('moved', (m) => m.ply === 3);
  const offered = await a.ok({ type: 'takeback', game, action: 'offer' });
  assert.equal(offered.kind, 'takeback');
  await b.nextOf('offer', (m) => m.kind === 'takeback');
  const taken = await b.ok({ type: 'takeback', game, action: 'accept' });
  assert.equal(taken.type, 'takeback');
  assert.equal(taken.ply, 2);
  assert.equal(taken.turn, 'white');
  assert.equal(taken.position, 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2');
  // Clocks: back to what they were before g1f3 (the first two plies are not charged).
  assert.equal(taken.clock.white_ms, 60000);
  assert.equal(taken.clock.black_ms, 60000);
  assert.ok(before.clock.white_ms <= 61000);
  const record = await a.ok({ type: 'replay', game });
  assert.deepEqual(record.moves.map((m) => m.move), ['e2e4', 'e7e5']);
  // The game goes on from the restored position.
  await play(game, a, b, ['d2d4'], 2);
});

test('claim: after the opponent\'s disconnect timeout, the win can be claimed', async () => {
  const [a, b] = await pair();
  const { game } = await startGame(a, b, { variant: 'chess' });
  await play(game, a, b, ['e2e4', 'e7e5']);
  const early = await a.request({ type: 'claim', game, kind: 'win' });
  assert.equal(early.code, 'not_allowed', 'no claim while the opponent is connected');
  await b.close();
  const presence = await a.nextOf('presence', (m) => m.connected === false);
  assert.equal(presence.seat, 'black');
  const tooSoon = await a.request({ type: 'claim', game, kind: 'win' });
  assert.equal(tooSoon.code, 'not_allowed');
  assert.equal(presence.claim_after_ms, 3000);
  await new Promise((r) => setTimeout(r, presence.claim_after_ms + 100));
  const ended = await a.ok({ type: 'claim', game, kind: 'win' });
  assert.equal(ended.result, '1-0');
  assert.equal(ended.reason, 'abandoned');
});

test('claim: a player who comes back learns from the state when a claim opens', async () => {
  // The presence event told the window only to those connected then; a reload gets a state.
  const [a, b] = await pair();
  const { game, tokenA } = await startGame(a, b, { variant: 'chess' });
  await play(game, a, b, ['e2e4', 'e7e5']);
  await b.close();
  await a.nextOf('presence', (m) => m.connected === false);
  await a.close();
  const reloaded = await Client.connect(server.url, 'Ana');
  const state = await reloaded.ok({ type: 'resume', game, token: tokenA });
  const left = state.players.black.claim_after_ms;
  assert.ok(left > 0 && left <= 3000, `claim_after_ms in the state: ${left}`);
  assert.equal(state.players.white.claim_after_ms, undefined, 'white is here');
  assert.equal((await reloaded.request({ type: 'claim', game, kind: 'win' })).code, 'not_allowed');
  await new Promise((r) => setTimeout(r, left + 100));
  const later = await Client.connect(server.url, 'Ana');
  const open = await later.ok({ type: 'resume', game, token: tokenA });
  assert.equal(open.players.black.claim_after_ms, 0, 'the window is open');
  const ended = await later.ok({ type: 'claim', game, kind: 'win' });
  assert.equal(ended.reason, 'abandoned');
  await reloaded.close();
  await later.close();
});

test('rematch: both agree, seats swap, new tokens', async () => {
  const [a, b] = await pair();
  const { game, tokenA } = await startGame(a, b, { variant: 'chess' });
  await b.ok({ type: 'resign', game });
  await a.nextOf('ended');
  await a.ok({ type: 'rematch', game, action: 'offer' });
  await b.nextOf('offer', (m) => m.kind === 'rematch');
  await b.ok({ type: 'rematch', game, action: 'accept' });
  const event = await a.nextOf('rematch');
  const joinedA = await a.nextOf('joined', (m) => m.game === event.next);
  const joinedB = await b.nextOf('joined', (m) => m.game === event.next);
  assert.equal(joinedA.seat, 'black', 'seats swap');
  assert.equal(joinedB.seat, 'white');
  assert.notEqual(joinedA.token, tokenA);
  const state = await b.nextOf('state', (m) => m.game === event.next);
  assert.equal(state.status, 'playing');
  assert.equal(state.players.white.name, 'Bo');
  await play(event.next, b, a, ['d2d4', 'd7d5']);
});

test('flag fall: the side whose time runs out loses; against a bare king it is a draw', async () => {
  const [a, b] = await pair();
  const { game } = await startGame(a, b, { variant: 'chess', clock: { initial_ms: 400, increment_ms: 0 } });
  await play(game, a, b, ['e2e4', 'e7e5']);
  const ended = await a.nextOf('ended', () => true, 5000);
  assert.equal(ended.reason, 'timeout');
  assert.equal(ended.result, '0-1');

  const bare = await startGame(a, b, {
    variant: 'chess',
    position: '4k3/8/8/8/8/8/4P3/4K2Q w - - 0 1',
    clock: { initial_ms: 400, increment_ms: 0 },
  });
  // Black has a bare king: when White's flag falls Black cannot win, so it is a draw.
  await play(bare.game, a, b, ['h1h2', 'e8d7']);
  const drawn = await a.nextOf('ended', (m) => m.game === bare.game, 5000);
  assert.equal(drawn.reason, 'timeout');
  assert.equal(drawn.result, '1/2-1/2');
});

// protocol.md, Clocks: "The server flags a side itself when its time runs out". Its flag timer
// may run a little after that moment; a resignation that reached the server after it must not
// overtake the flag (a move does not either): the game is lost on time. One that came before stops
// the clocks as they stood when it arrived, with time left for the side to move.
test('a resignation that arrives after the opponent\'s time ran out does not overtake the flag', async () => {
  for (let round = 0; round < 8; round++) {
    const [a, b] = await pair();
    const { game } = await startGame(a, b, { variant: 'chess', clock: { initial_ms: 1, increment_ms: 0 } });
    await a.ok({ type: 'move', game, move: 'e2e4', ply: 0 });
    await b.ok({ type: 'move', game, move: 'e7e5', ply: 1 }); // White's 1 ms runs from here
    const reply = await b.request({ type: 'resign', game });
    const ended = reply.type === 'ended' ? reply : await b.nextOf('ended', (m) => m.game === game);
    const state = await b.ok({ type: 'watch', game });
    if (ended.reason === 'resign') {
      assert.equal(ended.result, '1-0');
      assert.ok(state.clock.white_ms > 0, `round ${round}: resigned after White's flag fell: ${JSON.stringify(state.clock)}`);
    } else {
      assert.equal(ended.reason, 'timeout', `round ${round}`);
      assert.equal(ended.result, '0-1');
      assert.equal(reply.code, 'game_over', `round ${round}: ${JSON.stringify(reply)}`);
      assert.equal(state.clock.white_ms, 0);
    }
    await a.close();
    await b.close();
  }
});

// protocol.md, Draws and takebacks: "A move clears the open draw and takeback offers"; one cannot
// answer one's own offer; offering what the opponent offers accepts it; after the end, "Moves and
// offers other than `rematch` are then refused with `game_over`".
test('offers: a move lapses them, the same offer twice is refused, crossing offers agree', async () => {
  const [a, b] = await pair();
  const watcher = await Client.connect(server.url, 'Watcher');
  const { game } = await startGame(a, b, { variant: 'chess' });
  await a.ok({ type: 'draw', game, action: 'offer' });
  assert.equal((await a.request({ type: 'draw', game, action: 'offer' })).code, 'not_allowed');
  assert.equal((await a.request({ type: 'draw', game, action: 'decline' })).code, 'no_offer');
  await play(game, a, b, ['e2e4']);
  assert.deepEqual((await watcher.ok({ type: 'watch', game })).offers, [], 'the move lapsed the offer');
  assert.equal((await b.request({ type: 'draw', game, action: 'accept' })).code, 'no_offer');
  await a.ok({ type: 'takeback', game, action: 'offer' });
  await play(game, b, a, ['e7e5'], 1);
  assert.equal((await b.request({ type: 'takeback', game, action: 'accept' })).code, 'no_offer');
  await b.ok({ type: 'draw', game, action: 'offer' });
  const agreed = await a.ok({ type: 'draw', game, action: 'offer' });
  assert.equal(agreed.type, 'ended', 'offering what the opponent offers accepts it');
  assert.equal(agreed.result, '1/2-1/2');
  assert.equal(agreed.reason, 'agreement');
  for (const request of [
    { type: 'move', game, move: 'g1f3', ply: 2 },
    { type: 'resign', game },
    { type: 'abort', game },
    { type: 'draw', game, action: 'offer' },
    { type: 'takeback', game, action: 'offer' },
    { type: 'claim', game, kind: 'win' },
  ]) {
    assert.equal((await a.request(request)).code, 'game_over', JSON.stringify(request));
  }
  const state = await watcher.ok({ type: 'watch', game });
  assert.deepEqual(state.moves, ['e2e4', 'e7e5']);
  assert.equal(state.reason, 'agreement');
  await Promise.all([a, b, watcher].map((c) => c.close()));
});

// protocol.md, Rematch: "either player may offer a rematch, and the other accept it". A game its
// creator aborted while it waited has no other player: an offer there could never be accepted,
// and would stay in `state.offers` for good. It is refused, and changes nothing.
test('a rematch offer in a game nobody joined is not_allowed and leaves no open offer', async () => {
  const a = await Client.connect(server.url, 'Ana');
  const { game } = await a.ok({ type: 'create', variant: 'xiangqi', side: 'first' });
  await a.nextOf('state', (m) => m.game === game);
  await a.ok({ type: 'abort', game });
  const offered = await a.request({ type: 'rematch', game, action: 'offer' });
  assert.equal(offered.code, 'not_allowed', `rematch offer with no opponent: ${JSON.stringify(offered)}`);
  const watcher = await Client.connect(server.url, 'Watcher');
  const state = await watcher.ok({ type: 'watch', game });
  assert.deepEqual(state.offers, []);
  assert.equal(state.players.black, null);
  await Promise.all([a.close(), watcher.close()]);
});
