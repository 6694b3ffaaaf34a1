// What other people and a misbehaving server send cannot break the page: names are shown as text,
// never as HTML, and a malformed server message is left out without stopping the game.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowserPerFile,
  boardPosition,
  closePages,
  createGame,
  drag,
  joinByLink,
  moveListText,
  newPlayer,
  waitForPly,
  waitMyTurn,
} from './harness.mjs';

let server;
let browser;
serverAndBrowserPerFile((started, launched) => {
  server = started;
  browser = launched;
});

/** A player whose socket passes through the test, which may slip frames of its own to the page. */
async function playerBehindRelay(name) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 860 } });
  await context.addInitScript((n) => localStorage.setItem('arbiter.name', n), name);
  const relay = { socket: null };
  await context.routeWebSocket(/\/ws$/, (socket) => {
    relay.socket = socket;
    const upstream = socket.connectToServer();
    socket.onMessage((message) => upstream.send(message));
    upstream.onMessage((message) => socket.send(message));
  });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push(error.message));
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector('#create-form');
  return { page, inject: (text) => relay.socket.send(text) };
}

test('a player name is shown as text, never run as HTML', async () => {
  const name = '<img src=x onerror=pwned=1>';
  const alice = await newPlayer(browser, server, name);
  const bob = await newPlayer(browser, server, '<b>Bob</b>');
  const game = await createGame(alice, { variant: 'draughts' });
  await bob.waitForSelector(`#open-games li[data-game="${game}"]`);
  assert.match(await bob.textContent(`#open-games li[data-game="${game}"]`), /<img src=x onerror=pwned=1>( \(guest\))? vs —/);
  await joinByLink(bob, server, game);
  await alice.waitForSelector('.game-page[data-status="playing"]');
  // A guest's name carries its mark (issue 40) where the server says it is a guest.
  assert.match(await alice.textContent('.board-column'), /<b>Bob<\/b>( \(guest\))? Black/);
  assert.match(await bob.textContent('.board-column'), /<img src=x onerror=pwned=1>( \(guest\))? White/);
  for (const page of [alice, bob]) {
    assert.equal(await page.evaluate(() => document.querySelectorAll('main img, main b').length), 0);
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    assert.deepEqual(page.errors, []);
  }
  await closePages(alice, bob);
});

test('malformed server messages are left out, and the game goes on', async () => {
  const alice = await newPlayer(browser, server, 'Alice');
  const { page: bob, inject } = await playerBehindRelay('Bob');
  const game = await createGame(alice, { variant: 'chess', clock: '' });
  await bob.waitForSelector(`#open-games li[data-game="${game}"]`);
  // In the lobby: frames that are no message, and lists that are no lists.
  for (const frame of ['null', '[]', '"text"', '{"type":"lobby","games":"x"}', '{"type":"lobby","games":[null,{"game":5}]}', '{"type":"welcome","engines":[null]}']) {
    inject(frame);
  }
  await bob.waitForTimeout(300);
  await bob.selectOption('#create-variant', 'xiangqi'); // the form still works with the engines it was given
  await joinByLink(bob, server, game);
  await drag(alice, 'e2', 'e4');
  await waitForPly(bob, 1);
  // In the game: a state with nothing in it but a seq far ahead, and events with fields missing or
  // of the wrong kind (seq 4 is the next event's).
  inject(JSON.stringify({ type: 'state', game, seq: 99 }));
  inject(JSON.stringify({ type: 'moved', game, seq: 4, ply: 2, move: 'e7e5', legal: 'abc', position: 'x', turn: 'white' }));
  inject(JSON.stringify({ type: 'offer', game, seq: 4, kind: '<i>x</i>', action: 'offer', by: 'white' }));
  inject(JSON.stringify({ type: 'presence', game, seq: 4, seat: '__proto__', connected: false }));
  await bob.waitForTimeout(300);
  assert.equal(await moveListText(bob), '1. e4');
  await waitMyTurn(bob);
  await drag(bob, 'e7', 'e5');
  await waitForPly(alice, 2);
  await waitForPly(bob, 2);
  assert.equal(await boardPosition(bob), await boardPosition(alice));
  await waitMyTurn(alice);
  await drag(alice, 'g1', 'f3');
  await waitForPly(bob, 3);
  assert.equal(await moveListText(bob), '1. e4 e5 2. Nf3');
  assert.deepEqual(bob.errors, [], 'no message threw on the page');
  await closePages(alice, bob);
});
