// The rest of what a person does: an illegal drop goes back, a promotion asks which piece, a
// dropped connection comes back by itself, offers and resignation end a game with a clear
// message, and a finished game replays step by step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowserPerFile,
  boardPosition,
  closePages,
  createGame,
  foolsMate,
  drag,
  joinByLink,
  newPlayer,
  piecesOnBoard,
  playMoves,
  screenshotBoard,
  squareCenter as squareCenterOf,
  statusText,
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

const twoPlayers = (variant, position = '') => twoPlayersOf(browser, server, { variant, position });

async function pieceAt(page, square) {
  return page.evaluate(async (sq) => {
    const board = document.querySelector('.board cg-board');
    const wrap = document.querySelector('.board .cg-wrap');
    const white = wrap.classList.contains('orientation-white');
    const file = sq.charCodeAt(0) - 97;
    const rank = Number(sq.slice(1)) - 1;
    const size = board.getBoundingClientRect().width / 8;
    const x = Math.round((white ? file : 7 - file) * size);
    const y = Math.round((white ? 7 - rank : rank) * size);
    for (const piece of board.querySelectorAll('piece:not(.ghost)')) {
      const m = /translate\(([-\d.]+)px, ?([-\d.]+)px\)/.exec(piece.style.transform);
      if (m && Math.abs(Number(m[1]) - x) < 2 && Math.abs(Number(m[2]) - y) < 2) {
        const role = [...piece.classList].find((c) => c.endsWith('-piece'));
        return `${role} ${piece.classList.contains('white') ? 'white' : 'black'}`;
      }
    }
    return null;
  }, square);
}

/** pieceAt once any move animation has settled (polls for up to 3 s). */
async function settledPieceAt(page, square, expected) {
  let seen = null;
  for (let attempt = 0; attempt < 30; attempt++) {
    seen = await pieceAt(page, square);
    if (seen === expected) break;
    await page.waitForTimeout(100);
  }
  assert.equal(seen, expected, `${expected} on ${square}`);
}

test('an illegal drop is refused and the piece goes back; a legal one is played', async () => {
  const { first, second } = await twoPlayers('chess');
  const before = await piecesOnBoard(first);
  const position = await boardPosition(first);
  await drag(first, 'e2', 'e5'); // not in the server's legal list
  await first.waitForTimeout(400);
  assert.deepEqual(await piecesOnBoard(first), before, 'the pawn is back on e2');
  assert.equal(await boardPosition(first), position);
  assert.equal(await pieceAt(first, 'e2'), 'p-piece white');
  // A move typed by keyboard that the server's list lacks is refused with the server's reason
  // (the box sends display notation too, which only the server can read), and nothing is played.
  await first.fill('#move-input', 'e2e5');
  await first.press('#move-input', 'Enter');
  await first.waitForSelector('#message.error');
  assert.match(await first.textContent('#message'), /^e2e5: \S/);
  assert.equal(await boardPosition(first), position);
  assert.equal(await pieceAt(first, 'e2'), 'p-piece white');
  // Dragging the opponent's piece does nothing either.
  await drag(first, 'e7', 'e5');
  await first.waitForTimeout(300);
  assert.equal(await pieceAt(first, 'e7'), 'p-piece black');
  // The keyboard path plays a legal move.
  await first.fill('#move-input', 'e2e4');
  await first.press('#move-input', 'Enter');
  await waitForPly(second, 1);
  await settledPieceAt(second, 'e4', 'p-piece white');
  await closePages(first, second);
});

test('a promotion asks which piece and plays the one picked', async () => {
  const { first, second } = await twoPlayers('chess', 'k7/4P3/8/8/8/8/8/4K3 w - - 0 1');
  await drag(first, 'e7', 'e8');
  await first.waitForSelector('.picker');
  const choices = await first.$$eval('.picker .pick[data-move]', (b) => b.map((x) => x.dataset.move).sort());
  assert.deepEqual(choices, ['e7e8b', 'e7e8n', 'e7e8q', 'e7e8r']);
  await screenshotBoard(first, 'chess-promotion-picker');
  await first.click('.picker .pick[data-move="e7e8n"]');
  await waitForPly(second, 1);
  await settledPieceAt(second, 'e8', 'n-piece white');
  assert.match(await second.textContent('#moves'), /e8=N/);
  await closePages(first, second);
});

