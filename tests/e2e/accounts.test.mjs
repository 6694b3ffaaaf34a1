// Accounts, ratings, profiles and leaderboards from the browser (issue 40): sign up, sign in and
// out from the header; a rated game between two signed-in players played to its end, each
// player's rating change shown; then the loser's profile (ratings, counts, chart, games) and the
// leaderboard showing the new ratings.
//
// The leaderboard lists only settled ratings (deviation at most 110), which a new account reaches
// only after many games. So the database is prepared before the browser tests: the server starts
// once on a file of our own, the two rated players sign up over HTTP, the server stops, and
// sqlite3 gives them a settled chess blitz rating (and one earlier point of history); then the
// server starts again on that file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closePages, drag, launchBrowser, newPlayer, outputDir, startServer, waitForPly, waitMyTurn } from './harness.mjs';

// Cheap password hashes: sign-ups and sign-ins are many here (for tests only, protocol.md).
const SERVER_ARGS = ['--password-cost', 'minimal'];
const PASSWORD = 'violet-anchor-1917';
const ANN = { username: 'rated_ann', rating: 1600 };
const BOB = { username: 'rated_bob', rating: 1550 };
const SETTLED_DEVIATION = 60;

let server;
let browser;
const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-e2e-accounts-'));
const db = path.join(dir, 'accounts.db');

