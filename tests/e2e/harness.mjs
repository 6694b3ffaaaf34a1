// End-to-end harness: a real arbiter-server on 127.0.0.1 (ephemeral port, temporary database,
// the built client as its web root) and Debian's Chromium driven headless by playwright-core.
// Every player is its own browser context (own localStorage, so own seat tokens).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');
export const serverBinary =
  process.env.ARBITER_SERVER ?? path.join(repoRoot, 'build/debug-asan/bin/arbiter-server');
export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const webRoot = process.env.ARBITER_WEB_ROOT ?? path.join(repoRoot, 'client/web/dist');
export const outputDir = path.join(here, 'output');
mkdirSync(outputDir, { recursive: true });

/**
 * Starts arbiter-server on a fresh temporary database, removed when it stops; or on `db`, a file
 * the caller owns and keeps (a test that prepares the database, or starts the server twice on it).
 */
export async function startServer(extraArgs = [], { db } = {}) {
  if (!existsSync(serverBinary)) {
    throw new Error(`no arbiter-server at ${serverBinary}: build it, or set ARBITER_SERVER`);
  }
  const dir = db ? null : mkdtempSync(path.join(tmpdir(), 'arbiter-e2e-'));
  const proc = spawn(
    serverBinary,
    ['--bind', '127.0.0.1', '--port', '0', '--db', db ?? path.join(dir, 'e2e.db'), '--web-root', webRoot, '--log-level', 'warn', ...extraArgs],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  proc.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`arbiter-server did not start:\n${stderr}`)), 30000);
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/arbiter-server listening on [\d.]+:(\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    proc.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`arbiter-server exited with ${code} before listening:\n${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: proc.pid,
    stderr: () => stderr,
    /** The start of stderr and any sanitizer summary: enough to say why an exit was not clean. */
    stderrDigest: () =>
      [stderr.split('\n').slice(0, 30).join('\n'), ...stderr.split('\n').filter((l) => l.includes('SUMMARY:'))].join('\n'),
    async stop() {
      proc.kill('SIGTERM');
      const result = await exited;
      if (dir) rmSync(dir, { recursive: true, force: true });
      return result;
    },
  };
}

export async function launchBrowser() {
  // launch() gives every run a fresh temporary user-data-dir; contexts isolate storage.
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

/** A page in a fresh context (its own storage), failing loudly on page errors. */
/**
 * One server (started with `serverArgs`) and one browser for a test file: started before its first
 * test, closed after its last; the server must exit 0 on SIGTERM. `use(server, browser)` receives
 * them once started.
 */
export function serverAndBrowserPerFile(use, serverArgs = []) {
  let server;
  let browser;
  before(async () => {
    server = await startServer(serverArgs);
    browser = await launchBrowser();
    use(server, browser);
  });
  after(async () => {
    await browser?.close();
    const result = await server?.stop();
    assert.equal(result?.code, 0, `arbiter-server must exit 0 on SIGTERM: ${JSON.stringify(result)}\n${server?.stderrDigest()}`);
  });
}

export async function newPlayer(browser, server, name, viewport = { width: 1100, height: 860 }) {
  const context = await browser.newContext({ viewport });
  await context.addInitScript((n) => localStorage.setItem('arbiter.name', n), name);
  const page = await context.newPage();
  page.errors = [];
  // What the page sends on its WebSocket, parsed: a test reads the fields of its requests.
  page.sent = [];
  page.on('websocket', (socket) =>
    socket.on('framesent', ({ payload }) => {
      try {
        page.sent.push(JSON.parse(payload));
      } catch {
        // not JSON: nothing a test reads
      }
    }),
  );
  page.on('pageerror', (error) => page.errors.push(error.message));
  // The server's Content-Security-Policy must let the client load all it uses: Chromium reports
  // what the policy refused as a console error.
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) page.errors.push(message.text());
  });
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector('#create-form');
  return page;
}

/** Closes the players' contexts (open pages keep sockets and timers busy). */
export async function closePages(...pages) {
  for (const page of pages) await page.context().close();
}

/** Creates a game from the lobby form; returns its id once the game page shows. */
export async function createGame(page, { variant, side = 'first', clock = '300000+3000', position = '' }) {
  await page.selectOption('#create-variant', variant);
  await page.selectOption('#create-side', side);
  await page.selectOption('#create-clock', clock);
  if (position) {
    await page.click('details summary');
    await page.fill('#create-position', position);
  }
  await page.click('#create-submit');
  await page.waitForURL(/#\/game\//);
  await page.waitForSelector('.game-page[data-status="waiting"]');
  return page.url().split('#/game/')[1];
}

/** Opens the invite link and takes the open seat. */
/** Alice creates a game (`create`: createGame's options) and Bob joins it by its link; returns
 * both pages once the game is playing. */
export async function twoPlayers(browser, server, create) {
  const first = await newPlayer(browser, server, 'Alice');
  const second = await newPlayer(browser, server, 'Bob');
  const game = await createGame(first, create);
  await joinByLink(second, server, game);
  await first.waitForSelector('.game-page[data-status="playing"]');
  return { first, second, game };
}

export async function joinByLink(page, server, game) {
  await page.goto(`${server.url}/#/game/${game}`);
  await page.click('#join');
  await page.waitForSelector('.game-page[data-status="playing"]');
}

export async function watch(page, server, game) {
  await page.goto(`${server.url}/#/game/${game}`);
  await page.waitForSelector('.game-page[data-status]');
}

