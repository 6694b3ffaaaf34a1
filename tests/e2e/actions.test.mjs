// The game buttons through a real server: takeback, abort, claim after the opponent leaves, and a
// rematch that both players and a watcher follow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowserPerFile,
  closePages,
  createGame,
  drag,
  joinByLink,
  moveListText,
  newPlayer,
  statusText,
  waitForPly,
  waitMyTurn,
  watch,
  twoPlayers as twoPlayersOf,
} from './harness.mjs';

let server;
let browser;
serverAndBrowserPerFile((started, launched) => {
  server = started;
  browser = launched;
}, ['--disconnect-timeout', '1']);

const twoPlayers = (variant) => twoPlayersOf(browser, server, { variant });

test('a takeback on agreement removes the move from both boards', async () => {
  const { first, second } = await twoPlayers('chess');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await drag(second, 'e7', 'e5');
  await waitForPly(first, 2);
  // Black takes back the move just played: one ply goes, and it is black's move again.
  await second.click('#offer-takeback');
  await first.waitForSelector('#accept-takeback');
  await first.click('#accept-takeback');
  await waitForPly(first, 1);
  await waitForPly(second, 1);
  assert.equal(await moveListText(second), '1. e4');
  await waitMyTurn(second);
  await closePages(first, second);
});

test('abort before both sides moved ends the game as aborted', async () => {
  const { first, second } = await twoPlayers('xiangqi');
  await first.click('#abort');
  for (const page of [first, second]) {
    await page.waitForSelector('.game-page[data-status="aborted"]');
    assert.equal(await statusText(page), 'Game aborted');
  }
  await closePages(first, second);
});

test('a game whose creator leaves before anyone joins is aborted, and a watcher is told why', async () => {
  const first = await newPlayer(browser, server, 'Alice');
  const game = await createGame(first, { variant: 'draughts' });
  const watcher = await newPlayer(browser, server, 'Wes');
  await watch(watcher, server, game);
  await first.context().close();
  await watcher.waitForSelector('.game-page[data-status="aborted"]', { timeout: 10000 });
  assert.equal(await statusText(watcher), 'Game aborted: its creator did not come back');
  await closePages(watcher);
});

test('when the opponent leaves, a claim opens after the timeout and wins', async () => {
  const { first, second } = await twoPlayers('draughts');
  await drag(first, '22', '18');
  await waitForPly(second, 1);
  await second.context().close();
  await first.waitForSelector('#claim-win');
  await first.waitForFunction(() => !document.querySelector('#claim-win').disabled, null, { timeout: 10000 });
  await first.click('#claim-win');
  await first.waitForSelector('.game-page[data-status="ended"]');
  assert.match(await statusText(first), /^White wins/);
  await closePages(first);
});

test('a rematch swaps the seats and the watcher can follow it', async () => {
  const { first, second, game } = await twoPlayers('chess');
  const watcher = await newPlayer(browser, server, 'Carol');
  await watch(watcher, server, game);
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await second.click('#resign');
  await second.click('#resign');
  await first.waitForSelector('#offer-rematch');
  await first.click('#offer-rematch');
  await second.waitForSelector('#accept-rematch');
  await second.click('#accept-rematch');
  for (const page of [first, second]) {
    await page.waitForURL((url) => url.hash.startsWith('#/game/') && !url.hash.endsWith(game));
  }
  const next = first.url().split('#/game/')[1];
  assert.equal(second.url().split('#/game/')[1], next);
  await first.waitForSelector('.game-page[data-status="playing"]');
  // Seats are swapped: Alice now plays black, Bob white and moves first.
  await first.waitForFunction(() => /Black · you/.test(document.querySelector('.player-bar.bottom').textContent));
  await waitMyTurn(second);
  await watcher.waitForSelector('#rematch-link');
  await watcher.click('#rematch-link');
  await watcher.waitForSelector('.game-page[data-status="playing"]');
  await drag(second, 'd2', 'd4');
  await waitForPly(watcher, 1);
  assert.equal(await watcher.$('#resign'), null);
  await closePages(first, second, watcher);
});

test('a resume refused as busy keeps the seat: the page asks again and plays on', async () => {
  const { first, second } = await twoPlayers('chess');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  // Alice's page comes back through a socket whose first resume is answered as a busy server
  // answers it; every other message passes both ways.
  let refused = 0;
  await first.context().routeWebSocket(/\/ws$/, (page) => {
    const server = page.connectToServer();
    page.onMessage((message) => {
      const request = JSON.parse(message);
      if (request.type === 'resume' && refused === 0) {
        refused++;
        page.send(JSON.stringify({ type: 'error', code: 'unavailable', message: 'the server is busy reading stored games; try again shortly', id: request.id }));
        return;
      }
      server.send(message);
    });
  });
  await first.reload();
  await first.waitForSelector('text=trying again');
  await first.waitForSelector('.game-page[data-status="playing"]');
  await drag(second, 'e7', 'e5');
  await waitForPly(first, 2);
  await waitMyTurn(first);
  await drag(first, 'g1', 'f3');
  await waitForPly(second, 3);
  assert.equal(refused, 1);
  assert.equal(await first.locator('.message.error').count(), 0, 'the notice is gone once the game is back');
  await closePages(first, second);
});

