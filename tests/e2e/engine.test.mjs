// Playing the computer from the browser: the create form offers the engines of the server's
// welcome (filtered by the chosen game) and a level; the game opens at once and the engine
// answers a move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowserPerFile, closePages, drag, newPlayer, statusText, waitForPly, waitMyTurn } from './harness.mjs';

let server;
let browser;
serverAndBrowserPerFile((started, launched) => {
  server = started;
  browser = launched;
});

test('draughts against the builtin engine at level 1: the engine answers a move', async () => {
  const page = await newPlayer(browser, server, 'engine-player');
  await page.selectOption('#create-variant', 'draughts');
  // The engine and level fields show only once "the computer" is chosen.
  assert.equal(await page.isVisible('#create-engine'), false);
  await page.selectOption('#create-opponent', 'computer');
  assert.equal(await page.isVisible('#create-engine'), true);
  const engines = await page.$$eval('#create-engine option', (options) => options.map((o) => o.value));
  assert.ok(engines.includes('builtin'), `builtin is offered for draughts: ${engines}`);
  assert.ok(!engines.includes('stockfish'), 'an engine that does not play draughts is not offered');
  await page.selectOption('#create-engine', 'builtin');
  await page.selectOption('#create-level', '1');
  await page.selectOption('#create-side', 'first');
  await page.selectOption('#create-clock', '300000+3000');
  await page.click('#create-submit');
  await page.waitForURL(/#\/game\//);
  await page.waitForSelector('.game-page[data-status="playing"]');
  assert.match(await page.textContent('.player-bar.top'), /Arbiter builtin \(level 1\)/);

  await waitMyTurn(page);
  await drag(page, '22', '18');
  await waitForPly(page, 2);
  await waitMyTurn(page);
  assert.equal(await statusText(page), 'Your move');
  assert.deepEqual(page.errors, []);
  await closePages(page);
});

test('while the engine thinks the status says so, then the turn comes back', async () => {
  // Level 8 of the builtin engine thinks its full 5 s at 5+3 (a search to depth 64 never ends
  // sooner): long enough to see the sign.
  const page = await newPlayer(browser, server, 'patient-player');
  await page.selectOption('#create-variant', 'draughts');
  await page.selectOption('#create-opponent', 'computer');
  await page.selectOption('#create-engine', 'builtin');
  await page.selectOption('#create-level', '8');
  await page.selectOption('#create-side', 'first');
  await page.selectOption('#create-clock', '300000+3000');
  await page.click('#create-submit');
  await page.waitForSelector('.game-page[data-status="playing"]');
  await waitMyTurn(page);
  await drag(page, '22', '18');
  await page.waitForFunction(() => /is thinking…$/.test(document.querySelector('#status')?.textContent ?? ''));
  assert.equal(await statusText(page), 'Arbiter builtin (level 8) is thinking…');
  await waitForPly(page, 2);
  await waitMyTurn(page);
  assert.equal(await statusText(page), 'Your move');
  assert.deepEqual(page.errors, []);
  await closePages(page);
});