/** Board geometry of a wire square ("e2", "h10", or a draughts number) in page pixels. */
export async function squareCenter(page, square) {
  return page.evaluate((sq) => {
    const wrap = document.querySelector('.board .cg-wrap');
    const variant = document.querySelector('.board').dataset.variant;
    const [width, height] = variant === 'xiangqi' ? [9, 10] : [8, 8];
    let file;
    let rank;
    if (variant === 'draughts') {
      const n = Number(sq);
      const row = Math.floor((n - 1) / 4);
      file = 2 * ((n - 1) % 4) + (row % 2 === 0 ? 1 : 0);
      rank = 7 - row;
    } else {
      file = sq.charCodeAt(0) - 97;
      rank = Number(sq.slice(1)) - 1;
    }
    const white = wrap.classList.contains('orientation-white');
    const box = wrap.querySelector('cg-board').getBoundingClientRect();
    const col = white ? file : width - 1 - file;
    const row = white ? height - 1 - rank : rank;
    return { x: box.left + ((col + 0.5) * box.width) / width, y: box.top + ((row + 0.5) * box.height) / height };
  }, String(square));
}

/**
 * Moves the keyboard cursor of the focused board to a wire square ("e2", "h10", a draughts
 * number) with the arrow keys, as the board is seen; returns the cursor's key once it is there.
 */
export async function cursorTo(page, square) {
  const target = await page.evaluate((sq) => {
    const variant = document.querySelector('.board').dataset.variant;
    if (variant !== 'draughts') return sq.slice(0, 1) + '123456789:'[Number(sq.slice(1)) - 1];
    const n = Number(sq);
    const row = Math.floor((n - 1) / 4);
    return 'abcdefgh'[2 * ((n - 1) % 4) + (row % 2 === 0 ? 1 : 0)] + String(8 - row);
  }, String(square));
  const white = await page.$eval('.board .cg-wrap', (wrap) => wrap.classList.contains('orientation-white'));
  for (let step = 0; step < 20; step++) {
    const at = await page.getAttribute('.board', 'data-cursor');
    if (at === target) return at;
    const files = target.charCodeAt(0) - at.charCodeAt(0);
    const ranks = target.charCodeAt(1) - at.charCodeAt(1);
    const sideways = (files > 0) === white ? 'ArrowRight' : 'ArrowLeft';
    const toward = files ? sideways : (ranks > 0) === white ? 'ArrowUp' : 'ArrowDown';
    await page.keyboard.press(toward);
  }
  throw new Error(`the cursor did not reach ${square} (${target})`);
}

export async function drag(page, from, to) {
  const a = await squareCenter(page, from);
  const b = await squareCenter(page, to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
}

export async function clickClick(page, from, to) {
  const a = await squareCenter(page, from);
  const b = await squareCenter(page, to);
  await page.mouse.click(a.x, a.y);
  await page.mouse.click(b.x, b.y);
}

/** Waits until the page's move list holds `count` moves. */
export async function waitForPly(page, count) {
  await page.waitForFunction(
    (n) => document.querySelectorAll('#moves .move:not(.empty)').length === n,
    count,
    { timeout: 15000 },
  );
}

/** Waits until it is this page's move (so the board accepts a drag). */
/** Fool's mate as [page, from, to] per ply: White (first) plays f3 and g4, Black mates with Qh4#. */
export function foolsMate(first, second) {
  return [
    [first, 'f2', 'f3'],
    [second, 'e7', 'e5'],
    [first, 'g2', 'g4'],
    [second, 'd8', 'h4'],
  ];
}

/** Plays `script` by drag, each ply seen by every page of `watchers` before `after(ply)` runs. */
export async function playMoves(script, watchers, after = async () => {}) {
  for (const [index, [page, from, to]] of script.entries()) {
    await waitMyTurn(page);
    await drag(page, from, to);
    for (const watcher of watchers) await waitForPly(watcher, index + 1);
    await after(index + 1);
  }
}

export async function waitMyTurn(page) {
  await page.waitForFunction(() => document.querySelector('#status')?.textContent.startsWith('Your move'), null, {
    timeout: 15000,
  });
}

export async function boardPosition(page) {
  return page.getAttribute('.board', 'data-position');
}

/** The pieces chessgroundx shows ("p-piece white@translate(..)"), sorted, to compare boards. */
export async function piecesOnBoard(page) {
  // Let move animations finish: chessgroundx keeps a moving piece as .anim and a captured one
  // as .fading until its animation frame runs, and a busy machine may delay that past 150 ms.
  await page.waitForFunction(() => !document.querySelector('.board cg-board piece.anim, .board cg-board piece.fading'), null, {
    timeout: 15000,
  });
  return page.evaluate(() =>
    [...document.querySelectorAll('.board cg-board piece:not(.ghost)')]
      .map((p) => {
        const role = [...p.classList].find((c) => c.endsWith('-piece'));
        const color = p.classList.contains('white') ? 'white' : 'black';
        return `${role} ${color}@${p.style.transform}`;
      })
      .sort(),
  );
}

/** The move list as text: "1. f3 e5 2. g4 Qh4#". */
export async function moveListText(page) {
  return page.$$eval('#moves .move-row', (rows) =>
    rows.map((row) => [...row.children].map((cell) => cell.textContent.trim()).join(' ')).join(' '),
  );
}

export async function statusText(page) {
  return (await page.textContent('#status')).trim();
}

export async function screenshotBoard(page, name) {
  const file = path.join(outputDir, `${name}.png`);
  await page.locator('.board-column').screenshot({ path: file });
  return file;
}
