// Hash routes: every page's address parses back to the page, and a profile link names only a
// possible username.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from './load.mjs';

const { parseRoute, profileHref, leaderboardHref } = await loadSource('routes');

test('lobby, game and replay routes as before', () => {
  assert.deepEqual(parseRoute(''), { view: 'lobby' });
  assert.deepEqual(parseRoute('#/'), { view: 'lobby' });
  assert.deepEqual(parseRoute('#/nowhere'), { view: 'lobby' });
  assert.deepEqual(parseRoute('#/game/aB3-x_'), { view: 'game', id: 'aB3-x_' });
  assert.deepEqual(parseRoute('#/replay/g7Kq2'), { view: 'replay', id: 'g7Kq2' });
  assert.deepEqual(parseRoute('#/game/a/b'), { view: 'lobby' });
});

test('a profile route names a username, or null when none could be one', () => {
  assert.deepEqual(parseRoute('#/@/Ann_42'), { view: 'profile', name: 'Ann_42' });
  assert.deepEqual(parseRoute(profileHref('bo-b')), { view: 'profile', name: 'bo-b' });
  assert.deepEqual(parseRoute('#/@/%41nn'), { view: 'profile', name: 'Ann' });
  assert.deepEqual(parseRoute('#/@/<img src=x>'), { view: 'profile', name: null });
  assert.deepEqual(parseRoute('#/@/%3Cb%3E'), { view: 'profile', name: null });
  assert.deepEqual(parseRoute('#/@/%E0%A4%A'), { view: 'profile', name: null }, 'a broken escape');
  assert.deepEqual(parseRoute('#/@/ab'), { view: 'profile', name: null }, 'too short for a username');
  assert.deepEqual(parseRoute('#/@/'), { view: 'profile', name: null });
});

test('leaderboard routes default to chess blitz; unknown parts fall back', () => {
  assert.deepEqual(parseRoute('#/leaderboard'), { view: 'leaderboard', variant: 'chess', speed: 'blitz' });
  assert.deepEqual(parseRoute(leaderboardHref('draughts', 'rapid')), { view: 'leaderboard', variant: 'draughts', speed: 'rapid' });
  assert.deepEqual(parseRoute('#/leaderboard/go/blitz'), { view: 'leaderboard', variant: 'chess', speed: 'blitz' });
  assert.deepEqual(parseRoute('#/leaderboard/xiangqi/slow'), { view: 'leaderboard', variant: 'xiangqi', speed: 'blitz' });
});
