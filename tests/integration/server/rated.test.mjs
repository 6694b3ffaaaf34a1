// Rated games (issue 40): seats bound to accounts, rated create and join with their refusals, the
// rating change in `ended` checked against a Glicko-2 computed here independently, ratings kept
// across a restart, and a seat resumed from a second connection signed in as the same player.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startServer } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const BLITZ = { initial_ms: 180000, increment_ms: 2000 }; // 180 s + 40 x 2 s = 260 s: blitz

// ---- Glicko-2 for one game (Glickman, "Example of the Glicko-2 system", 2013) --------------
const SCALE = 173.7178;
const TAU = 0.5;
const EPSILON = 0.000001;
const g = (phi) => 1 / Math.sqrt(1 + (3 * phi * phi) / (Math.PI * Math.PI));

function glicko2(player, opponent, score) {
  const mu = (player.rating - 1500) / SCALE;
  const phi = player.deviation / SCALE;
  const muJ = (opponent.rating - 1500) / SCALE;
  const phiJ = opponent.deviation / SCALE;
  const expected = 1 / (1 + Math.exp(-g(phiJ) * (mu - muJ)));
  const v = 1 / (g(phiJ) ** 2 * expected * (1 - expected));
  const delta = v * g(phiJ) * (score - expected);
  const a = Math.log(player.volatility ** 2);
  const f = (x) =>
    (Math.exp(x) * (delta ** 2 - phi ** 2 - v - Math.exp(x))) / (2 * (phi ** 2 + v + Math.exp(x)) ** 2) -
    (x - a) / TAU ** 2;
  let A = a;
  let B;
  if (delta ** 2 > phi ** 2 + v) {
    B = Math.log(delta ** 2 - phi ** 2 - v);
  } else {
    let k = 1;
    while (f(a - k * TAU) < 0) k += 1;
    B = a - k * TAU;
  }
  let fA = f(A);
  let fB = f(B);
  while (Math.abs(B - A) > EPSILON) {
    const C = A + ((A - B) * fA) / (fB - fA);
    const fC = f(C);
    if (fC * fB <= 0) {
      A = B;
      fA = fB;
    } else {
      fA /= 2;
    }
    B = C;
    fB = fC;
  }
  const sigma = Math.exp(A / 2);
  const phiStar = Math.sqrt(phi ** 2 + sigma ** 2);
  const newPhi = 1 / Math.sqrt(1 / phiStar ** 2 + 1 / v);
  const newMu = mu + newPhi ** 2 * g(phiJ) * (score - expected);
  return { rating: 1500 + SCALE * newMu, deviation: SCALE * newPhi, volatility: sigma };
}

const NEW_PLAYER = { rating: 1500, deviation: 350, volatility: 0.06 };

/** The `ended.ratings` entry of a player rated `before` who scored `score` against `opponent`. */
function expectedChange(before, opponent, score) {
  const after = glicko2(before, opponent, score);
  const shownBefore = Math.round(before.rating);
  const shownAfter = Math.round(after.rating);
  return {
    after,
    change: { before: shownBefore, after: shownAfter, diff: shownAfter - shownBefore, provisional: after.deviation > 110 },
  };
}

// ---- accounts and connections ----------------------------------------------------------------
/** GET /api/users/{name}: the profile (ratings per pool, won/drawn/lost). */
async function profileOf(server, name) {
  const response = await fetch(`${server.http}/api/users/${name}`);
  assert.equal(response.status, 200);
  return response.json();
}

async function post(server, path, body) {
  const response = await fetch(server.http + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json().catch(() => null) };
}

async function signUp(server, username) {
  assert.equal((await post(server, '/api/account', { username, password: PASSWORD })).status, 201);
  return signIn(server, username);
}

async function signIn(server, username) {
  const session = await post(server, '/api/session', { username, password: PASSWORD });
  assert.equal(session.status, 200);
  return session.json.token;
}

/** A connection signed in with `hello {"name", "token"}`. */
async function player(server, name, token) {
  const client = await Client.connect(server.url);
  await client.ok({ type: 'hello', name, token });
  return client;
}

async function createRated(client, extra = {}) {
  const created = await client.ok({ type: 'create', variant: 'chess', side: 'first', clock: BLITZ, rated: true, ...extra });
  const state = await client.nextOf('state', (s) => s.game === created.game);
  return { created, state };
}

/** `a` creates a rated game in `variant` (first seat) and `b` joins it; both states. */
async function startRated(a, b, variant) {
  const { created } = await createRated(a, { variant });
  await b.ok({ type: 'join', game: created.game });
  const stateA = await a.nextOf('state', (s) => s.game === created.game && s.status === 'playing');
  await b.nextOf('state', (s) => s.game === created.game && s.status === 'playing');
  return { game: created.game, token: created.token, state: stateA };
}

