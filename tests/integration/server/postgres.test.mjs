// The whole server on PostgreSQL (issue 43): `--db postgresql://...` keeps every store there.
// Against a private PostgreSQL (tests/support/postgres_for_tests.cpp), two players sign up and
// in, play a rated game to mate and start another; the server stops, and a new one on the same
// database finds it all: the unfinished game brought back at start (restart recovery reads
// PostgreSQL) and played on, the finished one as stored, the accounts and their sessions, the
// ratings and the players' pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, httpCall as call, startServer, startPostgres } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const BLITZ = { initial_ms: 180000, increment_ms: 2000 };
const FOOLS_MATE = ['f2f3', 'e7e5', 'g2g4', 'd8h4'];

async function signIn(server, username) {
  const session = await call(server, 'POST', '/api/session', { body: { username, password: PASSWORD } });
  assert.equal(session.status, 200, session.text);
  return session.json.token;
}

/** A connection signed in with `hello {"name", "token"}`. */
async function player(server, name, token) {
  const client = await Client.connect(server.url);
  const welcome = await client.ok({ type: 'hello', name, token });
  assert.deepEqual(welcome.user, { username: name });
  return client;
}

/** `a` creates a rated blitz chess game (white) and `b` joins it. */
async function startRated(a, b) {
  const created = await a.ok({ type: 'create', variant: 'chess', side: 'first', clock: BLITZ, rated: true });
  await a.nextOf('state', (s) => s.game === created.game);
  await b.ok({ type: 'join', game: created.game });
  await a.nextOf('state', (s) => s.game === created.game && s.status === 'playing');
  await b.nextOf('state', (s) => s.game === created.game && s.status === 'playing');
  return created.game;
}

async function playMoves(game, white, black, moves, firstPly = 0) {
  for (const [i, move] of moves.entries()) {
    const ply = firstPly + i;
    await (ply % 2 === 0 ? white : black).ok({ type: 'move', game, move, ply });
  }
}

test('every store on PostgreSQL: accounts, a rated game to mate, and a restart that finds it all', async () => {
  const postgres = await startPostgres();
  try {
    const args = ['--password-cost', 'minimal', '--sync', 'normal'];
    let finished;
    let unfinished;
    let annToken;
    const first = await startServer({ db: postgres.uri, args, logLevel: 'info' });
    try {
      const logged = await first.waitForLog(/server_started/);
      assert.match(logged, /server_started.*db=postgresql:\/\/arbiter@127\.0\.0\.1:\d+\/postgres/);
      for (const username of ['Ann_P', 'Bob_P']) {
        const created = await call(first, 'POST', '/api/account', { body: { username, password: PASSWORD } });
        assert.equal(created.status, 201, created.text);
      }
      // A name taken, case aside: PostgreSQL's unique key says so, and nothing changes.
      const taken = await call(first, 'POST', '/api/account', { body: { username: 'ann_p', password: PASSWORD } });
      assert.equal(taken.status, 409, taken.text);
      annToken = await signIn(first, 'Ann_P');
      const ann = await player(first, 'Ann_P', annToken);
      const bob = await player(first, 'Bob_P', await signIn(first, 'Bob_P'));

      finished = await startRated(ann, bob);
      await playMoves(finished, ann, bob, FOOLS_MATE);
      const ended = await ann.nextOf('ended', (e) => e.game === finished);
      assert.equal(ended.result, '0-1');
      assert.equal(ended.reason, 'checkmate');
      assert.ok(ended.ratings.black.diff > 0 && ended.ratings.white.diff < 0, JSON.stringify(ended.ratings));

      // Another rated game is under way when the server stops.
      unfinished = await startRated(ann, bob);
      await playMoves(unfinished, ann, bob, ['e2e4', 'e7e5']);
      await ann.close();
      await bob.close();
    } finally {
      assert.equal((await first.stop()).code, 0, first.stderr());
    }

    const again = await startServer({ db: postgres.uri, args, logLevel: 'info' });
    try {
      // The unfinished game was read back from PostgreSQL at start, and the finished one was not.
      const logged = await again.waitForLog(/server_started/);
      assert.match(logged, /server_started.*games_restored=1 games_not_restored=0/);
      // The session signed in before the restart still signs in; a password still signs in.
      const ann = await player(again, 'Ann_P', annToken);
      const bob = await player(again, 'Bob_P', await signIn(again, 'Bob_P'));
      const state = await ann.ok({ type: 'resume', game: unfinished });
      assert.equal(state.you, 'white');
      assert.equal(state.rated, true);
      assert.deepEqual(state.moves, ['e2e4', 'e7e5']);
      assert.equal((await bob.ok({ type: 'resume', game: unfinished })).you, 'black');
      await playMoves(unfinished, ann, bob, ['g1f3'], 2);
      const resigned = await bob.ok({ type: 'resign', game: unfinished });
      assert.equal(resigned.type, 'ended');
      assert.equal(resigned.result, '1-0');

      const record = await call(again, 'GET', `/api/games/${finished}`);
      assert.equal(record.status, 200);
      assert.deepEqual(record.json.moves.map((m) => m.move), FOOLS_MATE);
      assert.equal(record.json.result, '0-1');
      assert.equal(record.json.reason, 'checkmate');

      // The players' pages, from PostgreSQL: one win each, two rated games, newest first.
      const profile = await call(again, 'GET', '/api/users/bob_p');
      assert.equal(profile.status, 200);
      assert.deepEqual(profile.json.counts, { games: 2, won: 1, drawn: 0, lost: 1 });
      assert.equal(profile.json.ratings.chess.blitz.games, 2);
      const games = await call(again, 'GET', '/api/users/ann_p/games');
      assert.deepEqual(games.json.games.map((g) => g.game), [unfinished, finished]);
      const history = await call(again, 'GET', '/api/users/ann_p/history');
      assert.equal(history.json.history.length, 1);
      assert.deepEqual(history.json.history[0].points.map((p) => p.game), [finished, unfinished]);
      await ann.close();
      await bob.close();
    } finally {
      assert.equal((await again.stop()).code, 0, again.stderr());
    }
  } finally {
    assert.equal(await postgres.stop(), 0);
  }
});