test('an open promotion picker stays open when the opponent offers a draw, and Cancel still puts the pawn back', async () => {
  const { first, second } = await twoPlayers('chess', 'k7/4P3/8/8/8/8/8/4K3 w - - 0 1');
  await drag(first, 'e7', 'e8');
  await first.waitForSelector('.picker');
  // The offer redraws white's page while the picker is open.
  await second.click('#offer-draw');
  await first.waitForSelector('#accept-draw');
  assert.equal(await first.locator('.picker').count(), 1, 'the picker was closed by the redraw');
  await first.click('.picker .pick.cancel');
  assert.equal(await first.locator('.picker').count(), 0);
  await settledPieceAt(first, 'e7', 'p-piece white');
  await drag(first, 'e7', 'e8');
  await first.waitForSelector('.picker');
  await first.keyboard.press('Escape');
  assert.equal(await first.locator('.picker').count(), 0, 'Escape closes the picker');
  await settledPieceAt(first, 'e7', 'p-piece white');
  await drag(first, 'e7', 'e8');
  await first.click('.picker .pick[data-move="e7e8q"]');
  await waitForPly(second, 1);
  await settledPieceAt(second, 'e8', 'q-piece white');
  await closePages(first, second);
});

test('a draughts capture that runs round to its own square is offered on selecting the piece', async () => {
  const { first, second } = await twoPlayers('draughts', 'W:W22,K31:B9,10,17,18,K4');
  const { x, y } = await squareCenterOf(first, '22');
  await first.mouse.click(x, y);
  await first.waitForSelector('.picker .pick[data-move]');
  const choices = await first.$$eval('.picker .pick[data-move]', (b) => b.map((x) => x.dataset.move));
  assert.equal(choices.length, 1);
  assert.match(choices[0], /^22x/);
  assert.match(choices[0], /x22$/);
  await screenshotBoard(first, 'draughts-round-capture-picker');
  await first.click('.picker .pick[data-move]');
  await waitForPly(second, 1);
  // All four black men are gone; the two kings remain with the capturing man back on 22.
  assert.equal((await piecesOnBoard(second)).length, 3);
  await screenshotBoard(second, 'draughts-kings');
  await closePages(first, second);
});

test('a dropped connection reconnects by itself, says so, and the game goes on', async () => {
  const { first, second } = await twoPlayers('chess');
  await drag(first, 'd2', 'd4');
  await waitForPly(second, 1);
  // Every text the banner shows is recorded: "Connection lost" lasts only until the reconnect,
  // which a busy machine may reach before the test looks.
  await second.evaluate(() => {
    const banner = document.querySelector('#connection');
    window.bannerTexts = [];
    // Each text set is a node added to the banner, recorded even if two come in one task.
    new MutationObserver((records) => {
      for (const record of records) for (const node of record.addedNodes) window.bannerTexts.push(node.textContent);
    }).observe(banner, { childList: true });
    window.arbiter.conn.drop();
  });
  await second.waitForFunction(() => /Reconnected/.test(document.querySelector('#connection').textContent), null, {
    timeout: 15000,
  });
  const shown = await second.evaluate(() => window.bannerTexts);
  assert.ok(shown.some((text) => /Connection lost/.test(text)), shown.join(' | '));
  await waitMyTurn(second);
  await drag(second, 'd7', 'd5');
  await waitForPly(first, 2);
  assert.equal(await boardPosition(first), await boardPosition(second));
  await closePages(first, second);
});

