// The game model applies the server's events as protocol.md describes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from './load.mjs';

const { applyEvent, fromState, validState } = await loadSource('model');

const STATE = {
  type: 'state', game: 'g1', seq: 4, variant: 'chess', status: 'playing', you: 'white',
  players: { white: { name: 'Ana', connected: true }, black: { name: 'Bo', connected: true } },
  initial_position: 'start', position: 'after e4 e5', moves: ['e2e4', 'e7e5'], notation: ['e4', 'e5'],
  ply: 2, turn: 'white', legal: ['g1f3'], check: false, clock: null, time_control: null,
  result: null, reason: null, offers: [], spectators: 0, rematch: null,
};

function playingChess(fields = {}) {
  return fromState({ ...STATE, ...fields });
}

test('a state names when a claim opens against a player who is away', () => {
  // A reload or a restart gets no presence event: without this the claim buttons were enabled at once.
  const before = Date.now();
  const model = playingChess({
    players: { white: { name: 'Ana', connected: true }, black: { name: 'Bo', connected: false, claim_after_ms: 45000 } },
  });
  assert.deepEqual(Object.keys(model.claimAt), ['black']);
  assert.ok(model.claimAt.black >= before + 45000 && model.claimAt.black <= Date.now() + 45000);
  assert.deepEqual(playingChess().claimAt, {}, 'nobody away, no claim');
});

test('an accepted takeback withdraws every open offer, as a move does', () => {
  // White offered a draw; black asked for a takeback, and white accepts it.
  const model = playingChess({ offers: [{ kind: 'draw', by: 'white' }, { kind: 'takeback', by: 'black' }] });
  const outcome = applyEvent(model, {
    type: 'takeback', game: 'g1', seq: 5, ply: 1, position: 'after e4', turn: 'black', legal: ['e7e5'], check: false, clock: null,
  });
  assert.equal(outcome, 'applied');
  assert.deepEqual(model.offers, [], 'protocol.md: an accepted takeback clears the open draw and takeback offers');
  assert.deepEqual(model.moves, ['e2e4']);
  assert.equal(model.turn, 'black');
});

test('a move withdraws the open draw and takeback offers', () => {
  const model = playingChess({ offers: [{ kind: 'draw', by: 'black' }] });
  applyEvent(model, { type: 'moved', game: 'g1', seq: 5, ply: 3, move: 'g1f3', notation: 'Nf3', position: 'p', turn: 'black', legal: [], check: false, clock: null });
  assert.deepEqual(model.offers, []);
});

test('events out of seq order are duplicates or gaps, and change nothing', () => {
  const model = playingChess();
  const moved = { type: 'moved', game: 'g1', ply: 3, move: 'g1f3', notation: 'Nf3', position: 'p', turn: 'black', legal: [], check: false, clock: null };
  assert.equal(applyEvent(model, { ...moved, seq: 4 }), 'duplicate');
  assert.equal(applyEvent(model, { ...moved, seq: 6 }), 'gap');
  assert.equal(model.ply, 2);
  assert.equal(applyEvent(model, { ...moved, seq: 5 }), 'applied');
  assert.equal(model.ply, 3);
});

test('a state the page cannot draw from is not valid; a whole one is', () => {
  assert.equal(validState(STATE), true);
  assert.equal(validState({ type: 'state', game: 'g1', seq: 99 }), false, 'a bare seq would hide every later event');
  assert.equal(validState({ ...STATE, moves: 'e2e4' }), false);
  assert.equal(validState({ ...STATE, legal: [1, 2] }), false);
  assert.equal(validState({ ...STATE, turn: null }), false);
  assert.equal(validState({ ...STATE, status: 'won' }), false);
  assert.equal(validState({ ...STATE, players: { white: { name: 5 }, black: null } }), false);
});

test('a malformed event is invalid and changes nothing, its seq included', () => {
  const model = playingChess();
  const before = JSON.stringify(model);
  const bad = [
    { type: 'moved', game: 'g1', seq: 5, ply: 3, move: 'g1f3', position: 'p', turn: 'black', legal: 'abc', clock: null },
    { type: 'moved', game: 'g1', seq: 5, ply: 3, position: 'p', turn: 'black', legal: [] },
    { type: 'takeback', game: 'g1', seq: 5, ply: 1, turn: 'black', legal: [] },
    { type: 'offer', game: 'g1', seq: 5, kind: '<i>x</i>', action: 'offer', by: 'white' },
    { type: 'presence', game: 'g1', seq: 5, seat: 'white' },
    { type: 'rematch', game: 'g1', seq: 5, next: 7 },
  ];
  for (const event of bad) assert.equal(applyEvent(model, event), 'invalid', JSON.stringify(event));
  assert.equal(JSON.stringify(model), before);
  // A presence event for a seat the game does not have changes no player.
  assert.equal(applyEvent(model, { type: 'presence', game: 'g1', seq: 5, seat: '__proto__', connected: false }), 'applied');
  assert.deepEqual(Object.keys(model.players).sort(), ['black', 'white']);
});

test('a rated game: the state says rated and its range; ended carries each seat\'s rating change', () => {
  const model = playingChess({
    rated: true,
    rating_range: { min: 1500, max: null },
    players: {
      white: { name: 'Ana', connected: true, guest: false, rating: { rating: 1500, provisional: true } },
      black: { name: 'Bo', connected: true, guest: false, rating: { rating: 1620, provisional: false } },
    },
  });
  assert.equal(model.rated, true);
  assert.deepEqual(model.rating_range, { min: 1500, max: null });
  assert.equal(model.ratings, null, 'no change before the end');
  applyEvent(model, {
    type: 'ended', game: 'g1', seq: 5, result: '1-0', reason: 'resign', status: 'ended',
    ratings: { white: { before: 1500, after: 1689, diff: 189, provisional: true }, black: { before: 1620, after: 1601, diff: -19, provisional: false } },
  });
  assert.deepEqual(model.ratings.white, { before: 1500, after: 1689, diff: 189, provisional: true });
  assert.equal(model.ratings.black.diff, -19);
  const casual = playingChess();
  assert.equal(casual.rated, false, 'a state without the field (an older server) is casual');
  applyEvent(casual, { type: 'ended', game: 'g1', seq: 5, result: '0-1', reason: 'resign', status: 'ended', ratings: null });
  assert.equal(casual.ratings, null);
});
