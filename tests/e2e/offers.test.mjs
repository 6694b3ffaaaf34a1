// The offer buttons show only what the server can accept now (protocol.md, "Draws and
// takebacks", "Rematch"), and an offer the server has withdrawn leaves both pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowserPerFile,
  closePages,
  createGame,
  drag,
  moveListText,
  newPlayer,
  waitForPly,
  waitMyTurn,
  twoPlayers as twoPlayersOf,
} from './harness.mjs';

let server;
let browser;
serverAndBrowserPerFile((started, launched) => {
  server = started;
  browser = launched;
});

const twoPlayers = (variant) => twoPlayersOf(browser, server, { variant });

test('an accepted takeback withdraws the open draw offer on both pages', async () => {
  const { first, second } = await twoPlayers('chess');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await waitMyTurn(second);
  await drag(second, 'e7', 'e5');
  await waitForPly(first, 2);
  // White offers a draw; black, instead of answering it, asks to take e5 back, and white agrees.
  await first.click('#offer-draw');
  await second.waitForSelector('#accept-draw');
  await first.waitForFunction(() => document.querySelector('#offer-draw')?.disabled === true);
  await second.click('#offer-takeback');
  await first.waitForSelector('#accept-takeback');
  await first.click('#accept-takeback');
  await waitForPly(first, 1);
  await waitForPly(second, 1);
  assert.equal(await moveListText(second), '1. e4');
  // The server dropped every open offer with the takeback (protocol.md): the draw offer is gone.
  assert.equal(await second.$('.offer[data-kind="draw"]'), null, 'black is no longer asked to answer a draw offer');
  await first.waitForSelector('#offer-draw');
  assert.equal(await first.$eval('#offer-draw', (b) => b.disabled), false, 'white may offer a draw again');
  assert.equal((await first.textContent('#offer-draw')).trim(), 'Offer draw');
  // And the offer the button makes is accepted by the server.
  await first.click('#offer-draw');
  await second.waitForSelector('#accept-draw');
  assert.doesNotMatch(await first.textContent('#message'), /already/);
  await closePages(first, second);
});

test('a takeback is asked for only by a side that has a move to take back', async () => {
  const { first, second } = await twoPlayers('chess');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await waitMyTurn(second);
  // Black has not moved: the server would refuse its takeback (not_allowed), so it is not offered.
  assert.equal(await second.$('#offer-takeback'), null, 'black has no move to take back');
  assert.notEqual(await first.$('#offer-takeback'), null, 'white may take e4 back');
  await drag(second, 'e7', 'e5');
  await waitForPly(second, 2);
  await second.waitForSelector('#offer-takeback');
  await closePages(first, second);
});

test('a game cancelled before anyone joined offers no rematch', async () => {
  const alone = await newPlayer(browser, server, 'Alice');
  await createGame(alone, { variant: 'xiangqi' });
  await alone.click('#abort');
  await alone.waitForSelector('.game-page[data-status="aborted"]');
  // Nobody took the other seat: the server refuses a rematch offer (not_allowed).
  assert.equal(await alone.$('#offer-rematch'), null);
  await closePages(alone);
});
