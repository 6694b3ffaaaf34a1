// Playing in the browser (issue 41): sounds (the Web Audio calls are hooked: which sound for which
// event), the tab title while hidden, the announcements, castling by putting the king on its rook,
// typed display notation, premove, looking back during a live game, and keyboard play.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowserPerFile,
  boardPosition,
  clickClick,
  closePages,
  createGame,
  cursorTo,
  drag,
  joinByLink,
  moveListText,
  newPlayer,
  squareCenter,
  statusText,
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

/**
 * Before the page's scripts run: records every sound started (window.played, by file name: the
 * fetch of sounds/<name>.wav tags its bytes, decodeAudioData tags the buffer, start() reads the
 * tag), and lets the test hide the page (window.setHidden(true) fires visibilitychange).
 */
async function instrument(page) {
  await page.addInitScript(() => {
    window.played = [];
    const names = new WeakMap();
    const fetchOriginal = window.fetch;
    window.fetch = async (input, init) => {
      const response = await fetchOriginal(input, init);
      const match = /sounds\/(\w+)\.wav$/.exec(String(input));
      if (!match) return response;
      const bytes = await response.arrayBuffer();
      names.set(bytes, match[1]);
      return { ok: response.ok, arrayBuffer: async () => bytes };
    };
    const decode = BaseAudioContext.prototype.decodeAudioData;
    BaseAudioContext.prototype.decodeAudioData = async function (bytes) {
      const name = names.get(bytes);
      const buffer = await decode.call(this, bytes);
      names.set(buffer, name);
      return buffer;
    };
    const start = AudioBufferSourceNode.prototype.start;
    AudioBufferSourceNode.prototype.start = function (...args) {
      window.played.push(names.get(this.buffer) ?? 'unknown');
      return start.apply(this, args);
    };
    let hidden = false;
    Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
    Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
    window.setHidden = (value) => {
      hidden = value;
      document.dispatchEvent(new Event('visibilitychange'));
    };
  });
}

async function instrumentedPlayer(name) {
  const page = await newPlayer(browser, server, name);
  await instrument(page);
  await page.reload();
  await page.waitForSelector('#create-form');
  return page;
}

const played = (page) => page.evaluate(() => window.played);

async function waitPlayed(page, expected) {
  await page.waitForFunction((n) => window.played.length >= n, expected.length, { timeout: 10000 }).catch(() => undefined);
  assert.deepEqual(await played(page), expected);
}

const sentMoves = (page, game) => page.sent.filter((m) => m.type === 'move' && m.game === game).map((m) => m.move);

