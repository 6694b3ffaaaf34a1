// The page stays in step with the server when things go wrong: a move made while the socket is
// down, or before the resume that follows is answered, is played once the seat is back; a
// spectator who loses the race for the open seat keeps watching; a resume the server fails to
// answer keeps the seat; a missed event is fetched again with `since` (protocol.md, "Events, seq
// and since"); and the clocks of a finished game stay where they stopped.
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
  statusText,
  waitForPly,
  waitMyTurn,
  watch,
  twoPlayers as twoPlayersOf,
} from './harness.mjs';

let server;
let browser;
serverAndBrowserPerFile((started, launched) => {
  server = started;
  browser = launched;
});

const twoPlayers = (variant, clock) => twoPlayersOf(browser, server, { variant, clock });

/**
 * Sends every socket of the page's context through the test, which holds back the first server
 * message that `lose(message)` picks. Returns what the page sent (parsed, in order), how many
 * messages were held back, and the last `seq` the page was given before that.
 */
async function relayLosingOne(page, lose) {
  const seen = { sent: [], held: 0, lastSeq: null };
  await page.context().routeWebSocket(/\/ws$/, (socket) => {
    const upstream = socket.connectToServer();
    socket.onMessage((message) => {
      seen.sent.push(JSON.parse(message));
      upstream.send(message);
    });
    upstream.onMessage((message) => {
      const parsed = JSON.parse(message);
      if (seen.held === 0 && lose(parsed)) {
        seen.held++;
        return;
      }
      if (seen.held === 0 && typeof parsed.seq === 'number') seen.lastSeq = parsed.seq;
      socket.send(message);
    });
  });
  return seen;
}

async function clockText(page, seat) {
  return (await page.textContent(`.clock[data-seat="${seat}"]`)).trim();
}

test('a move played while the connection is down is sent after the resume, and played', async () => {
  const { first, second } = await twoPlayers('chess', '');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await second.context().setOffline(true);
  await second.evaluate(() => window.arbiter.conn.drop());
  await second.waitForFunction(() => /Connection lost/.test(document.querySelector('#connection').textContent));
  await second.fill('#move-input', 'e7e5');
  await second.press('#move-input', 'Enter');
  await second.context().setOffline(false);
  await waitForPly(first, 2);
  await waitForPly(second, 2);
  assert.equal(await moveListText(second), '1. e4 e5');
  assert.equal((await second.textContent('#message')).trim(), '');
  await waitMyTurn(first);
  await closePages(first, second);
});

test('a spectator who loses the race for the open seat keeps following the game', async () => {
  const creator = await newPlayer(browser, server, 'Alice');
  const game = await createGame(creator, { variant: 'chess', clock: '' });
  const winner = await newPlayer(browser, server, 'Sam');
  const loser = await newPlayer(browser, server, 'Sue');
  for (const page of [winner, loser]) {
    await watch(page, server, game);
    await page.waitForSelector('#join');
  }
  // Both saw the seat open; the loser presses its Join only after the winner has sat down, as
  // when both press at once and the winner's join reaches the server first.
  await loser.evaluate(() => (window.staleJoin = document.querySelector('#join')));
  await winner.click('#join');
  await winner.waitForSelector('.game-page[data-status="playing"]');
  await loser.waitForSelector('.game-page[data-status="playing"]');
  await loser.evaluate(() => window.staleJoin.click());
  await loser.waitForFunction(() => /not open to join/.test(document.querySelector('#message').textContent));
  await drag(creator, 'e2', 'e4');
  await waitForPly(loser, 1);
  assert.equal(await statusText(loser), 'Black to move');
  assert.equal(await loser.$('#resign'), null, 'the loser is still a watcher');
  // The winner watches no more once seated: the only spectator left is the loser.
  await creator.waitForFunction(() => document.querySelector('#spectators').textContent === 'Spectators: 1');
  await closePages(creator, winner, loser);
});