/** Plays the first legal move for each side in turn, `plies` times. */
async function playSome(game, first, second, legal, plies) {
  let [mover, other] = [first, second];
  for (let ply = 0; ply < plies; ply += 1) {
    const moved = await mover.ok({ type: 'move', game, move: legal[0], ply });
    await other.nextOf('moved', (m) => m.game === game && m.ply === ply + 1);
    legal = moved.legal;
    [mover, other] = [other, mover];
  }
}

const SEATS = { chess: ['white', 'black'], xiangqi: ['red', 'black'], draughts: ['white', 'black'] };

test('a rated game in each variant changes both ratings by Glicko-2, in ended and after a restart', async () => {
  const first = await startServer({ args: ['--password-cost', 'minimal'] });
  const db = first.database;
  const after = {};
  let restoredGame;
  try {
    const annToken = await signUp(first, 'ann');
    const bobToken = await signUp(first, 'bob');
    const ann = await player(first, 'ann', annToken);
    const bob = await player(first, 'bob', bobToken);

    for (const variant of ['chess', 'xiangqi', 'draughts']) {
      const { game, state } = await startRated(ann, bob, variant);
      const [annSeat, bobSeat] = SEATS[variant];
      assert.equal(state.rated, true);
      assert.equal(state.rating_range, null);
      assert.deepEqual(state.players[annSeat].rating, { rating: 1500, provisional: true });
      assert.equal(state.players[annSeat].guest, false);
      assert.equal(state.players[bobSeat].name, 'bob');
      let ended;
      if (variant === 'chess') {
        // Fool's mate: bob (black) mates.
        for (const [i, move] of ['f2f3', 'e7e5', 'g2g4', 'd8h4'].entries()) {
          const mover = i % 2 === 0 ? ann : bob;
          await mover.ok({ type: 'move', game, move, ply: i });
        }
        ended = await ann.nextOf('ended', (e) => e.game === game);
        assert.equal(ended.reason, 'checkmate');
      } else {
        await playSome(game, ann, bob, state.legal, 2);
        ended = await ann.ok({ type: 'resign', game });
        assert.equal(ended.type, 'ended');
      }
      const bobWins = true;
      const annChange = expectedChange(NEW_PLAYER, NEW_PLAYER, bobWins ? 0 : 1);
      const bobChange = expectedChange(NEW_PLAYER, NEW_PLAYER, bobWins ? 1 : 0);
      assert.deepEqual(ended.ratings, { [annSeat]: annChange.change, [bobSeat]: bobChange.change }, variant);
      assert.ok(ended.ratings[bobSeat].diff > 0 && ended.ratings[annSeat].diff < 0);
      after[variant] = { ann: annChange.after, bob: bobChange.after };
    }

    // A second rated chess game is under way when the server stops.
    const { game, state } = await startRated(ann, bob, 'chess');
    assert.deepEqual(state.players.white.rating, { rating: Math.round(after.chess.ann.rating), provisional: true });
    assert.deepEqual(state.players.black.rating, { rating: Math.round(after.chess.bob.rating), provisional: true });
    await playSome(game, ann, bob, state.legal, 2);
    restoredGame = game;
  } finally {
    first.proc.kill('SIGTERM');
    await new Promise((resolve) => first.proc.on('exit', resolve));
  }

  const second = await startServer({ args: ['--password-cost', 'minimal'], db });
  try {
    const ann = await player(second, 'ann', await signIn(second, 'ann'));
    const bob = await player(second, 'bob', await signIn(second, 'bob'));
    // Both resume by their accounts (no token): the game kept its accounts, rated flag and ratings.
    const state = await ann.ok({ type: 'resume', game: restoredGame });
    assert.equal(state.type, 'state');
    assert.equal(state.you, 'white');
    assert.equal(state.rated, true);
    assert.equal(state.players.white.rating.rating, Math.round(after.chess.ann.rating));
    assert.equal(state.players.black.rating.rating, Math.round(after.chess.bob.rating));
    assert.equal((await bob.ok({ type: 'resume', game: restoredGame })).you, 'black');
    // The profiles after the restart: each pool's rating as ended said, one game each; ann lost
    // all three, bob won them.
    const annProfile = await profileOf(second, 'ann');
    const bobProfile = await profileOf(second, 'bob');
    for (const variant of ['chess', 'xiangqi', 'draughts']) {
      const [annPool, bobPool] = [annProfile.ratings[variant].blitz, bobProfile.ratings[variant].blitz];
      assert.equal(Math.round(annPool.rating), Math.round(after[variant].ann.rating), variant);
      assert.equal(Math.round(bobPool.rating), Math.round(after[variant].bob.rating), variant);
      assert.equal(annPool.games, 1);
      assert.equal(annPool.provisional, true);
    }
    assert.deepEqual(annProfile.counts, { games: 3, won: 0, drawn: 0, lost: 3 });
    assert.deepEqual(bobProfile.counts, { games: 3, won: 3, drawn: 0, lost: 0 });
    // Its end still rates: ann resigns, each rated from the first game's result.
    const ended = await ann.ok({ type: 'resign', game: restoredGame });
    const annChange = expectedChange(after.chess.ann, after.chess.bob, 0);
    const bobChange = expectedChange(after.chess.bob, after.chess.ann, 1);
    assert.equal(ended.ratings.white.before, annChange.change.before);
    assert.equal(ended.ratings.black.before, bobChange.change.before);
    // The deviation grew by the few seconds since the first game: a fraction of a point at most.
    assert.ok(Math.abs(ended.ratings.white.after - annChange.change.after) <= 1, JSON.stringify(ended.ratings));
    assert.ok(Math.abs(ended.ratings.black.after - bobChange.change.after) <= 1, JSON.stringify(ended.ratings));
    // The replay keeps the change.
    const record = await ann.ok({ type: 'replay', game: restoredGame });
    assert.equal(record.rated, true);
    assert.equal(record.ratings.white.diff, ended.ratings.white.diff);
    assert.equal(record.ratings.black.diff, ended.ratings.black.diff);
    const annNow = (await profileOf(second, 'ann')).ratings.chess.blitz;
    assert.equal(Math.round(annNow.rating), ended.ratings.white.after);
    assert.equal(annNow.games, 2);

    // A new game after the restart shows the ratings the first server stored.
    const { state: fresh } = await createRated(ann, { variant: 'xiangqi' });
    assert.equal(fresh.players.red.rating.rating, Math.round(after.xiangqi.ann.rating));
  } finally {
    assert.equal((await second.stop()).code, 0);
    first.cleanup();
  }
});

