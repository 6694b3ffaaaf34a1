// Issue 41, the browser's views: who plays whom (with account players' ratings), the result under
// the moves, the watchers' names, the replay's clocks and keys, and the fixes found (the armed
// Resign button, phones' lobby, an unknown id, the favicon, the end text once, a takeback's count,
// the export's name and the draughts PDN's tags and clocks, the dark theme).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  serverAndBrowserPerFile,
  closePages,
  drag,
  joinByLink,
  newPlayer,
  playMoves,
  statusText,
  waitForPly,
  watch,
  twoPlayers as twoPlayersOf,
} from './harness.mjs';

let server;
let browser;
// Cheap password hashes: the header test signs up two accounts (for tests only, protocol.md).
serverAndBrowserPerFile(
  (started, launched) => {
    server = started;
    browser = launched;
  },
  ['--password-cost', 'minimal'],
);

const twoPlayers = (variant) => twoPlayersOf(browser, server, { variant });

/** WCAG contrast of two computed `rgb(...)` colours. */
function contrast(a, b) {
  const luminance = (rgb) => {
    const [r, g, bl] = rgb.match(/\d+(\.\d+)?/g).slice(0, 3).map((c) => {
      const v = Number(c) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high + 0.05) / (low + 0.05);
}

test('the header says who plays whom, and the players see the watchers\' names on click', async () => {
  const { first, second, game } = await twoPlayers('chess');
  const title = (await first.textContent('.game-title')).trim();
  assert.match(title, /Alice \(guest\) vs Bob \(guest\)/);
  assert.doesNotMatch(title, new RegExp(game), 'not the game id');
  const watcher = await newPlayer(browser, server, 'Wes');
  await watch(watcher, server, game);
  await first.waitForFunction(() => document.querySelector('#spectators').textContent === 'Spectators: 1');
  await first.click('#spectators');
  await first.waitForFunction(() => /Wes \(guest\)/.test(document.querySelector('#spectator-names').textContent));
  assert.equal(await first.isVisible('#spectator-names'), true);
  // A player who comes back hears the names with the state (the count alone is in the state).
  await second.reload();
  await second.waitForSelector('.game-page[data-status="playing"]');
  await second.click('#spectators');
  await second.waitForFunction(() => /Wes/.test(document.querySelector('#spectator-names').textContent));
  await closePages(first, second, watcher);
});

/** Signs `page` up as `username` from the header's form, and waits for the signed-in socket. */
async function signUp(page, username) {
  await page.click('#sign-up');
  await page.fill('#account-username', username);
  await page.fill('#account-password', 'violet-anchor-1917');
  await page.click('#account-submit');
  await page.waitForSelector('#account-name');
  await page.waitForFunction(() => window.arbiter.conn.isOpen());
}

test('the header of a rated game gives the account players\' names as profile links, with their ratings', async () => {
  const ann = await newPlayer(browser, server, 'Guest-Ann');
  const ben = await newPlayer(browser, server, 'Guest-Ben');
  await signUp(ann, 'view_ann');
  await signUp(ben, 'view_ben');
  // Player objects carry a rating in rated games only (protocol.md, state).
  await ann.selectOption('#create-variant', 'chess');
  await ann.selectOption('#create-side', 'first');
  await ann.selectOption('#create-clock', '300000+3000');
  await ann.check('#create-rated');
  await ann.click('#create-submit');
  await ann.waitForSelector('.game-page[data-status="waiting"]');
  const game = ann.url().split('#/game/')[1];
  await joinByLink(ben, server, game);
  await ann.waitForSelector('.game-page[data-status="playing"]');
  const [first, second] = [ann, ben];
  for (const page of [first, second]) {
    const players = await page.$$eval('.game-title .player', (nodes) =>
      nodes.map((node) => ({
        name: node.querySelector('.user-link')?.textContent,
        href: node.querySelector('.user-link')?.getAttribute('href'),
        rating: node.querySelector('.rating')?.textContent.trim(),
        guest: !!node.querySelector('.guest'),
      })),
    );
    // New accounts: the default rating, provisional.
    assert.deepEqual(players, [
      { name: 'view_ann', href: '#/@/view_ann', rating: '1500?', guest: false },
      { name: 'view_ben', href: '#/@/view_ben', rating: '1500?', guest: false },
    ]);
    assert.equal((await page.textContent('.game-title .players')).trim(), 'view_ann 1500? vs view_ben 1500?');
  }
  // A spectator's page says the same.
  const watcher = await newPlayer(browser, server, 'Wes');
  await watch(watcher, server, game);
  assert.equal((await watcher.textContent('.game-title .players')).trim(), 'view_ann 1500? vs view_ben 1500?');
  for (const page of [first, second, watcher]) assert.deepEqual(page.errors, []);
  await closePages(first, second, watcher);
});

test('a takeback of two moves says so', async () => {
  const { first, second } = await twoPlayers('chess');
  await playMoves([[first, 'e2', 'e4'], [second, 'e7', 'e5'], [first, 'g1', 'f3']], [first, second]);
  // Black, to move, takes back its own e5: White's Nf3 goes too.
  await second.click('#offer-takeback');
  await first.waitForSelector('#accept-takeback');
  await first.click('#accept-takeback');
  await waitForPly(second, 1);
  for (const page of [first, second]) {
    await page.waitForFunction(() => document.querySelector('#message').textContent === '2 moves were taken back.');
  }
  await closePages(first, second);
});

test('resign: the armed button stays readable under the pointer; the end is told once, with the result under the moves; the export is a PGN', async () => {
  const { first, second, game } = await twoPlayers('chess');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await second.click('#resign');
  await second.hover('#resign');
  const colours = await second.$eval('#resign', (b) => {
    const style = getComputedStyle(b);
    return { text: style.color, background: style.backgroundColor, armed: b.classList.contains('armed') };
  });
  assert.equal(colours.armed, true);
  const ratio = contrast(colours.text, colours.background);
  assert.ok(ratio >= 4.5, `armed and hovered: ${colours.text} on ${colours.background} is ${ratio.toFixed(2)}:1`);
  await second.click('#resign');
  for (const page of [first, second]) {
    await page.waitForSelector('.game-page[data-status="ended"]');
    assert.equal(await statusText(page), 'White wins by resignation');
    await page.waitForSelector('#move-result');
    assert.match(await page.textContent('#move-result'), /^1-0\s*White wins by resignation$/);
    const message = (await page.textContent('#message')).trim();
    assert.doesNotMatch(message, /wins/, 'the end is said by the status line only');
  }
  assert.equal(await first.getAttribute('#export-link', 'download'), `arbiter-${game}.pgn`);
  const answer = await first.request.get(`${server.url}/api/games/${game}/export`);
  assert.equal(answer.status(), 200);
  assert.match(answer.headers()['content-disposition'], new RegExp(`filename="arbiter-${game}\\.pgn"`));

  // The replay: the mover's time under each move, both clocks at the ply shown, Up / Down keys.
  await first.goto(`${server.url}/#/replay/${game}`);
  await first.waitForFunction(() => document.querySelector('#replay-ply')?.textContent === '1 / 1');
  assert.equal(await first.locator('#moves .clock-time').count(), 1);
  assert.match(await first.textContent('#moves .clock-time'), /^[0-9]:[0-9]{2}/);
  assert.match(await first.textContent('#replay-clocks'), /^White [0-9:]+ · Black 5:00$/);
  assert.match(await first.textContent('#move-result'), /^1-0/);
  assert.match(await first.textContent('.game-title'), /Alice \(guest\) vs Bob \(guest\)/);
  await first.keyboard.press('ArrowUp');
  await first.waitForFunction(() => document.querySelector('#replay-ply').textContent === '0 / 1');
  assert.equal(await first.textContent('#replay-clocks'), 'White 5:00 · Black 5:00');
  await first.keyboard.press('ArrowDown');
  await first.waitForFunction(() => document.querySelector('#replay-ply').textContent === '1 / 1');
  assert.equal(await first.getAttribute('#export-link', 'download'), `arbiter-${game}.pgn`);

  // A phone's lobby keeps the time control and the result of each game.
  const phone = await newPlayer(browser, server, 'Phil', { width: 390, height: 800 });
  const row = phone.locator(`#finished-games li[data-game="${game}"]`);
  await row.waitFor();
  assert.equal(await row.locator('.tc').isVisible(), true);
  assert.match(await row.locator('.tc').textContent(), /1-0/);
  await closePages(first, second, phone);
});

test('a draughts game exports as PDN', async () => {
  const { first, second, game } = await twoPlayers('draughts');
  await first.click('#abort');
  await first.waitForSelector('.game-page[data-status="aborted"]');
  assert.equal(await first.getAttribute('#export-link', 'download'), `arbiter-${game}.pdn`);
  await closePages(first, second);
});

test('the draughts PDN downloaded carries its time control, the clock after each move and how it ended', async () => {
  const { first, second, game } = await twoPlayers('draughts');
  await playMoves([[first, '22', '18'], [second, '11', '15'], [first, '18', '11']], [first, second]);
  await second.click('#resign');
  await second.click('#resign');
  await first.waitForSelector('.game-page[data-status="ended"]');
  const [download] = await Promise.all([first.waitForEvent('download'), first.click('#export-link')]);
  assert.equal(download.suggestedFilename(), `arbiter-${game}.pdn`);
  const pdn = await readFile(await download.path(), 'utf8');
  assert.match(pdn, /^\[Event "/, pdn);
  assert.match(pdn, /\n\[GameType "26,W,8,8,N2,0"\]\n/, pdn);
  assert.match(pdn, /\n\[Result "2-0"\]\n/, pdn);
  assert.match(pdn, /\n\[TimeControl "300\+3"\]\n/, pdn);
  assert.match(pdn, /\n\[Termination "normal"\]\n/, pdn);
  // Every move is followed by the mover's clock (lines wrap where they will).
  const clock = String.raw`\{\[%clk 0:0[45]:\d\d\]\}`;
  const movetext = String.raw`1\. 22-18 ${clock} 1\.\.\. 11-15 ${clock} 2\. 18x11 ${clock} 2-0`.replaceAll(' ', String.raw`\s`);
  assert.match(pdn, new RegExp(String.raw`\n\n${movetext}\n`), pdn);
  await closePages(first, second);
});

test('an unknown game or replay id shows "No such game" and nothing to act on', async () => {
  const page = await newPlayer(browser, server, 'Una');
  for (const route of ['game', 'replay']) {
    await page.goto(`${server.url}/#/${route}/nosuchgame123`);
    await page.waitForSelector('#not-found');
    assert.equal(await page.textContent('#not-found h2'), 'No such game');
    for (const selector of ['#move-input', '#flip', '#export-link', 'a[href*="/export"]', '.board']) {
      assert.equal(await page.locator(selector).count(), 0, `${route}: no ${selector}`);
    }
  }
  assert.deepEqual(page.errors, []);
  await closePages(page);
});

test('the favicon is served', async () => {
  const page = await newPlayer(browser, server, 'Fay');
  const answer = await page.request.get(`${server.url}/favicon.ico`);
  assert.equal(answer.status(), 200);
  assert.equal(answer.headers()['content-type'], 'image/x-icon');
  assert.equal(await page.getAttribute('link[rel="icon"]', 'href'), 'favicon.ico');
  await closePages(page);
});

test('the dark theme follows the system and keeps text readable', async () => {
  const page = await newPlayer(browser, server, 'Dee');
  const colours = async () =>
    page.evaluate(() => {
      const body = getComputedStyle(document.documentElement);
      const panel = getComputedStyle(document.querySelector('.create-form'));
      return { text: body.color, background: body.backgroundColor, panelText: panel.color, panel: panel.backgroundColor };
    });
  const light = await colours();
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await colours();
  assert.notEqual(dark.background, light.background);
  assert.equal(dark.background, 'rgb(22, 21, 18)');
  for (const theme of [light, dark]) {
    assert.ok(contrast(theme.text, theme.background) >= 4.5);
    assert.ok(contrast(theme.panelText, theme.panel) >= 4.5);
  }
  await closePages(page);
});