test('sounds for start, move, capture, check and end; mute remembered; hidden title; announcements; castling by drag; typed SAN', async () => {
  const alice = await instrumentedPlayer('Alice');
  const bob = await instrumentedPlayer('Bob');
  const game = await createGame(alice, { variant: 'chess', position: 'r3k2r/pp3ppp/8/3p4/4P3/8/PP3PPP/R3K2R w KQkq - 0 1' });
  await joinByLink(bob, server, game);
  await alice.waitForSelector('.game-page[data-status="playing"]');
  await waitPlayed(alice, ['start']);
  await waitPlayed(bob, ['start']);

  // Bob's tab is hidden: White's move puts "Your turn" and the move in its title.
  await bob.evaluate(() => window.setHidden(true));
  const titleBefore = await bob.title();
  // The king dropped on its own rook castles (the server's legal list has e1g1).
  await drag(alice, 'e1', 'h1');
  await waitForPly(bob, 1);
  assert.deepEqual(sentMoves(alice, game), ['e1g1']);
  assert.equal(await moveListText(bob), '1. O-O');
  assert.equal(await bob.title(), `Your turn · O-O · ${titleBefore}`);
  assert.equal(await bob.textContent('#announce'), 'White played O-O');
  await bob.evaluate(() => window.setHidden(false));
  assert.equal(await bob.title(), titleBefore);

  // Display notation typed in the move box goes to the server, which reads it.
  await waitMyTurn(bob);
  await bob.fill('#move-input', 'O-O-O');
  await bob.press('#move-input', 'Enter');
  await waitForPly(alice, 2);
  assert.deepEqual(sentMoves(bob, game), ['O-O-O']);
  assert.equal(await alice.textContent('#announce'), 'Black played O-O-O');
  // A move the server refuses: its reason is shown, nothing is played.
  await waitMyTurn(alice);
  await alice.fill('#move-input', 'Qz9');
  await alice.press('#move-input', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#message.error')?.textContent.length > 0);
  const refusal = await alice.textContent('#message');
  assert.ok(!/not a legal move here/.test(refusal), `the page's own refusal: ${refusal}`);
  assert.equal((await alice.$$('#moves .move:not(.empty)')).length, 2);

  await drag(alice, 'e4', 'd5'); // exd5
  await waitForPly(bob, 3);
  await waitMyTurn(bob);
  await drag(bob, 'd8', 'd5'); // Rxd5
  await waitForPly(alice, 4);
  await waitPlayed(alice, ['start', 'move', 'move', 'capture', 'capture']);
  await waitPlayed(bob, ['start', 'move', 'move', 'capture', 'capture']);

  // Bob mutes: nothing more is heard on his page, and the choice outlives a reload.
  await bob.click('#sound-toggle');
  assert.equal(await bob.getAttribute('#sound-toggle', 'aria-pressed'), 'false');
  await waitMyTurn(alice);
  await drag(alice, 'a1', 'c1'); // Rc1+
  await waitForPly(bob, 5);
  await waitPlayed(alice, ['start', 'move', 'move', 'capture', 'capture', 'check']);
  await alice.click('#resign');
  await alice.click('#resign');
  await alice.waitForSelector('.game-page[data-status="ended"]');
  await waitPlayed(alice, ['start', 'move', 'move', 'capture', 'capture', 'check', 'end']);
  await bob.waitForSelector('.game-page[data-status="ended"]');
  assert.deepEqual(await played(bob), ['start', 'move', 'move', 'capture', 'capture']);
  await bob.reload();
  await bob.waitForSelector('.game-page[data-status="ended"]');
  assert.equal(await bob.getAttribute('#sound-toggle', 'aria-pressed'), 'false');
  assert.match(await bob.textContent('#sound-toggle'), /off/);
  // Sounds are fetched once per page.
  const fetched = await alice.evaluate(() => performance.getEntriesByType('resource').filter((e) => /sounds\/\w+\.wav$/.test(e.name)).length);
  assert.equal(fetched, 6);
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
  await closePages(alice, bob);
});

test('the start sounds for a seat just taken in a game under way: joined from the lobby list, against the computer; never on a reload', async () => {
  const alice = await instrumentedPlayer('Alice');
  const bob = await instrumentedPlayer('Bob');
  const game = await createGame(alice, { variant: 'chess' });
  // Bob joins from the lobby's list: his game page opens on a game that is playing already.
  const row = `#open-games li[data-game="${game}"]`;
  await bob.waitForSelector(row);
  await bob.click(`${row} button`);
  await bob.waitForSelector('.game-page[data-status="playing"]');
  await waitPlayed(bob, ['start']);
  await waitPlayed(alice, ['start']);
  // A reload in the middle of the game is no start: the next sound Bob hears is Alice's move.
  await drag(alice, 'e2', 'e4');
  await waitForPly(bob, 1);
  await bob.reload();
  await bob.waitForSelector('.game-page[data-status="playing"]');
  await waitMyTurn(bob);
  await drag(bob, 'e7', 'e5');
  await waitForPly(alice, 2);
  await waitMyTurn(alice);
  await drag(alice, 'g1', 'f3');
  await waitForPly(bob, 3);
  await waitPlayed(bob, ['move', 'move']);
  await alice.reload();
  await alice.waitForSelector('.game-page[data-status="playing"]');
  await waitMyTurn(bob);
  await drag(bob, 'b8', 'c6');
  await waitForPly(alice, 4);
  await waitPlayed(alice, ['move']);

  // Against the computer the game plays from the first state: its creator hears the start.
  const carol = await instrumentedPlayer('Carol');
  await carol.selectOption('#create-variant', 'draughts');
  await carol.selectOption('#create-opponent', 'computer');
  await carol.selectOption('#create-engine', 'builtin');
  await carol.selectOption('#create-level', '1');
  await carol.selectOption('#create-side', 'first');
  await carol.click('#create-submit');
  await carol.waitForSelector('.game-page[data-status="playing"]');
  await waitPlayed(carol, ['start']);
  await carol.reload();
  await carol.waitForSelector('.game-page[data-status="playing"]');
  await waitMyTurn(carol);
  await drag(carol, '22', '18');
  await waitForPly(carol, 2);
  await waitPlayed(carol, ['move', 'move']);
  for (const page of [alice, bob, carol]) assert.deepEqual(page.errors, []);
  await closePages(alice, bob, carol);
});

test('both players hear the start of a rematch', async () => {
  const alice = await instrumentedPlayer('Alice');
  const bob = await instrumentedPlayer('Bob');
  const game = await createGame(alice, { variant: 'chess' });
  await joinByLink(bob, server, game);
  await waitMyTurn(alice);
  await drag(alice, 'e2', 'e4');
  await waitForPly(bob, 1);
  await bob.click('#resign');
  await bob.click('#resign');
  await alice.waitForSelector('#offer-rematch');
  await alice.click('#offer-rematch');
  await bob.waitForSelector('#accept-rematch');
  await bob.click('#accept-rematch');
  for (const page of [alice, bob]) {
    await page.waitForURL((url) => url.hash.startsWith('#/game/') && !url.hash.endsWith(game));
    await page.waitForSelector('.game-page[data-status="playing"]');
  }
  // The same page goes on (the hash changed): what it heard before the rematch is still listed.
  await waitPlayed(alice, ['start', 'move', 'end', 'start']);
  await waitPlayed(bob, ['start', 'move', 'end', 'start']);
  for (const page of [alice, bob]) assert.deepEqual(page.errors, []);
  await closePages(alice, bob);
});

test('the low-time sound plays once as the player\'s clock runs low', async () => {
  const alice = await instrumentedPlayer('Alice');
  const bob = await instrumentedPlayer('Bob');
  // A 10-second game (the form offers no such clock: the test adds one): low below 2 s.
  await alice.evaluate(() => document.querySelector('#create-clock').append(new Option('10 s', '10000+0')));
  const game = await createGame(alice, { variant: 'chess', clock: '10000+0' });
  await joinByLink(bob, server, game);
  await waitMyTurn(alice);
  await drag(alice, 'e2', 'e4');
  await waitForPly(bob, 1);
  await waitMyTurn(bob);
  await drag(bob, 'e7', 'e5');
  await waitForPly(alice, 2);
  await alice.waitForFunction(() => window.played.includes('lowtime'), null, { timeout: 15000 });
  await alice.waitForSelector('.game-page[data-status="ended"]', { timeout: 15000 });
  assert.deepEqual((await played(alice)).filter((name) => name === 'lowtime'), ['lowtime']);
  assert.ok(!(await played(bob)).includes('lowtime'), 'the opponent\'s low clock is not the player\'s alarm');
  await closePages(alice, bob);
});

/** Waits until the board shows `count` premove squares (chessgroundx redraws on the next frame). */
async function premoveShown(page, count) {
  const selector = '.board cg-board square.current-premove';
  await page
    .waitForFunction(([sel, n]) => document.querySelectorAll(sel).length === n, [selector, count], { timeout: 5000 })
    .catch(() => undefined);
  assert.equal(await page.$$eval(selector, (squares) => squares.length), count);
}

test('premove: queued and shown during the opponent\'s turn, sent at the turn if legal, else dropped; cancelled by right-click or a click elsewhere', async () => {
  const { first: alice, second: bob, game } = await twoPlayers(browser, server, { variant: 'chess' });
  await waitMyTurn(alice);
  await drag(alice, 'e2', 'e4');
  await waitForPly(alice, 1);
  // Black to move: White queues Nf3.
  await drag(alice, 'g1', 'f3');
  await premoveShown(alice, 2);
  assert.deepEqual(sentMoves(alice, game), ['e2e4'], 'nothing is sent before the turn');
  await waitMyTurn(bob);
  await drag(bob, 'e7', 'e5');
  await waitForPly(alice, 3);
  assert.deepEqual(sentMoves(alice, game), ['e2e4', 'g1f3']);
  await premoveShown(alice, 0);

  // A queued move that is not legal when the turn comes is dropped.
  await drag(alice, 'a1', 'a5');
  await premoveShown(alice, 2);
  await waitMyTurn(bob);
  await drag(bob, 'b8', 'c6');
  await waitForPly(alice, 4);
  await waitMyTurn(alice);
  assert.deepEqual(sentMoves(alice, game), ['e2e4', 'g1f3']);
  assert.match(await alice.textContent('#message'), /premove was dropped/);
  await premoveShown(alice, 0);
  await drag(alice, 'f1', 'c4');
  await waitForPly(alice, 5);

  // Cancelled by a right-click on the board...
  await drag(alice, 'd2', 'd4');
  await premoveShown(alice, 2);
  const square = await squareCenter(alice, 'h4');
  await alice.mouse.click(square.x, square.y, { button: 'right' });
  await premoveShown(alice, 0);
  // ...or by a click elsewhere on the page.
  await drag(alice, 'd2', 'd4');
  await premoveShown(alice, 2);
  await alice.click('#status');
  await premoveShown(alice, 0);
  await waitMyTurn(bob);
  await drag(bob, 'g8', 'f6');
  await waitForPly(alice, 6);
  await waitMyTurn(alice);
  assert.deepEqual(sentMoves(alice, game), ['e2e4', 'g1f3', 'f1c4']);
  assert.deepEqual(alice.errors, []);
  await closePages(alice, bob);
});

test('looking back during a live game: a click or the arrows, new moves still arrive, back to the game', async () => {
  const { first: alice, second: bob } = await twoPlayers(browser, server, { variant: 'chess' });
  const start = await boardPosition(bob);
  await drag(alice, 'e2', 'e4');
  await waitForPly(bob, 1);
  const afterE4 = await boardPosition(bob);
  await waitMyTurn(bob);
  await drag(bob, 'e7', 'e5');
  await waitForPly(alice, 2);
  await waitMyTurn(alice);
  await drag(alice, 'g1', 'f3');
  await waitForPly(bob, 3);
  const now = await boardPosition(bob);
  assert.equal(await bob.isHidden('#back-to-game'), true);

  await bob.click('#moves .move[data-ply="1"]');
  assert.equal(await boardPosition(bob), afterE4);
  assert.equal(await bob.isVisible('#back-to-game'), true);
  await bob.keyboard.press('ArrowLeft');
  assert.equal(await boardPosition(bob), start);
  // The opponent's move arrives meanwhile: the list grows, the board stays where Bob looks.
  await bob.click('#back-to-game');
  await waitMyTurn(bob);
  await drag(bob, 'b8', 'c6');
  await waitForPly(alice, 4);
  await alice.click('#moves .move[data-ply="2"]');
  await waitMyTurn(alice);
  assert.equal(await alice.isVisible('#back-to-game'), true);
  await alice.keyboard.press('ArrowRight');
  assert.equal(await alice.$eval('#moves .move.current', (m) => m.dataset.ply), '3');
  assert.equal(await boardPosition(alice), now);
  await alice.keyboard.press('End');
  assert.equal(await alice.isHidden('#back-to-game'), true);
  await drag(alice, 'f1', 'c4');
  await waitForPly(bob, 5);
  await bob.keyboard.press('ArrowUp');
  assert.equal(await bob.$eval('#moves .move.current', (m) => m.dataset.ply), '4');
  await alice.waitForTimeout(100);
  await bob.click('#back-to-game');
  assert.equal(await bob.$eval('#moves .move.current', (m) => m.dataset.ply), '5');
  assert.equal(await bob.isHidden('#back-to-game'), true);
  // Play goes on from the end.
  await waitMyTurn(bob);
  await drag(bob, 'g8', 'f6');
  await waitForPly(alice, 6);
  assert.equal(await moveListText(alice), '1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6');
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
  await closePages(alice, bob);
});

test('keyboard play: the board takes the focus, arrows move a visible cursor, Enter picks up and puts down; moves are announced', async () => {
  const { first: alice, second: bob, game } = await twoPlayers(browser, server, { variant: 'chess' });
  await waitMyTurn(alice);
  // Reached with Tab from the page's start.
  let focused = false;
  for (let i = 0; i < 40 && !focused; i++) {
    await alice.keyboard.press('Tab');
    focused = await alice.evaluate(() => document.activeElement?.classList.contains('board'));
  }
  assert.ok(focused, 'Tab reaches the board');
  assert.equal(await alice.isVisible('.board .kb-cursor'), true, 'the cursor shows');
  const outline = await alice.$eval('.board', (b) => getComputedStyle(b).outlineStyle);
  assert.notEqual(outline, 'none', 'visible focus');
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowUp']) await alice.keyboard.press(key);
  assert.equal(await alice.getAttribute('.board', 'data-cursor'), 'e2');
  assert.equal(await alice.textContent('.board .kb-live'), 'e2, white pawn');
  await alice.keyboard.press('Enter');
  assert.equal(await alice.isVisible('.board .kb-picked'), true);
  await alice.keyboard.press('ArrowUp');
  await alice.keyboard.press('ArrowUp');
  await alice.keyboard.press('Enter');
  await waitForPly(bob, 1);
  assert.deepEqual(sentMoves(alice, game), ['e2e4']);
  assert.equal(await bob.textContent('#announce'), 'White played e4');

  // Black's board is seen from Black's side: "up" goes toward White.
  await waitMyTurn(bob);
  await bob.focus('.board');
  assert.equal(await bob.getAttribute('.board', 'data-cursor'), 'h8');
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowUp']) await bob.keyboard.press(key);
  assert.equal(await bob.getAttribute('.board', 'data-cursor'), 'e7');
  await bob.keyboard.press('Enter');
  // Escape puts the piece back; Space picks it up again.
  await bob.keyboard.press('Escape');
  assert.equal(await bob.isHidden('.board .kb-picked'), true);
  await bob.keyboard.press(' ');
  await bob.keyboard.press('ArrowUp');
  await bob.keyboard.press('ArrowUp');
  await bob.keyboard.press('Enter');
  await waitForPly(alice, 2);
  assert.deepEqual(sentMoves(bob, game), ['e7e5']);
  assert.equal(await alice.textContent('#announce'), 'Black played e5');
  assert.equal(await statusText(alice), 'Your move');
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
  await closePages(alice, bob);
});

test('keyboard play in xiangqi from both sides, then moves typed in WXF', async () => {
  const { first: red, second: black, game } = await twoPlayers(browser, server, { variant: 'xiangqi' });
  await waitMyTurn(red);
  await red.focus('.board');
  await cursorTo(red, 'h3');
  assert.equal(await red.textContent('.board .kb-live'), 'h3, red cannon');
  await red.keyboard.press('Enter');
  await cursorTo(red, 'e3');
  await red.keyboard.press('Enter');
  await waitForPly(black, 1);
  assert.deepEqual(sentMoves(red, game), ['h3e3']);
  assert.equal(await black.textContent('#announce'), 'Red played C2.5');
  // Black sits at the top of its own board: the cursor starts on i10 and "up" goes toward red.
  await waitMyTurn(black);
  await black.focus('.board');
  assert.equal(await black.getAttribute('.board', 'data-cursor'), 'i:');
  await cursorTo(black, 'h10');
  assert.equal(await black.textContent('.board .kb-live'), 'h10, black horse');
  await black.keyboard.press('Enter');
  await cursorTo(black, 'g8');
  await black.keyboard.press('Enter');
  await waitForPly(red, 2);
  assert.deepEqual(sentMoves(black, game), ['h10g8']);
  assert.equal(await red.textContent('#announce'), 'Black played H8+7');

  // WXF in the move box: red's horse on its file 2 (h1) to file 3; black's cannon on its own
  // file 2 (b8) to the centre, which is red's C2.5 read from black's side.
  await waitMyTurn(red);
  await red.fill('#move-input', 'H2+3');
  await red.press('#move-input', 'Enter');
  await waitForPly(black, 3);
  await waitMyTurn(black);
  await black.fill('#move-input', 'C2.5');
  await black.press('#move-input', 'Enter');
  await waitForPly(red, 4);
  assert.deepEqual(sentMoves(red, game), ['h3e3', 'H2+3']);
  assert.deepEqual(sentMoves(black, game), ['h10g8', 'C2.5']);
  assert.equal(await moveListText(red), '1. C2.5 H8+7 2. H2+3 C2.5');
  // The board: red's horse went h1-g3 and black's cannon b8-e8, as WXF read from each side says.
  const rows = (await boardPosition(red)).split(' ')[0].split('/');
  assert.deepEqual([rows[2], rows[7], rows[9]], ['4c1nc1', '1C2C1N2', 'RNBAKAB1R']);
  for (const page of [red, black]) assert.deepEqual(page.errors, []);
  await closePages(red, black);
});

test('draughts moves typed in PDN: a capture by its full landing path, and the server\'s reason for a refused one', async () => {
  // Black moves first and must take twice: 7x14x23.
  const { first: white, second: black, game } = await twoPlayers(browser, server, {
    variant: 'draughts',
    position: 'B:W10,18,21,22,24,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,11,12,13',
  });
  await waitMyTurn(black);
  await black.fill('#move-input', '9-14');
  await black.press('#move-input', 'Enter');
  await black.waitForFunction(() => document.querySelector('#message.error')?.textContent.length > 0);
  assert.match(await black.textContent('#message'), /compulsory/);
  await waitMyTurn(black);
  await black.fill('#move-input', '7x14x23');
  await black.press('#move-input', 'Enter');
  await waitForPly(white, 1);
  assert.deepEqual(sentMoves(black, game), ['9-14', '7x14x23']);
  assert.match(await moveListText(white), /^1\. … 7x23$/);
  await white.waitForFunction(() => document.querySelector('.board').dataset.route === '7 14 23');
  await waitMyTurn(white);
  const legal = await white.$$eval('#legal-moves option', (options) => options.map((o) => o.value));
  assert.ok(legal.length > 0);
  await white.fill('#move-input', legal[0]);
  await white.press('#move-input', 'Enter');
  await waitForPly(black, 2);
  assert.match(await moveListText(black), new RegExp(`^1\\. … 7x23 2\\. ${legal[0]}$`));
  for (const page of [white, black]) assert.deepEqual(page.errors, []);
  await closePages(white, black);
});
