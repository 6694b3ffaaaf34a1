// Issue 41 at the board: draughts captures entered landing by landing (by mouse and by
// keyboard), kept while the page redraws for a chat line or an offer and dropped when the game
// ends, the men that must capture, the route and the men taken after a capture; xiangqi edge
// labels in the move list's WXF numbers, and its export in the same notation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowserPerFile,
  clickClick,
  closePages,
  cursorTo,
  moveListText,
  piecesOnBoard,
  squareCenter,
  twoPlayers,
  waitForPly,
  waitMyTurn,
} from './harness.mjs';

let server;
let browser;
serverAndBrowserPerFile((started, launched) => {
  server = started;
  browser = launched;
});

const boardData = (page) => page.evaluate(() => ({ ...document.querySelector('.board').dataset }));
const kbLive = (page) => page.textContent('.board .kb-live');
const sentMoves = (page, game) => page.sent.filter((m) => m.type === 'move' && m.game === game).map((m) => m.move);

async function clickSquare(page, square) {
  const at = await squareCenter(page, square);
  await page.mouse.click(at.x, at.y);
}

test('draughts: the man that must capture is marked, and a king takes three landing by landing', async () => {
  // The king on 13 reaches 2 by two routes (13x22x11x2 and 13x26x16x2): no start-and-end click
  // names one, the landings do.
  const { first, second } = await twoPlayers(browser, server, { variant: 'draughts', position: 'W:WK13,31:B7,15,17,19,K29' });
  await waitMyTurn(first);
  assert.equal((await boardData(first)).mustCapture, '13');
  assert.equal((await boardData(second)).mustCapture, '', 'only the mover is shown what must capture');
  await clickSquare(first, 13);
  await clickSquare(first, 22);
  await first.waitForFunction(() => document.querySelector('.board').dataset.pending === '13 22');
  assert.equal((await boardData(first)).taken, '17', 'the man jumped so far is marked');
  await clickSquare(first, 11);
  await first.waitForFunction(() => document.querySelector('.board').dataset.pending === '13 22 11');
  await clickSquare(first, 2);
  await waitForPly(first, 1);
  await waitForPly(second, 1);
  assert.equal(await moveListText(first), '1. 13x22x11x2');
  for (const page of [first, second]) {
    await page.waitForFunction(() => document.querySelector('.board').dataset.route === '13 22 11 2');
    const data = await boardData(page);
    assert.equal(data.taken, '17 15 7', 'the men taken are marked after the capture');
    assert.equal(data.pending, '');
  }
  for (const page of [first, second]) assert.deepEqual(page.errors, []);
  await closePages(first, second);
});

/** `page` sends `text` to the players' chat, and `reader` shows it (and so has redrawn its page). */
async function chatTo(page, reader, text) {
  await page.fill('#chat-input', text);
  await page.click('#chat-send');
  await reader.waitForFunction((t) => [...document.querySelectorAll('#chat-players .chat-text')].some((n) => n.textContent === t), text);
}

test('draughts: a capture half-entered by clicks stays while the page redraws (chat, an offer), then ends as one move', async () => {
  const { first, second, game } = await twoPlayers(browser, server, { variant: 'draughts', position: 'W:WK13,31:B7,15,17,19,K29' });
  await waitMyTurn(first);
  await clickSquare(first, 13);
  await clickSquare(first, 22);
  await first.waitForFunction(() => document.querySelector('.board').dataset.pending === '13 22');
  const onLanding = await piecesOnBoard(first);
  // The opponent's chat line redraws the page: the position, and so what may be played, is the same.
  await chatTo(second, first, 'take your time');
  assert.equal((await boardData(first)).pending, '13 22', 'the route under way is still drawn');
  assert.equal((await boardData(first)).taken, '17');
  assert.deepEqual(await piecesOnBoard(first), onLanding, 'the king still stands on its landing');
  await clickSquare(first, 11);
  await first.waitForFunction(() => document.querySelector('.board').dataset.pending === '13 22 11');
  // So does the opponent's draw offer.
  await second.click('#offer-draw');
  await first.waitForSelector('#accept-draw');
  assert.equal((await boardData(first)).pending, '13 22 11');
  assert.equal((await boardData(first)).taken, '17 15');
  await clickSquare(first, 2);
  await waitForPly(second, 1);
  assert.deepEqual(sentMoves(first, game), ['13x22x11x2']);
  assert.equal(await moveListText(second), '1. 13x22x11x2');
  await first.waitForFunction(() => document.querySelector('.board').dataset.route === '13 22 11 2');
  assert.equal((await boardData(first)).taken, '17 15 7');
  for (const page of [first, second]) assert.deepEqual(page.errors, []);
  await closePages(first, second);
});

