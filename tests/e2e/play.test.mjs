// Two browser pages play each game against each other through a real server while a third page
// watches; all three must end on the same position, and every board is kept as a screenshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowserPerFile,
  boardPosition,
  clickClick,
  closePages,
  createGame,
  drag,
  joinByLink,
  moveListText,
  newPlayer,
  piecesOnBoard,
  screenshotBoard,
  statusText,
  twoPlayers,
  waitForPly,
  waitMyTurn,
  watch,
} from './harness.mjs';

let server;
let browser;
serverAndBrowserPerFile((started, launched) => {
  server = started;
  browser = launched;
});

async function threePages(variant, position = '') {
  const first = await newPlayer(browser, server, `${variant}-first`);
  const second = await newPlayer(browser, server, `${variant}-second`);
  const spectator = await newPlayer(browser, server, `${variant}-watcher`);
  const game = await createGame(first, { variant, position });
  await joinByLink(second, server, game);
  await first.waitForSelector('.game-page[data-status="playing"]');
  await watch(spectator, server, game);
  return { first, second, spectator, game };
}

async function sameEnd(pages, expected) {
  for (const page of pages) {
    await page.waitForSelector('.game-page[data-status="ended"]', { timeout: 15000 });
    assert.match(await statusText(page), expected);
  }
  const positions = await Promise.all(pages.map(boardPosition));
  assert.ok(positions[0], 'the board carries the server position');
  for (const position of positions) assert.equal(position, positions[0]);
  const boards = await Promise.all(pages.map(piecesOnBoard));
  // Players see their own side at the bottom; compare the watcher with the first player (same
  // orientation) piece by piece.
  assert.deepEqual(boards[2], boards[0]);
  for (const page of pages) assert.deepEqual(page.errors, []);
}

test('chess: fool\'s mate by drag and click-click, watched live; a reload resumes the seat', async () => {
  const { first, second, spectator, game } = await threePages('chess');
  assert.equal(await statusText(first), 'Your move');
  assert.equal(await statusText(second), 'White to move');
  // The black player's board is seen from black's side.
  assert.ok(await second.$('.cg-wrap.orientation-black'));
  await drag(first, 'f2', 'f3');
  await waitForPly(second, 1);
  await waitMyTurn(second);
  await clickClick(second, 'e7', 'e5');
  await waitForPly(first, 2);

  // Black's page reloads in the middle of the game: it comes back as black, not as a watcher.
  await second.reload();
  await second.waitForSelector('.game-page[data-status="playing"]');
  await waitForPly(second, 2);
  assert.match(await second.textContent('.player-bar.bottom'), /Black · you/);

  await waitMyTurn(first);
  await drag(first, 'g2', 'g4');
  await waitForPly(second, 3);
  await waitMyTurn(second);
  await drag(second, 'd8', 'h4');
  await waitForPly(spectator, 4);
  await sameEnd([first, second, spectator], /^Black wins by checkmate$/);
  assert.equal(await moveListText(spectator), '1. f3 e5 2. g4 Qh4#');
  assert.equal(await spectator.$('#resign'), null, 'a watcher has no controls');
  await screenshotBoard(spectator, 'chess-spectator');
  await screenshotBoard(second, 'chess-black');
  assert.ok(game);
  await closePages(first, second, spectator);
});

test('xiangqi: red mates with a rook from a given position, watched live', async () => {
  const { first, second, spectator } = await threePages('xiangqi', '3k5/8R/R8/9/9/9/9/9/9/4K4 w - - 0 1');
  await screenshotBoard(first, 'xiangqi-red-start');
  await drag(first, 'a8', 'a10');
  await waitForPly(spectator, 1);
  await sameEnd([first, second, spectator], /^Red wins by checkmate$/);
  await screenshotBoard(spectator, 'xiangqi-spectator');
  await screenshotBoard(second, 'xiangqi-black');
  await closePages(first, second, spectator);
});

test('xiangqi: the standard start position is drawn with every piece', async () => {
  const { first, second, spectator } = await threePages('xiangqi');
  const pieces = await piecesOnBoard(first);
  assert.equal(pieces.length, 32);
  await drag(first, 'h3', 'e3');
  await waitForPly(second, 1);
  await screenshotBoard(second, 'xiangqi-start-black');
  await screenshotBoard(first, 'xiangqi-start-red');
  await closePages(first, second, spectator);
});

test('draughts: white captures the last black man, watched live', async () => {
  const { first, second, spectator } = await threePages('draughts', 'W:W22:B18');
  await drag(first, '22', '15');
  await waitForPly(spectator, 1);
  await sameEnd([first, second, spectator], /^White wins\b/);
  await screenshotBoard(spectator, 'draughts-spectator');
  await closePages(first, second, spectator);
});

test('draughts: the standard start position shows 12 men a side on dark squares', async () => {
  const { first, second, spectator } = await threePages('draughts');
  assert.equal((await piecesOnBoard(first)).length, 24);
  await clickClick(first, '22', '18');
  await waitForPly(second, 1);
  await screenshotBoard(first, 'draughts-start-white');
  await screenshotBoard(second, 'draughts-start-black');
  await closePages(first, second, spectator);
});

test('each move reports the think time the page measured from the turn it got (think_ms)', async () => {
  const { first, second, game } = await twoPlayers(browser, server, { variant: 'chess' });
  const thinkingMs = 700;
  await waitMyTurn(first);
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await waitMyTurn(second);
  await second.waitForTimeout(thinkingMs);
  await drag(second, 'e7', 'e5');
  await waitForPly(first, 2);
  await waitMyTurn(first);
  await first.waitForTimeout(thinkingMs);
  await drag(first, 'g1', 'f3');
  await waitForPly(second, 3);

  const movesOf = (page) => page.sent.filter((m) => m.type === 'move' && m.game === game);
  const [, whiteSecond] = movesOf(first);
  const [reply] = movesOf(second);
  for (const sent of [reply, whiteSecond]) {
    assert.equal(typeof sent.think_ms, 'number', `no think_ms in ${JSON.stringify(sent)}`);
    assert.ok(sent.think_ms >= thinkingMs && sent.think_ms < thinkingMs + 5000, `think_ms ${sent.think_ms}`);
  }
  // White's second move is timed: the server's time for it encloses the page's think time, and
  // on this link (no delay) the credit is the few ms between the two, within the round trip's bound.
  const record = await (await fetch(`${server.url}/api/games/${game}`)).json();
  const stored = record.moves[2];
  assert.equal(stored.ply, 3);
  assert.ok(stored.think_ms >= whiteSecond.think_ms - 1, `server ${stored.think_ms} ms < page ${whiteSecond.think_ms} ms`);
  assert.ok(stored.lag_ms >= 0 && stored.lag_ms <= 20, `lag_ms ${stored.lag_ms} on a link without delay`);
  assert.deepEqual(first.errors, []);
  assert.deepEqual(second.errors, []);
  await closePages(first, second);
});