test('rated create and join refusals, and a seat resumed from a second connection', async () => {
  const server = await startServer({ args: ['--password-cost', 'minimal'] });
  try {
    const annToken = await signUp(server, 'ann');
    const ann = await player(server, 'ann', annToken);
    const bob = await player(server, 'bob', await signUp(server, 'bob'));
    const guest = await Client.connect(server.url, 'Guest');

    // create: a guest, untimed, an engine opponent, a set-up position.
    const refusedCreate = async (client, create, pattern) => {
      const reply = await client.request({ type: 'create', variant: 'chess', clock: BLITZ, rated: true, ...create });
      assert.equal(reply.type, 'error', JSON.stringify(reply));
      assert.equal(reply.code, 'not_allowed', reply.message);
      assert.match(reply.message, pattern);
    };
    await refusedCreate(guest, {}, /sign in/);
    await refusedCreate(ann, { clock: undefined }, /untimed/);
    await refusedCreate(ann, { opponent: { engine: 'builtin', level: 1 } }, /engine/);
    await refusedCreate(ann, { position: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1' }, /set-up position/);

    // join: a guest, the creator's own account on another connection, outside the range.
    const { created } = await createRated(ann, { rating_range: { min: 1600, max: 1800 } });
    const annElsewhere = await player(server, 'ann', annToken);
    for (const [client, pattern] of [
      [guest, /sign in/],
      [annElsewhere, /your own game/],
      [bob, /your blitz rating 1500 is outside 1600-1800/],
    ]) {
      const reply = await client.request({ type: 'join', game: created.game });
      assert.equal(reply.type, 'error', JSON.stringify(reply));
      assert.equal(reply.code, 'forbidden');
      assert.match(reply.message, pattern);
    }
    const listed = await guest.ok({ type: 'games', status: 'waiting' });
    const entry = listed.games.find((g) => g.game === created.game);
    assert.equal(entry.rated, true);
    assert.deepEqual(entry.rating_range, { min: 1600, max: 1800 });

    // A seat resumed from another connection signed in as its player, without the token.
    const { game } = await startRated(ann, bob, 'chess');
    const resumed = await annElsewhere.ok({ type: 'resume', game });
    assert.equal(resumed.you, 'white');
    const lost = await ann.nextOf('seat_lost', (m) => m.game === game);
    assert.equal(lost.reason, 'resumed_elsewhere');
    // Someone else signed in gets no seat that way, nor does a guest.
    const carl = await player(server, 'carl', await signUp(server, 'carl'));
    for (const client of [carl, guest]) {
      const refused = await client.request({ type: 'resume', game });
      assert.equal(refused.code, 'forbidden');
    }
    // The guest's own seat in an unrated game shows as a guest's.
    const casual = await guest.ok({ type: 'create', variant: 'chess', side: 'first' });
    const casualState = await guest.nextOf('state', (s) => s.game === casual.game);
    assert.equal(casualState.players.white.guest, true);
    assert.equal(casualState.players.white.rating, null);
    assert.equal(casualState.rated, false);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});
