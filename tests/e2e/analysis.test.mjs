// Analysis in replay (issue 42): the evaluation graph has one point per ply and a click on one
// jumps to that move, the engine's best move is drawn as an arrow, the marks stand in the move
// list, and the analysis board plays a legal move that the server gives (GET /api/explore) and
// goes back. The first test pins the drawing to a fixed analysis (GET /api/games/{id}/analysis
// answered by request interception, shaped as protocol.md says); the second asks the server for
// its own, from the replay's button, and the engine for the analysis board's position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { serverAndBrowserPerFile, closePages, foolsMate, newPlayer, outputDir, playMoves, twoPlayers as twoPlayersOf } from './harness.mjs';

let server;
let browser;
// The server's own analysis runs on the builtin engine here (no --engine): a short search each.
serverAndBrowserPerFile(
  (started, launched) => {
    server = started;
    browser = launched;
  },
  ['--analysis-nodes', '20000'],
);

/** Fool's mate, analysed: each ply's evaluation from white's view, best move and mark. */
function fixture(game) {
  return {
    game,
    status: 'done',
    engine: 'stockfish',
    done: 5,
    total: 5,
    plies: [
      { ply: 0, eval: { cp: 25 }, best: 'e2e4', pv: ['e2e4', 'e7e5'], mark: null },
      { ply: 1, eval: { cp: -60 }, best: 'e7e5', pv: ['e7e5', 'e2e4'], mark: '?!' },
      { ply: 2, eval: { cp: -40 }, best: 'e2e4', pv: ['e2e4'], mark: null },
      { ply: 3, eval: { mate: -1 }, best: 'd8h4', pv: ['d8h4'], mark: '??' },
      { ply: 4, eval: null, best: null, pv: [], mark: null },
    ],
    accuracy: { white: 12.5, black: 100 },
    counts: { white: { inaccuracy: 1, mistake: 0, blunder: 1 }, black: { inaccuracy: 0, mistake: 0, blunder: 0 } },
  };
}

/** The page position of a chess square on the analysis board (not the replay's). */
async function exploreSquare(page, square) {
  return page.evaluate((sq) => {
    const wrap = document.querySelector('#explore .cg-wrap');
    const white = wrap.classList.contains('orientation-white');
    const file = sq.charCodeAt(0) - 97;
    const rank = Number(sq.slice(1)) - 1;
    const box = wrap.querySelector('cg-board').getBoundingClientRect();
    const col = white ? file : 7 - file;
    const row = white ? 7 - rank : rank;
    return { x: box.left + ((col + 0.5) * box.width) / 8, y: box.top + ((row + 0.5) * box.height) / 8 };
  }, square);
}