test('a resume that fails with internal keeps the seat: the page asks again and plays on', async () => {
  const { first, second } = await twoPlayers('chess', '');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  let refused = 0;
  await first.context().routeWebSocket(/\/ws$/, (page) => {
    const upstream = page.connectToServer();
    page.onMessage((message) => {
      const request = JSON.parse(message);
      if (request.type === 'resume' && refused === 0) {
        refused++;
        page.send(JSON.stringify({ type: 'error', code: 'internal', message: 'internal error', id: request.id }));
        return;
      }
      upstream.send(message);
    });
  });
  const game = first.url().split('#/game/')[1];
  await first.reload();
  await first.waitForSelector('text=trying again');
  await first.waitForSelector('.game-page[data-status="playing"]');
  assert.ok(await first.evaluate((id) => localStorage.getItem(`arbiter.seat.${id}`), game), 'the token is kept');
  await drag(second, 'e7', 'e5');
  await waitForPly(first, 2);
  await waitMyTurn(first);
  await drag(first, 'g1', 'f3');
  await waitForPly(second, 3);
  assert.equal(refused, 1);
  await closePages(first, second);
});

test('a move played before the resume is answered waits for it, also when it fails for a while', async () => {
  const { first, second } = await twoPlayers('chess', '');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  // The page's next socket goes through the test: its first resume is answered, late, with
  // `unavailable` (the server's answer when too many reads of stored games are waiting).
  const relay = { sent: [], refused: 0 };
  await second.context().routeWebSocket(/\/ws$/, (page) => {
    const upstream = page.connectToServer();
    page.onMessage((message) => {
      const request = JSON.parse(message);
      relay.sent.push(request.type);
      if (request.type === 'resume' && relay.refused === 0) {
        relay.refused++;
        const busy = { type: 'error', code: 'unavailable', message: 'busy', id: request.id };
        setTimeout(() => page.send(JSON.stringify(busy)), 1500);
        return;
      }
      upstream.send(message);
    });
    upstream.onMessage((message) => page.send(message));
  });
  await second.evaluate(() => window.arbiter.conn.drop());
  while (relay.refused === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  await second.fill('#move-input', 'e7e5');
  await second.press('#move-input', 'Enter');
  await second.waitForSelector('text=trying again');
  await waitForPly(first, 2);
  await waitForPly(second, 2);
  assert.equal(await moveListText(second), '1. e4 e5');
  assert.equal((await second.textContent('#message')).trim(), '');
  assert.deepEqual(
    relay.sent.filter((type) => type === 'resume' || type === 'move'),
    ['resume', 'resume', 'move'],
    'the move went after the resume that was answered',
  );
  await waitMyTurn(first);
  await closePages(first, second);
});

test('a watcher that misses an event asks for what it missed with since, and shows every move', async () => {
  const { first, second, game } = await twoPlayers('chess', '');
  const watcher = await newPlayer(browser, server, 'Wes');
  const relayed = await relayLosingOne(watcher, (message) => message.type === 'moved' && message.ply === 2);
  await watch(watcher, server, game);
  await watcher.reload();
  await watcher.waitForSelector('.game-page[data-status="playing"]');
  await drag(first, 'e2', 'e4');
  await waitForPly(watcher, 1);
  await waitMyTurn(second);
  await drag(second, 'e7', 'e5');
  await waitForPly(first, 2);
  await waitMyTurn(first);
  await drag(first, 'g1', 'f3');
  await waitForPly(watcher, 3);
  assert.equal(await moveListText(watcher), '1. e4 e5 2. Nf3');
  assert.equal(relayed.held, 1);
  const rewatch = relayed.sent.filter((m) => m.type === 'watch' && m.since !== undefined);
  assert.deepEqual(
    rewatch.map((m) => m.since),
    [relayed.lastSeq],
    `one watch since the last seq before the gap: ${JSON.stringify(relayed.sent)}`,
  );
  assert.equal(await boardPosition(watcher), await boardPosition(first));
  await closePages(first, second, watcher);
});

test('a player that misses an event resumes with since and gets the game as it is', async () => {
  const { first, second } = await twoPlayers('chess', '300000+3000');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await waitMyTurn(second);
  await drag(second, 'e7', 'e5');
  await waitForPly(first, 2);
  // Bob's page comes back through a socket that loses white's next move.
  const relayed = await relayLosingOne(second, (message) => message.type === 'moved' && message.ply === 3);
  await second.reload();
  await second.waitForSelector('.game-page[data-status="playing"]');
  await waitForPly(second, 2);
  await waitMyTurn(first);
  await drag(first, 'g1', 'f3');
  await waitForPly(first, 3);
  // The next event (white's draw offer) shows the gap.
  await first.click('#offer-draw');
  await second.waitForSelector('#accept-draw');
  await waitForPly(second, 3);
  assert.equal(await moveListText(second), '1. e4 e5 2. Nf3');
  await waitMyTurn(second);
  assert.equal(relayed.held, 1);
  const resumes = relayed.sent.filter((m) => m.type === 'resume');
  assert.deepEqual(
    resumes.map((m) => m.since),
    [undefined, relayed.lastSeq],
    `a resume on reload, then one since the last seq before the gap: ${JSON.stringify(relayed.sent)}`,
  );
  await drag(second, 'b8', 'c6');
  await waitForPly(first, 4);
  await closePages(first, second);
});

test('a clock that runs out shows zero once the game ends, on both pages', async () => {
  const first = await newPlayer(browser, server, 'Alice');
  const second = await newPlayer(browser, server, 'Bob');
  // A 3 s clock, shorter than any the form offers, so that white's runs out soon.
  await first.evaluate(() => document.querySelector('#create-clock').append(new Option('3 s', '3000+0')));
  const game = await createGame(first, { variant: 'chess', clock: '3000+0' });
  await joinByLink(second, server, game);
  await first.waitForSelector('.game-page[data-status="playing"]');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await waitMyTurn(second);
  await drag(second, 'e7', 'e5');
  // Both sides have moved: white's clock runs, and white does not move again.
  for (const page of [first, second]) {
    await page.waitForSelector('.game-page[data-status="ended"]', { timeout: 15000 });
    assert.equal(await statusText(page), 'Black wins by timeout');
    assert.equal(await clockText(page, 'white'), '0:00.0');
  }
  const black = await clockText(second, 'black');
  await second.waitForTimeout(600);
  assert.equal(await clockText(second, 'white'), '0:00.0', 'the flagged clock stays at zero');
  assert.equal(await clockText(second, 'black'), black, 'the other clock stays where it stopped');
  await closePages(first, second);
});

test('a resignation stops the running clock where it stood, not where it was at the last move', async () => {
  const { first, second } = await twoPlayers('chess', '60000+0');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  await waitMyTurn(second);
  await drag(second, 'e7', 'e5');
  await waitForPly(first, 2);
  // White's clock runs from 1:00; it is white's move while black resigns.
  await first.waitForFunction(() => /^0:5[0-8]$/.test(document.querySelector('.clock[data-seat="white"]').textContent));
  await second.click('#resign');
  await second.click('#resign');
  for (const page of [first, second]) {
    await page.waitForSelector('.game-page[data-status="ended"]');
    const shown = await clockText(page, 'white');
    assert.match(shown, /^0:[0-5]\d$/, 'the clock keeps the time it had counted down to, under 1:00');
    await page.waitForTimeout(1200);
    assert.equal(await clockText(page, 'white'), shown, 'and stays there');
  }
  await closePages(first, second);
});

test('a server gone silent is noticed within seconds; the page reconnects and the game goes on', async () => {
  const { first, second } = await twoPlayers('chess', '');
  await drag(first, 'e2', 'e4');
  await waitForPly(second, 1);
  // The server stops answering with every socket left open: no close, no FIN (a dead link).
  process.kill(server.pid, 'SIGSTOP');
  const stopped = Date.now();
  try {
    await second.waitForFunction(() => /Connection lost|Connecting/.test(document.querySelector('#connection').textContent), null, {
      timeout: 15000,
    });
  } finally {
    process.kill(server.pid, 'SIGCONT');
  }
  const noticed = Date.now() - stopped;
  console.log(`a silent server noticed after ${noticed} ms`);
  assert.ok(noticed < 8000, `noticed after ${noticed} ms`);
  await second.waitForFunction(() => /Reconnected/.test(document.querySelector('#connection').textContent), null, { timeout: 30000 });
  await drag(second, 'e7', 'e5');
  await waitForPly(first, 2);
  assert.equal(await moveListText(first), '1. e4 e5');
  await closePages(first, second);
});