test('draw offer declined, then accepted; resignation and its message', async () => {
  const { first, second } = await twoPlayers('chess');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await first.click('#offer-draw');
  await second.waitForSelector('#decline-draw');
  await second.click('#decline-draw');
  await first.waitForFunction(() => /declined a draw/.test(document.querySelector('#message').textContent));
  await second.click('#offer-draw');
  await first.waitForSelector('#accept-draw');
  await first.click('#accept-draw');
  for (const page of [first, second]) {
    await page.waitForSelector('.game-page[data-status="ended"]');
    assert.equal(await statusText(page), 'Draw by agreement');
  }

  const next = await twoPlayers('draughts');
  await next.second.click('#resign');
  await next.second.click('#resign'); // the second press confirms
  await next.first.waitForSelector('.game-page[data-status="ended"]');
  assert.equal(await statusText(next.first), 'White wins by resignation');
  await closePages(first, second, next.first, next.second);
});

test('a finished game replays: first, next, previous, last, slider, keys, and a click on a move', async () => {
  const { first, second, game } = await twoPlayers('chess');
  const positions = [await boardPosition(first)];
  await playMoves(foolsMate(first, second), [first, second], async () => positions.push(await boardPosition(first)));
  await first.waitForSelector('.game-page[data-status="ended"]');

  const viewer = await newPlayer(browser, server, 'Viewer');
  await viewer.goto(`${server.url}/#/replay/${game}`);
  await viewer.waitForSelector('#replay-ply');
  await viewer.waitForFunction(() => document.querySelector('#replay-ply').textContent === '4 / 4');
  assert.equal(await boardPosition(viewer), positions[4]);
  assert.match(await viewer.textContent('#status'), /Black wins by checkmate/);
  const checkedSquares = () => viewer.locator('cg-board square.check').count();
  assert.equal(await checkedSquares(), 1, 'the mated king is shown in check');
  await viewer.click('#replay-first');
  assert.equal(await boardPosition(viewer), positions[0]);
  for (let ply = 1; ply <= 4; ply++) {
    await viewer.click('#replay-next');
    assert.equal(await boardPosition(viewer), positions[ply]);
    assert.equal(await viewer.textContent('#replay-ply'), `${ply} / 4`);
    // The board draws on its next animation frame: wait for it rather than read the DOM first.
    const expected = ply === 4 ? 1 : 0;
    await viewer
      .waitForFunction((n) => document.querySelectorAll('cg-board square.check').length === n, expected, { timeout: 5000 })
      .catch(() => {});
    assert.equal(await checkedSquares(), expected, `check shown at ply ${ply}`);
  }
  await viewer.click('#replay-prev');
  assert.equal(await boardPosition(viewer), positions[3]);
  await viewer.keyboard.press('ArrowLeft');
  assert.equal(await boardPosition(viewer), positions[2]);
  await viewer.keyboard.press('End');
  assert.equal(await boardPosition(viewer), positions[4]);
  await viewer.locator('#replay-slider').fill('1');
  assert.equal(await boardPosition(viewer), positions[1]);
  await viewer.click('#moves .move[data-ply="3"]');
  assert.equal(await boardPosition(viewer), positions[3]);
  await viewer.click('#replay-last');
  await screenshotBoard(viewer, 'chess-replay-final');
  // The lobby lists the finished game with a replay link.
  await viewer.goto(`${server.url}/#/`);
  await viewer.waitForSelector(`#finished-games li[data-game="${game}"] a`);
  assert.deepEqual(viewer.errors, []);
  await closePages(first, second, viewer);
});

test('a phone-sized screen shows the whole board', async () => {
  const phone = await newPlayer(browser, server, 'Phone', { width: 390, height: 844 });
  const game = await createGame(phone, { variant: 'xiangqi' });
  const box = await phone.locator('.board').boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `board fits the width: ${JSON.stringify(box)}`);
  await screenshotBoard(phone, 'xiangqi-phone');
  assert.ok(game);
  await closePages(phone);
});