async function dragOnExplore(page, from, to) {
  const a = await exploreSquare(page, from);
  const b = await exploreSquare(page, to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
}

/**
 * The fool's mate's g4 (ply 3) as the replay shows it once analysed: a blunder point on the graph
 * that jumps to the move when clicked, `??` right after the move (with the mover's clock time in
 * a timed game), and the best reply, Qh4#, drawn as an arrow.
 */
async function showsTheBlunderAtPly3(viewer) {
  assert.equal(await viewer.getAttribute('#eval-graph circle[data-ply="3"]', 'class'), 'graph-point mark-blunder');
  await viewer.click('#eval-graph circle[data-ply="3"]');
  await viewer.waitForFunction(() => document.querySelector('#replay-ply').textContent === '3 / 4');
  assert.match(await viewer.textContent('#moves .move.current'), /^g4\?\?(\d+:\d\d)?$/);
  assert.equal(await viewer.getAttribute('.board-slot .board', 'data-arrows'), 'd8h4');
}

test('the graph, the arrow, the marks and the analysis board of a replayed game', async () => {
  const { first, second, game } = await twoPlayersOf(browser, server, { variant: 'chess' });
  await playMoves(foolsMate(first, second), [first]);
  await first.waitForSelector('.game-page[data-status="ended"]');

  const viewer = await newPlayer(browser, server, 'Analyst');
  await viewer.route(`**/api/games/${game}/analysis`, (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(fixture(game)) }),
  );
  await viewer.goto(`${server.url}/#/replay/${game}`);
  await viewer.waitForFunction(() => document.querySelector('#replay-ply')?.textContent === '4 / 4');

  // One point per ply, the start included.
  await viewer.waitForSelector('#eval-graph circle.graph-point');
  assert.deepEqual(await viewer.$$eval('#eval-graph circle.graph-point', (dots) => dots.map((d) => d.dataset.ply)), ['0', '1', '2', '3', '4']);
  await showsTheBlunderAtPly3(viewer);
  await viewer.waitForSelector('.board-slot .board svg.cg-shapes line');
  assert.equal(await viewer.getAttribute('#eval-bar', 'data-percent'), '0.0');
  assert.equal(await viewer.textContent('#moves .move[data-ply="1"] .mark'), '?!');
  assert.equal(await viewer.textContent('#analysis-summary tr[data-seat="white"] .accuracy'), '13%');
  await viewer.click('#eval-graph circle[data-ply="0"]');
  await viewer.waitForFunction(() => document.querySelector('#replay-ply').textContent === '0 / 4');
  assert.equal(await viewer.getAttribute('.board-slot .board', 'data-arrows'), 'e2e4');

  // The analysis board from ply 3: the server's legal moves, a mate played, and back.
  await viewer.click('#eval-graph circle[data-ply="3"]');
  await viewer.waitForFunction(() => document.querySelector('#replay-ply').textContent === '3 / 4');
  const replayed = await viewer.getAttribute('.board-slot .board', 'data-position');
  await viewer.click('#explore-open');
  await viewer.waitForFunction((p) => document.querySelector('#explore .board')?.dataset.position === p, replayed);
  await dragOnExplore(viewer, 'd8', 'h4');
  await viewer.waitForFunction(() => document.querySelector('#explore-line')?.textContent === 'Qh4#');
  assert.match(await viewer.textContent('#explore-message'), /Black wins/);
  assert.notEqual(await viewer.getAttribute('#explore .board', 'data-position'), replayed);
  await viewer.click('#explore-back');
  await viewer.waitForFunction((p) => document.querySelector('#explore .board')?.dataset.position === p, replayed);
  assert.equal(await viewer.textContent('#explore-line'), '');

  // Another move, then ask the engine: until the server has /api/explore/eval, a clear message.
  await dragOnExplore(viewer, 'd8', 'g5');
  await viewer.waitForFunction(() => document.querySelector('#explore-line')?.textContent === 'Qg5');
  await viewer.click('#explore-engine-ask');
  await viewer.waitForFunction(() => {
    const text = document.querySelector('#explore-engine')?.textContent ?? '';
    return text !== '' && text !== 'Thinking…';
  });
  const engine = await viewer.textContent('#explore-engine');
  assert.ok(/cannot evaluate positions yet/.test(engine) || /: [+−#0]/.test(engine), engine);
  await viewer.screenshot({ path: path.join(outputDir, 'analysis-replay.png'), fullPage: true });
  await closePages(first, second, viewer);
});

test("the server's own analysis of a game: requested in replay, drawn, marked, and the engine asked", async () => {
  const { first, second, game } = await twoPlayersOf(browser, server, { variant: 'chess' });
  await playMoves(foolsMate(first, second), [first]);
  await first.waitForSelector('.game-page[data-status="ended"]');

  const viewer = await newPlayer(browser, server, 'Analyst');
  await viewer.goto(`${server.url}/#/replay/${game}`);
  await viewer.waitForFunction(() => document.querySelector('#replay-ply')?.textContent === '4 / 4');
  await viewer.click('#analysis-request');
  // Done: one point per ply, the start included; g4 allowed mate in one.
  await viewer.waitForFunction(() => document.querySelectorAll('#eval-graph circle.graph-point').length === 5, null, { timeout: 60000 });
  await showsTheBlunderAtPly3(viewer);

  // The analysis board asks the engine about a position of its own.
  await viewer.click('#explore-open');
  // The board takes the position once the server has described it: a drag before is lost.
  await viewer.waitForFunction(() => !!document.querySelector('#explore .board')?.dataset.position);
  await dragOnExplore(viewer, 'd8', 'g5');
  await viewer.waitForFunction(() => document.querySelector('#explore-line')?.textContent === 'Qg5');
  await viewer.click('#explore-engine-ask');
  await viewer.waitForFunction(() => {
    const text = document.querySelector('#explore-engine')?.textContent ?? '';
    return text !== '' && text !== 'Thinking…';
  });
  assert.match(await viewer.textContent('#explore-engine'), /: [+−#0]/);
  await closePages(first, second, viewer);
});