test('draughts: a double capture by its start and end, and a click elsewhere drops a half-entered one', async () => {
  // Black (the second seat) moves first and must take twice: 7x14x23, written 7x23.
  const { first, second } = await twoPlayers(browser, server, {
    variant: 'draughts',
    position: 'B:W10,18,21,22,24,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,11,12,13',
  });
  await waitMyTurn(second);
  assert.equal((await boardData(second)).mustCapture, '7');
  await clickSquare(second, 7);
  await clickSquare(second, 14);
  await second.waitForFunction(() => document.querySelector('.board').dataset.pending === '7 14');
  await clickSquare(second, 1); // not the next landing: the capture is dropped
  await second.waitForFunction(() => document.querySelector('.board').dataset.pending === '');
  assert.equal((await boardData(second)).mustCapture, '7');
  await clickClick(second, 7, 23);
  await waitForPly(first, 1);
  assert.match(await moveListText(first), /^1\. … 7x23$/);
  await first.waitForFunction(() => document.querySelector('.board').dataset.route === '7 14 23');
  assert.equal((await boardData(first)).taken, '10 18');
  for (const page of [first, second]) assert.deepEqual(page.errors, []);
  await closePages(first, second);
});

/** Puts the keyboard cursor on `square` and presses Enter there. */
async function enterOn(page, square) {
  await cursorTo(page, square);
  await page.keyboard.press('Enter');
}

test('draughts by keyboard: a king takes three landing by landing, each landing told; Escape takes a half-entered capture back', async () => {
  const { first, second, game } = await twoPlayers(browser, server, { variant: 'draughts', position: 'W:WK13,31:B7,15,17,19,K29' });
  await waitMyTurn(first);
  await first.focus('.board');
  const before = await piecesOnBoard(first);
  await enterOn(first, 13);
  assert.equal(await kbLive(first), 'Picked up 13, white king');
  await enterOn(first, 22);
  assert.equal((await boardData(first)).pending, '13 22');
  assert.equal((await boardData(first)).taken, '17');
  assert.equal(await kbLive(first), 'On 22, taking 17. Next landing: 11');
  assert.equal(await first.isVisible('.board .kb-picked'), true, 'the king stays picked up on its landing');
  // A square that is no next landing changes nothing.
  await enterOn(first, 18);
  assert.equal(await kbLive(first), 'No landing on 18. On 22, taking 17. Next landing: 11');
  assert.equal((await boardData(first)).pending, '13 22');
  // Escape: the capture is taken back, the king stands on 13 again.
  await first.keyboard.press('Escape');
  assert.equal(await kbLive(first), 'Capture taken back');
  assert.equal((await boardData(first)).pending, '');
  assert.equal(await first.isHidden('.board .kb-picked'), true);
  assert.deepEqual(await piecesOnBoard(first), before);
  assert.deepEqual(sentMoves(first, game), []);

  // The whole capture, landing by landing: 13x22x11x2 (13x26x16x2 also ends on 2).
  await enterOn(first, 13);
  await enterOn(first, 22);
  assert.equal((await boardData(first)).pending, '13 22');
  await enterOn(first, 11);
  assert.equal((await boardData(first)).pending, '13 22 11');
  assert.equal((await boardData(first)).taken, '17 15');
  assert.equal(await kbLive(first), 'On 11, taking 17, 15. Next landing: 2');
  assert.deepEqual(sentMoves(first, game), [], 'nothing is sent before the capture ends');
  await enterOn(first, 2);
  await waitForPly(second, 1);
  assert.deepEqual(sentMoves(first, game), ['13x22x11x2']);
  assert.equal(await moveListText(second), '1. 13x22x11x2');
  await first.waitForFunction(() => document.querySelector('.board').dataset.route === '13 22 11 2');
  assert.equal((await boardData(first)).taken, '17 15 7');
  assert.equal(await second.textContent('#announce'), 'White played 13x22x11x2');
  for (const page of [first, second]) assert.deepEqual(page.errors, []);
  await closePages(first, second);
});

test('draughts by keyboard: a capture half-entered stays while the page redraws, then ends as one move', async () => {
  const { first, second, game } = await twoPlayers(browser, server, { variant: 'draughts', position: 'W:WK13,31:B7,15,17,19,K29' });
  await waitMyTurn(first);
  await first.focus('.board');
  await enterOn(first, 13);
  await enterOn(first, 22);
  assert.equal((await boardData(first)).pending, '13 22');
  const onLanding = await piecesOnBoard(first);
  await chatTo(second, first, 'hello');
  assert.equal((await boardData(first)).pending, '13 22', 'the route under way is still drawn');
  assert.equal((await boardData(first)).taken, '17');
  assert.deepEqual(await piecesOnBoard(first), onLanding, 'the king still stands on its landing');
  assert.equal(await first.isVisible('.board .kb-picked'), true, 'the king stays picked up on its landing');
  await enterOn(first, 11);
  assert.equal((await boardData(first)).pending, '13 22 11');
  assert.equal(await kbLive(first), 'On 11, taking 17, 15. Next landing: 2');
  await chatTo(second, first, 'still there?');
  assert.equal((await boardData(first)).pending, '13 22 11');
  assert.equal((await boardData(first)).taken, '17 15');
  await enterOn(first, 2);
  await waitForPly(second, 1);
  assert.deepEqual(sentMoves(first, game), ['13x22x11x2']);
  assert.equal(await moveListText(second), '1. 13x22x11x2');
  await first.waitForFunction(() => document.querySelector('.board').dataset.route === '13 22 11 2');
  for (const page of [first, second]) assert.deepEqual(page.errors, []);
  await closePages(first, second);
});

