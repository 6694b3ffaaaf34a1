// The players' API over a real server (issue 40): a new player's profile (no ratings, zero
// counts), their empty games list, history and export, the empty leaderboard, 404 for an unknown
// player, and 400 for bad parameters. Rated games end to end are tested with the rated games.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpCall as call, startServer } from './harness.mjs';

test('a new player: profile, games, history, export and the leaderboards', async () => {
  const server = await startServer({ args: ['--password-cost', 'minimal'] });
  try {
    const signUp = await call(server, 'POST', '/api/account', { body: { username: 'Nora_P', password: 'a long enough phrase' } });
    assert.equal(signUp.status, 201);

    const profile = await call(server, 'GET', '/api/users/nora_p');
    assert.equal(profile.status, 200);
    assert.equal(profile.headers.get('content-type'), 'application/json');
    assert.ok(profile.headers.get('etag'));
    assert.equal(profile.json.username, 'Nora_P');
    assert.equal(typeof profile.json.created_ms, 'number');
    assert.deepEqual(
      { ...profile.json, created_ms: 0 },
      { username: 'Nora_P', created_ms: 0, deleted: false, ratings: {}, counts: { games: 0, won: 0, drawn: 0, lost: 0 } },
    );

    const games = await call(server, 'GET', '/api/users/Nora_P/games?variant=&limit=100');
    assert.equal(games.status, 200);
    assert.deepEqual(games.json, { games: [], next: null });
    assert.deepEqual((await call(server, 'GET', '/api/users/nora_p/history')).json, { history: [] });
    const exported = await call(server, 'GET', '/api/users/nora_p/export');
    assert.equal(exported.status, 200);
    assert.match(exported.headers.get('content-type'), /^text\/plain/);
    assert.equal(exported.text, '');

    for (const query of ['', '?variant=xiangqi&speed=bullet&limit=200', '?variant=draughts&speed=classical']) {
      const board = await call(server, 'GET', '/api/leaderboard' + query);
      assert.equal(board.status, 200, query);
      assert.deepEqual(board.json.players, [], query);
    }
    assert.deepEqual((await call(server, 'GET', '/api/leaderboard')).json, { variant: 'chess', speed: 'blitz', players: [] });

    for (const path of ['/api/users/nobody', '/api/users/nobody/games', '/api/users/nobody/export', '/api/users/nobody/history']) {
      const missing = await call(server, 'GET', path);
      assert.equal(missing.status, 404, path);
      assert.equal(missing.json.error, 'not_found', path);
    }
    for (const path of [
      '/api/users/nora_p/games?limit=0', '/api/users/nora_p/games?limit=101', '/api/users/nora_p/games?variant=go',
      '/api/users/nora_p/games?before=..%2F', '/api/users/nora_p/games?sort=asc', '/api/leaderboard?speed=ultra',
      '/api/leaderboard?variant=go', '/api/leaderboard?limit=201',
    ]) {
      const refused = await call(server, 'GET', path);
      assert.equal(refused.status, 400, path);
      assert.equal(refused.json.error, 'invalid', path);
      assert.ok(refused.json.message, path);
    }
    assert.equal((await call(server, 'POST', '/api/users/nora_p')).status, 405);
    assert.equal((await call(server, 'GET', '/api/users/nora_p/friends')).status, 404);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});
