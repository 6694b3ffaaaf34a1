// The chat panel (issue 41): two players chat, a spectator chats in its own room, each sees only
// the rooms it may read, markup and scripts show as the literal text typed and run nothing, the
// 140-character limit, mute, and the chat in the replay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closePages, newPlayer, serverAndBrowserPerFile, twoPlayers, watch } from './harness.mjs';

let server;
let browser;
serverAndBrowserPerFile((started, launched) => {
  server = started;
  browser = launched;
});

const texts = (page, room) => page.$$eval(`#chat-${room} .chat-text`, (nodes) => nodes.map((n) => n.textContent));

async function say(page, text) {
  await page.fill('#chat-input', text);
  await page.click('#chat-send');
}

async function waitForText(page, room, text) {
  await page.waitForFunction(
    ([r, t]) => [...document.querySelectorAll(`#chat-${r} .chat-text`)].some((n) => n.textContent === t),
    [room, text],
    { timeout: 10000 },
  );
}

test('players and a spectator chat; markup is shown as text and runs nothing', async () => {
  const { first, second, game } = await twoPlayers(browser, server, { variant: 'chess' });
  const spectator = await newPlayer(browser, server, 'Carol');
  await watch(spectator, server, game);
  await spectator.waitForSelector('#chat-spectators');
  for (const page of [first, second, spectator]) {
    await page.evaluate(() => {
      window.__ran = [];
      window.alert = (x) => window.__ran.push(`alert ${x}`);
    });
  }

  await say(first, 'good luck');
  await waitForText(second, 'players', 'good luck');
  await waitForText(first, 'players', 'good luck');

  const image = '<img src=x onerror="window.__ran.push(1)">';
  const script = '<script>window.__ran.push(2)</script>';
  await say(second, image);
  await say(spectator, script);
  await waitForText(first, 'players', image);
  await waitForText(spectator, 'spectators', script);

  // Each page shows the rooms it may read while the game is played.
  assert.equal(await spectator.$('#chat-players'), null, 'a spectator does not see the players\' room');
  assert.equal(await first.$('#chat-spectators'), null, 'players read the spectators only after the game');
  assert.deepEqual(await texts(first, 'players'), ['good luck', image]);
  assert.deepEqual(await texts(spectator, 'spectators'), [script]);
  // The markup is text: no element was made of it, and nothing ran.
  for (const page of [first, second, spectator]) {
    assert.equal(await page.$('#chat img, #chat script'), null);
    assert.deepEqual(await page.evaluate(() => window.__ran), []);
    assert.deepEqual(page.errors, []);
  }

  // The input counts characters as the server does, and stops at 140.
  await first.fill('#chat-input', 'x'.repeat(141));
  assert.equal(await first.textContent('#chat-counter'), '141/140');
  assert.equal(await first.isDisabled('#chat-send'), true);
  await first.fill('#chat-input', '');

  // Mute: the opponent's messages are no longer shown to the player who muted.
  await first.click('#chat-mute');
  await first.waitForFunction(() => document.querySelector('#chat-mute')?.textContent === 'Unmute opponent');
  await say(second, 'are you there?');
  await waitForText(second, 'players', 'are you there?');
  await say(first, 'muted you');
  await waitForText(first, 'players', 'muted you');
  assert.ok(!(await texts(first, 'players')).includes('are you there?'));

  // After the end the players read the spectators too, and the replay keeps the chat.
  await first.click('#resign');
  await first.click('#resign');
  await first.waitForSelector('.game-page[data-status="ended"]');
  await say(spectator, 'gg');
  await waitForText(second, 'spectators', 'gg');
  await spectator.goto(`${server.url}/#/replay/${game}`);
  await spectator.waitForSelector('.replay-chat');
  assert.deepEqual(await texts(spectator, 'spectators'), [script, 'gg']);
  assert.equal(await spectator.$('.replay-chat #chat-players'), null, 'a guest replay shows no players\' room');
  assert.deepEqual(spectator.errors, []);
  await closePages(first, second, spectator);
});