test('draughts by keyboard: the game\'s end drops a capture under way', async () => {
  const { first, second, game } = await twoPlayers(browser, server, { variant: 'draughts', position: 'W:WK13,31:B7,15,17,19,K29' });
  await waitMyTurn(first);
  await first.focus('.board');
  const before = await piecesOnBoard(first);
  await enterOn(first, 13);
  await enterOn(first, 22);
  assert.equal((await boardData(first)).pending, '13 22');
  await second.click('#resign');
  await second.click('#resign'); // the second press confirms
  await first.waitForSelector('.game-page[data-status="ended"]');
  assert.equal((await boardData(first)).pending, '');
  assert.equal((await boardData(first)).taken, '');
  assert.equal(await first.isHidden('.board .kb-picked'), true, 'the king is no longer picked up');
  assert.deepEqual(await piecesOnBoard(first), before, 'the king is back on 13');
  await enterOn(first, 11);
  assert.deepEqual(sentMoves(first, game), []);
  for (const page of [first, second]) assert.deepEqual(page.errors, []);
  await closePages(first, second);
});

test('draughts by keyboard: a capture round and back to its start square, offered by Enter on the piece', async () => {
  // Black's man on 11 takes four men round a loop and ends on 11: its only move, 11x11.
  const { first, second, game } = await twoPlayers(browser, server, {
    variant: 'draughts',
    position: 'B:W12,15,16,19,23,24,25,29:B1,3,4,5,8,9,11,13',
  });
  await waitMyTurn(second);
  await second.focus('.board');
  await enterOn(second, 11);
  assert.equal(await kbLive(second), 'Picked up 11, black man');
  await second.keyboard.press('Enter');
  await second.waitForSelector('.board .picker');
  assert.equal(await second.getAttribute('.board .picker', 'aria-label'), 'Capture round and back to this square?');
  assert.equal(await second.evaluate(() => document.activeElement?.dataset.move), '11x11', 'the picker has the focus');
  await second.keyboard.press('Enter');
  await waitForPly(first, 1);
  assert.deepEqual(sentMoves(second, game), ['11x11']);
  assert.match(await moveListText(first), /^1\. … 11x11$/);
  for (const page of [first, second]) assert.deepEqual(page.errors, []);
  await closePages(first, second);
});

test('xiangqi: the edges carry each side\'s WXF file numbers, as the move list and the export', async () => {
  const { first, second, game } = await twoPlayers(browser, server, { variant: 'xiangqi' });
  const labels = (page, edge) =>
    page.$$eval(`.board .xq-files.${edge} span`, (spans) => spans.map((s) => `${s.dataset.file}${s.textContent}`));
  // Red at the bottom: files a..i numbered 9..1 (red's right is i); black's numbers on top.
  assert.deepEqual(await labels(first, 'bottom'), ['a9', 'b8', 'c7', 'd6', 'e5', 'f4', 'g3', 'h2', 'i1']);
  assert.deepEqual(await labels(first, 'top'), ['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7', 'h8', 'i9']);
  // Black at the bottom: files i..a, black's numbers 9..1 from left to right.
  assert.deepEqual(await labels(second, 'bottom'), ['i9', 'h8', 'g7', 'f6', 'e5', 'd4', 'c3', 'b2', 'a1']);
  assert.deepEqual(await labels(second, 'top'), ['i1', 'h2', 'g3', 'f4', 'e5', 'd6', 'c7', 'b8', 'a9']);
  await waitMyTurn(first);
  await clickClick(first, 'h3', 'e3'); // the cannon on red's file 2 to file 5
  await waitMyTurn(second);
  await clickClick(second, 'h10', 'g8'); // the horse on black's file 8 to file 7
  await waitForPly(first, 2);
  assert.equal(await moveListText(first), '1. C2.5 H8+7');
  const pgn = await first.evaluate(async (id) => (await fetch(`/api/games/${id}/export`)).text(), game);
  assert.match(pgn, /\[Format "WXF"\]/);
  assert.match(pgn, /\n1\. C2\.5 \{ \[%clk [^}]*\} 1\.\.\. H8\+7 /, pgn);
  // Flipping the board moves the labels with the sides.
  await first.click('#flip');
  assert.deepEqual((await labels(first, 'bottom'))[0], 'i9');
  for (const page of [first, second]) assert.deepEqual(page.errors, []);
  await closePages(first, second);
});