async function signUpOverHttp(url, username) {
  const response = await fetch(`${url}/api/account`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  assert.equal(response.status, 201, `sign-up of ${username}: ${await response.text()}`);
}

function sql(statement) {
  return execFileSync('sqlite3', [db, statement], { encoding: 'utf8' });
}

before(async () => {
  const first = await startServer(SERVER_ARGS, { db });
  await signUpOverHttp(first.url, ANN.username);
  await signUpOverHttp(first.url, BOB.username);
  const stopped = await first.stop();
  assert.equal(stopped.code, 0, first.stderrDigest());
  const now = Date.now();
  for (const player of [ANN, BOB]) {
    const id = `(SELECT id FROM users WHERE username = '${player.username}')`;
    sql(
      `INSERT INTO ratings (user_id, variant, speed, rating, deviation, volatility, games, updated_ms) ` +
        `VALUES (${id}, 'chess', 'blitz', ${player.rating}, ${SETTLED_DEVIATION}, 0.06, 40, ${now});` +
        `INSERT INTO rating_history (user_id, variant, speed, at_ms, game_id, rating, deviation) ` +
        `VALUES (${id}, 'chess', 'blitz', ${now - 86_400_000}, 'seeded', ${player.rating}, ${SETTLED_DEVIATION});`,
    );
  }
  server = await startServer(SERVER_ARGS, { db });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  const result = await server?.stop();
  rmSync(dir, { recursive: true, force: true });
  assert.equal(result?.code, 0, `arbiter-server must exit 0 on SIGTERM: ${JSON.stringify(result)}\n${server?.stderrDigest()}`);
});

/** Fills and sends the header's account form (`mode`: 'in' or 'up'); does not wait for success. */
async function submitAccountForm(page, mode, username, password) {
  await page.click(mode === 'up' ? '#sign-up' : '#sign-in');
  await page.fill('#account-username', username);
  await page.fill('#account-password', password);
  await page.click('#account-submit');
}

async function signIn(page, username, password = PASSWORD) {
  await submitAccountForm(page, 'in', username, password);
  await page.waitForSelector('#account-name');
  assert.equal(await page.textContent('#account-name'), username);
  // The new socket, whose upgrade carries the cookie, is open again.
  await page.waitForFunction(() => window.arbiter.conn.isOpen());
}

const errorText = (page) => page.textContent('#account-error');

test('sign up, sign out, sign in: the name in the header, and the server\'s reasons as text', async () => {
  const page = await newPlayer(browser, server, 'Guest-Carol');
  assert.equal(await page.isVisible('#create-rated'), false, 'Rated is offered only when signed in');
  // A rule broken: the server's reason is shown.
  await submitAccountForm(page, 'up', 'web_carol', 'short');
  await page.waitForFunction(() => document.querySelector('#account-error').textContent.length > 0);
  assert.match(await errorText(page), /password/i);
  await page.click('#account-cancel');

  await submitAccountForm(page, 'up', 'web_carol', PASSWORD);
  await page.waitForSelector('#account-name');
  assert.equal(await page.textContent('#account-name'), 'web_carol');
  assert.equal(await page.getAttribute('#account-name', 'href'), '#/@/web_carol');
  assert.equal(await page.isVisible('#player-name'), false, 'a signed-in player plays under the account name');
  assert.equal(await page.isVisible('#create-rated'), true);

  // The same name in another case is taken: 409 and its message.
  const other = await newPlayer(browser, server, 'Guest-Dan');
  await submitAccountForm(other, 'up', 'WEB_CAROL', PASSWORD);
  await other.waitForFunction(() => document.querySelector('#account-error').textContent.length > 0);
  assert.match(await errorText(other), /taken|registered/i);
  // A wrong password: one message, whichever part was wrong.
  await other.click('#account-cancel');
  await submitAccountForm(other, 'in', 'web_carol', 'not-the-password');
  await other.waitForFunction(() => document.querySelector('#account-error').textContent.length > 0);
  assert.equal(await other.$('#account-name'), null);

  await page.click('#sign-out');
  await page.waitForSelector('#sign-in');
  assert.equal(await page.$('#account-name'), null);
  assert.equal(await page.isVisible('#player-name'), true);
  await signIn(page, 'web_carol');
  for (const p of [page, other]) assert.deepEqual(p.errors, []);
  await closePages(page, other);
});

test('a reload keeps the session: the welcome says who is signed in', async () => {
  // Needs welcome.user (the cookie on the WebSocket upgrade).
  const page = await newPlayer(browser, server, 'Guest-Eve');
  await signIn(page, ANN.username);
  await page.reload();
  await page.waitForSelector('#account-name', { timeout: 10000 });
  assert.equal(await page.textContent('#account-name'), ANN.username);
  await page.click('#sign-out');
  await page.waitForSelector('#sign-in');
  await page.reload();
  await page.waitForSelector('#create-form');
  await page.waitForFunction(() => window.arbiter.conn.isOpen());
  assert.equal(await page.$('#account-name'), null, 'signed out stays signed out');
  await closePages(page);
});

test('the owner deletes the account from its profile: signed out, the name shown as deleted', async () => {
  const page = await newPlayer(browser, server, 'Guest-Gus');
  await submitAccountForm(page, 'up', 'web_gone', PASSWORD);
  await page.waitForSelector('#account-name');
  // Only the owner sees the form.
  const stranger = await newPlayer(browser, server, 'Guest-Hal');
  await stranger.goto(`${server.url}/#/@/web_gone`);
  await stranger.waitForSelector('#profile-counts');
  assert.equal(await stranger.isVisible('#profile-own'), false);

  await page.click('#account-name');
  await page.waitForSelector('#profile-own:not([hidden])');
  await page.click('#profile-own summary');
  await page.fill('#delete-password', 'not-the-password');
  await page.click('#delete-account');
  await page.waitForFunction(() => document.querySelector('#delete-error').textContent.length > 0);
  assert.ok(await page.$('#account-name'), 'a wrong password deletes nothing');

  await page.fill('#delete-password', PASSWORD);
  await page.click('#delete-account');
  await page.waitForSelector('#sign-in');
  assert.match(page.url(), /#\/$/);
  await stranger.reload();
  await stranger.waitForFunction(() => /deleted/.test(document.querySelector('#profile-meta')?.textContent ?? ''));
  // Signing in again fails, and the name stays taken.
  await submitAccountForm(page, 'in', 'web_gone', PASSWORD);
  await page.waitForFunction(() => document.querySelector('#account-error').textContent.length > 0);
  assert.equal(await page.$('#account-name'), null);
  for (const p of [page, stranger]) assert.deepEqual(p.errors, []);
  await closePages(page, stranger);
});

test('a rated game needs a clock: the server\'s refusal is shown in the form', async () => {
  const page = await newPlayer(browser, server, 'Guest-Fay');
  const errors = [];
  page.on('websocket', (socket) =>
    socket.on('framereceived', ({ payload }) => {
      const message = JSON.parse(payload);
      if (message.type === 'error') errors.push(message);
    }),
  );
  await signIn(page, 'web_carol');
  await page.check('#create-rated');
  await page.selectOption('#create-clock', '');
  await page.click('#create-submit');
  await page.waitForFunction(() => document.querySelector('#create-error').textContent.length > 0);
  assert.ok(page.sent.some((m) => m.type === 'create' && m.rated === true), 'the form sent rated: true');
  assert.match(page.url(), /#\/$/, 'no game was opened');
  // Refused as the contract says (not_allowed, untimed), and that reason is what the form shows.
  const refusal = errors.find((e) => e.code === 'not_allowed');
  assert.ok(refusal, JSON.stringify(errors));
  assert.equal(await page.textContent('#create-error'), refusal.message);
  await closePages(page);
});

/** The changes shown at the end: { white: {before, after, diff}, black: {...} } read from the page. */
async function shownChanges(page) {
  const text = await page.textContent('#rating-changes');
  const changes = {};
  for (const match of text.matchAll(/(White|Black)(?: \(you\))?: (\d+) → (\d+)\?? ([+\u2212±])(\d+)/g)) {
    const sign = match[4] === '\u2212' ? -1 : 1;
    changes[match[1].toLowerCase()] = { before: Number(match[2]), after: Number(match[3]), diff: sign * Number(match[5]) };
  }
  return changes;
}

test('a rated game between two signed-in players: the changes at the end, then profile and leaderboard', async () => {
  const ann = await newPlayer(browser, server, 'Guest-A');
  const bob = await newPlayer(browser, server, 'Guest-B');
  await signIn(ann, ANN.username);
  await signIn(bob, BOB.username);

  // Ann seeks a rated blitz game (3+2: 3 min + 40 × 2 s = 260 s) for players rated 1500 to 1700.
  await ann.selectOption('#create-variant', 'chess');
  await ann.selectOption('#create-side', 'first');
  await ann.selectOption('#create-clock', '180000+2000');
  await ann.check('#create-rated');
  await ann.fill('#create-rating-min', '1500');
  await ann.fill('#create-rating-max', '1700');
  await ann.click('#create-submit');
  await ann.waitForURL(/#\/game\//);
  await ann.waitForSelector('.game-page[data-status="waiting"]');
  const game = ann.url().split('#/game/')[1];
  const create = ann.sent.find((m) => m.type === 'create');
  assert.equal(create.rated, true);
  assert.deepEqual(create.rating_range, { min: 1500, max: 1700 });
  assert.equal(await ann.textContent('#game-mode'), 'Rated · 1500\u20131700');

  // Bob sees it in the lobby as rated, with Ann's settled rating (no "?"), and joins.
  const row = `#open-games li[data-game="${game}"]`;
  await bob.waitForSelector(row);
  assert.match(await bob.textContent(row), /rated_ann 1600(?!\?)/);
  assert.match(await bob.textContent(row), /rated · 1500\u20131700/);
  await bob.click(`${row} button`);
  await bob.waitForSelector('.game-page[data-status="playing"]');
  await ann.waitForSelector('.game-page[data-status="playing"]');
  assert.match(await bob.textContent('.player-bar.top'), /rated_ann 1600 White/);
  assert.match(await bob.textContent('.player-bar.bottom'), /rated_bob 1550 Black · you/);

  // Both move once, then Ann resigns: Bob wins.
  await waitMyTurn(ann);
  await drag(ann, 'e2', 'e4');
  await waitForPly(bob, 1);
  await waitMyTurn(bob);
  await drag(bob, 'e7', 'e5');
  await waitForPly(ann, 2);
  await ann.click('#resign');
  await ann.click('#resign');
  for (const page of [ann, bob]) {
    await page.waitForSelector('.game-page[data-status="ended"]');
    await page.waitForSelector('#rating-changes:not([hidden])');
  }
  const changes = await shownChanges(bob);
  assert.deepEqual(Object.keys(changes).sort(), ['black', 'white'], await bob.textContent('#rating-changes'));
  assert.equal(changes.white.before, ANN.rating);
  assert.equal(changes.black.before, BOB.rating);
  assert.ok(changes.white.diff < 0 && changes.black.diff > 0, JSON.stringify(changes));
  for (const seat of ['white', 'black']) assert.equal(changes[seat].after - changes[seat].before, changes[seat].diff);
  assert.deepEqual(await shownChanges(ann), changes, 'both players see the same changes');
  assert.match(await bob.textContent('.player-bar.bottom .rating-diff.up'), /^\+\d+$/);
  assert.match(await bob.textContent('.player-bar.top .rating-diff.down'), /^\u2212\d+$/);
  assert.match(await ann.textContent('#message'), /Your rating: \d+ \(\u2212\d+\)/);

  // Ann's profile, from her name in Bob's player bar.
  await bob.click('.player-bar.top a.user-link');
  await bob.waitForURL(/#\/@\/rated_ann$/);
  await bob.waitForSelector('#profile-ratings tr[data-perf="chess/blitz"]');
  assert.equal(await bob.textContent('#profile-name'), ANN.username);
  assert.equal(await bob.textContent('#profile-ratings tr[data-perf="chess/blitz"] .rating'), String(changes.white.after));
  assert.match(await bob.textContent('#profile-counts'), /^1 game · 0 won · 0 drawn · 1 lost$/);
  await bob.waitForSelector('#rating-chart g[data-series="chess/blitz"] path');
  const dots = await bob.$$eval('#rating-chart g[data-series="chess/blitz"] circle title', (titles) => titles.map((t) => t.textContent));
  assert.equal(dots.length, 2, dots.join(' | '));
  assert.match(dots[1], new RegExp(`: ${changes.white.after} on `));
  await bob.waitForSelector(`#profile-games li[data-game="${game}"]`);
  assert.match(await bob.textContent(`#profile-games li[data-game="${game}"]`), /rated/);
  assert.equal(await bob.isVisible('#profile-more'), false, 'one game: no "More"');
  // What a visitor sees (output/profile.png; the closing note describes it).
  await bob.screenshot({ path: path.join(outputDir, 'profile.png'), fullPage: true });
  await bob.click(`#profile-games li[data-game="${game}"] a.button`);
  await bob.waitForURL(new RegExp(`#/replay/${game}$`));
  await bob.waitForFunction(() => /White wins|Black wins/.test(document.querySelector('#status')?.textContent ?? ''));
  assert.match(await bob.textContent('#status'), /\(rated 1500\u20131700\)/);

  // The leaderboard (chess blitz) shows both at their new ratings, best first.
  await bob.click('#nav-leaderboard');
  await bob.waitForSelector('#leaderboard tr[data-user]');
  const board = await bob.$$eval('#leaderboard tbody tr', (rows) =>
    rows.map((row) => ({ user: row.dataset.user, rating: Number(row.querySelector('.rating').textContent) })),
  );
  const expected = [
    { user: ANN.username, rating: changes.white.after },
    { user: BOB.username, rating: changes.black.after },
  ].sort((a, b) => b.rating - a.rating);
  assert.deepEqual(board, expected);
  await bob.screenshot({ path: path.join(outputDir, 'leaderboard.png'), fullPage: true });
  for (const page of [ann, bob]) assert.deepEqual(page.errors, []);
  await closePages(ann, bob);
});
