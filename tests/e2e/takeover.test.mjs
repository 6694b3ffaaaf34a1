// A seat taken over by another page of the same player (protocol.md, "seat_lost"): the game opened
// in a second tab resumes the seat with the stored token; the first tab says so, stops offering
// moves and actions, does not take the seat back by itself (not even on a reconnect), and takes it
// back only when the player clicks, after which the second tab is told in turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowserPerFile,
  closePages,
  drag,
  moveListText,
  statusText,
  waitForPly,
  waitMyTurn,
  twoPlayers,
} from './harness.mjs';

let server;
let browser;
serverAndBrowserPerFile((started, launched) => {
  server = started;
  browser = launched;
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens the game in another tab of `page`'s player (same storage, so the same seat token). */
async function openElsewhere(page, game) {
  const other = await page.context().newPage();
  other.errors = [];
  other.on('pageerror', (error) => other.errors.push(error.message));
  await other.goto(`${server.url}/#/game/${game}`);
  await other.waitForSelector('.game-page[data-status="playing"]');
  return other;
}

async function notice(page) {
  await page.waitForSelector('#seat-lost:not([hidden])', { timeout: 15000 });
  return (await page.textContent('#seat-lost')).trim();
}

test('a second tab takes the seat; the first says so, takes no moves, and takes it back on a click', async () => {
  const { first, second, game } = await twoPlayers(browser, server, { variant: 'chess', clock: '' });
  const elsewhere = await openElsewhere(second, game);

  assert.match(await notice(second), /opened in another window or on another device, which plays Black now/);
  assert.equal(await statusText(second), 'Playing in another window.');
  assert.equal(await second.isHidden('.move-form'), true, 'no move input for a seat played elsewhere');
  assert.equal(await second.locator('#controls button').count(), 0, 'no resign, draw or abort buttons');
  assert.equal(await elsewhere.isHidden('#seat-lost'), true);

  // White moves; the old tab hears nothing more, and its board takes no move for Black.
  await drag(first, 'e2', 'e4');
  await waitForPly(elsewhere, 1);
  await waitMyTurn(elsewhere);
  await drag(second, 'e7', 'e5');
  await sleep(500);
  assert.equal(await moveListText(second), '', 'the old tab heard no move');
  assert.equal(await moveListText(first), '1. e4', 'nothing was played from the old tab');

  // A reconnect of the old tab does not take the seat back by itself.
  await second.evaluate(() => window.arbiter.conn.drop());
  await second.waitForFunction(() => /Reconnected/.test(document.querySelector('#connection').textContent), null, {
    timeout: 15000,
  });
  await sleep(500);
  assert.equal(await elsewhere.isHidden('#seat-lost'), true, 'the new tab keeps the seat');
  assert.equal(await second.isVisible('#seat-lost'), true);

  // The player takes the seat back in the first tab: it catches up and plays; the other tab is told.
  await second.click('#take-seat-back');
  assert.match(await notice(elsewhere), /opened in another window/);
  await second.waitForSelector('#seat-lost', { state: 'hidden' });
  await waitForPly(second, 1);
  await waitMyTurn(second);
  await drag(second, 'e7', 'e5');
  // Each page shows the move when its own `moved` arrives: the opponent's page may be first.
  await waitForPly(first, 2);
  await waitForPly(second, 2);
  assert.equal(await moveListText(second), '1. e4 e5');
  assert.equal(await elsewhere.isHidden('.move-form'), true);

  for (const page of [first, second, elsewhere]) assert.deepEqual(page.errors, [], 'no page errors');
  await closePages(first, second);
});
