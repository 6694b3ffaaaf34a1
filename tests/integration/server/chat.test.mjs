// Chat (issue 41, protocol.md "Chat"): the two rooms, who may write and read where (text null for
// the others, so seq stays gap-free), bad text, the per-connection budget, mute, the operator's
// flags, `since` and `state.chat`, a restart, and the replay's record.chat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, httpCall, inTempFolder, startGame, startServer, withServer } from './harness.mjs';

const PASSWORD = 'correct horse battery';

const isChat = (game) => (m) => m.type === 'chat' && m.game === game;

test('both rooms: each member gets every message, with text only where it may read it', async () => {
  await withServer([], async (server) => {
    const ana = await Client.connect(server.url, 'Ana');
    const bo = await Client.connect(server.url, 'Bo');
    const cy = await Client.connect(server.url, 'Cy');
    const { game, tokenA } = await startGame(ana, bo, { variant: 'chess' });
    const watched = await cy.ok({ type: 'watch', game });
    assert.deepEqual(watched.chat, []);
    const before = watched.seq;

    const mine = await ana.ok({ type: 'chat', game, room: 'players', text: '  good luck  ' });
    assert.equal(mine.type, 'chat');
    assert.deepEqual({ ...mine, at_ms: 0 }, { type: 'chat', game, seq: before + 1, room: 'players', from: 'Ana', text: 'good luck', at_ms: 0, id: mine.id });
    assert.equal((await bo.next(isChat(game))).text, 'good luck');
    const hidden = await cy.next(isChat(game));
    assert.equal(hidden.seq, before + 1);
    assert.equal(hidden.text, null, 'a spectator does not read the players');

    const markup = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    const theirs = await cy.ok({ type: 'chat', game, room: 'spectators', text: markup });
    assert.equal(theirs.text, markup, 'text is text: the server neither strips nor escapes it');
    assert.equal(theirs.from, 'Cy');
    for (const player of [ana, bo]) {
      const event = await player.next(isChat(game));
      assert.equal(event.seq, before + 2);
      assert.equal(event.text, null, 'players do not read the spectators while they play');
    }

    // Each room refuses the other's members, and a connection that does not watch.
    const wrongRoom = await ana.request({ type: 'chat', game, room: 'spectators', text: 'hi' });
    assert.equal(wrongRoom.code, 'forbidden');
    assert.match(wrongRoom.message, /players cannot write to the spectators' room/);
    assert.equal((await cy.request({ type: 'chat', game, room: 'players', text: 'hi' })).code, 'forbidden');
    const stranger = await Client.connect(server.url, 'Dee');
    assert.equal((await stranger.request({ type: 'chat', game, room: 'spectators', text: 'hi' })).code, 'forbidden');
    assert.equal((await stranger.request({ type: 'chat', game: 'nope', room: 'spectators', text: 'hi' })).code, 'unknown_game');

    // Bad text changes nothing.
    for (const text of ['   ', 'x'.repeat(141), 'a\u0007b', '']) {
      const refused = await bo.request({ type: 'chat', game, room: 'players', text });
      assert.equal(refused.code, 'bad_request', JSON.stringify(text));
    }
    assert.equal((await bo.ok({ type: 'chat', game, room: 'players', text: '王'.repeat(140) })).seq, before + 3);
    await ana.next(isChat(game));
    await cy.next(isChat(game));

    // state.chat: what that connection may read.
    const late = await Client.connect(server.url, 'Eve');
    const lateState = await late.ok({ type: 'watch', game });
    assert.deepEqual(lateState.chat.map((m) => m.text), [markup]);
    const resumed = await ana.ok({ type: 'resume', game, token: tokenA });
    assert.equal(resumed.type, 'state');
    assert.deepEqual(resumed.chat.map((m) => m.text), ['good luck', '王'.repeat(140)]);

    // since: the chat events are replayed, each in the form this member may read.
    const replayId = 'since1';
    cy.send({ type: 'watch', game, since: before, id: replayId });
    const replayed = [await cy.next(isChat(game)), await cy.next(isChat(game)), await cy.next(isChat(game))];
    assert.equal(replayed[0].id, replayId);
    assert.deepEqual(replayed.map((m) => m.seq), [before + 1, before + 2, before + 3]);
    assert.deepEqual(replayed.map((m) => m.text), [null, markup, null]);

    // Once the game is over the players read the spectators' room.
    await ana.ok({ type: 'resign', game });
    const after = await bo.ok({ type: 'resume', game, token: (await bo.messages.find((m) => m.type === 'joined')).token });
    assert.deepEqual(after.chat.map((m) => m.text), ['good luck', markup, '王'.repeat(140)]);
    await cy.ok({ type: 'chat', game, room: 'spectators', text: 'gg' });
    assert.equal((await ana.next((m) => isChat(game)(m) && m.room === 'spectators' && m.text !== null)).text, 'gg');
    for (const client of [ana, bo, cy, stranger, late]) await client.close();
  });
});

test('the chat budget: five at once, then rate_limited with when to try again', async () => {
  await withServer([], async (server) => {
    const ana = await Client.connect(server.url, 'Ana');
    const bo = await Client.connect(server.url, 'Bo');
    const { game } = await startGame(ana, bo, { variant: 'xiangqi' });
    for (let i = 0; i < 5; i++) await ana.ok({ type: 'chat', game, room: 'players', text: `m${i}` });
    const limited = await ana.request({ type: 'chat', game, room: 'players', text: 'one too many' });
    assert.equal(limited.code, 'rate_limited');
    assert.match(limited.message, /try again in \d+ ms/);
    // Per connection: the opponent still chats, and the other requests still go.
    await bo.ok({ type: 'chat', game, room: 'players', text: 'calm down' });
    await ana.ok({ type: 'ping' });
    await ana.close();
    await bo.close();
  });
});

test('mute: a player stops reading the opponent, for that seat only', async () => {
  await withServer([], async (server) => {
    const ana = await Client.connect(server.url, 'Ana');
    const bo = await Client.connect(server.url, 'Bo');
    const cy = await Client.connect(server.url, 'Cy');
    const { game } = await startGame(ana, bo, { variant: 'draughts' });
    await cy.ok({ type: 'watch', game });
    assert.deepEqual(await ana.ok({ type: 'chat_mute', game, mute: true }), { type: 'chat_muted', game, mute: true, id: ana.messages.at(-1).id });
    assert.equal((await cy.request({ type: 'chat_mute', game })).code, 'forbidden');
    await bo.ok({ type: 'chat', game, room: 'players', text: 'you will lose' });
    assert.equal((await ana.next(isChat(game))).text, null, 'muted');
    await ana.ok({ type: 'chat', game, room: 'players', text: 'bye' });
    assert.equal((await bo.next(isChat(game))).text, 'bye', 'the other seat still reads');
    assert.equal((await ana.ok({ type: 'resume', game, token: ana.messages.find((m) => m.type === 'created').token })).chat.length, 1);
    await ana.ok({ type: 'chat_mute', game, mute: false });
    await bo.ok({ type: 'chat', game, room: 'players', text: 'sorry' });
    assert.equal((await ana.next((m) => isChat(game)(m) && m.from === 'Bo')).text, 'sorry');
    for (const client of [ana, bo, cy]) await client.close();
  });
});

test('--no-spectator-chat turns the watchers off, not the players', async () => {
  await withServer(['--no-spectator-chat'], async (server) => {
    const ana = await Client.connect(server.url, 'Ana');
    const bo = await Client.connect(server.url, 'Bo');
    const cy = await Client.connect(server.url, 'Cy');
    const { game } = await startGame(ana, bo, { variant: 'chess' });
    await cy.ok({ type: 'watch', game });
    const refused = await cy.request({ type: 'chat', game, room: 'spectators', text: 'hello' });
    assert.equal(refused.code, 'not_allowed');
    await ana.ok({ type: 'chat', game, room: 'players', text: 'still here' });
    for (const client of [ana, bo, cy]) await client.close();
  });
});

test('--chat-words masks whole words before storing and sending', async () => {
  await inTempFolder(async (dir) => {
    const words = path.join(dir, 'words.txt');
    writeFileSync(words, '# masked\nheck\n');
    await withServer(['--chat-words', words], async (server) => {
      const ana = await Client.connect(server.url, 'Ana');
      const bo = await Client.connect(server.url, 'Bo');
      const { game } = await startGame(ana, bo, { variant: 'chess' });
      const sent = await ana.ok({ type: 'chat', game, room: 'players', text: 'Heck, what the HECK. Heckle.' });
      assert.equal(sent.text, '****, what the ****. Heckle.');
      assert.equal((await bo.next(isChat(game))).text, '****, what the ****. Heckle.');
      await ana.close();
      await bo.close();
    });
    writeFileSync(words, 'two words\n');
    const broken = startServer({ args: ['--chat-words', words] });
    await assert.rejects(broken, /line 1: not one word/);
  });
});

test('chat survives a restart, and the replay shows each room to whom it may', async () => {
  const first = await startServer({ args: ['--password-cost', 'minimal'] });
  const tokens = {};
  for (const name of ['anna', 'bert']) {
    assert.equal((await httpCall(first, 'POST', '/api/account', { body: { username: name, password: PASSWORD } })).status, 201);
    tokens[name] = (await httpCall(first, 'POST', '/api/session', { body: { username: name, password: PASSWORD } })).json.token;
  }
  const signIn = async (url, name) => {
    const client = await Client.connect(url);
    await client.ok({ type: 'hello', name, token: tokens[name] });
    return client;
  };
  let ana = await signIn(first.url, 'anna');
  const bo = await signIn(first.url, 'bert');
  const cy = await Client.connect(first.url, 'Cy');
  const { game, tokenA } = await startGame(ana, bo, { variant: 'chess' });
  await cy.ok({ type: 'watch', game });
  await ana.ok({ type: 'chat', game, room: 'players', text: 'secret plan' });
  await cy.ok({ type: 'chat', game, room: 'spectators', text: 'public remark' });
  // Killed, not stopped: a message answered is a message stored.
  await first.kill();

  const second = await startServer({ db: first.database, args: ['--password-cost', 'minimal'] });
  try {
    ana = await signIn(second.url, 'anna');
    const state = await ana.ok({ type: 'resume', game, token: tokenA });
    assert.deepEqual(state.chat.map((m) => [m.room, m.from, m.text]), [['players', 'anna', 'secret plan']]);
    const watcher = await Client.connect(second.url, 'Dee');
    assert.deepEqual((await watcher.ok({ type: 'watch', game })).chat.map((m) => m.text), ['public remark']);
    // Back after the restart, anna hears her own presence after her state (protocol.md); the
    // numbering goes on after the stored messages and that event.
    const back = await ana.next((m) => m.type === 'presence' && m.game === game);
    assert.equal(back.seq, state.seq + 1);
    const next = await ana.ok({ type: 'chat', game, room: 'players', text: 'back' });
    assert.equal(next.seq, back.seq + 1);

    const asPlayer = await ana.ok({ type: 'replay', game });
    assert.deepEqual(asPlayer.chat.map((m) => m.text), ['secret plan', 'public remark', 'back']);
    const asGuest = await watcher.ok({ type: 'replay', game });
    assert.deepEqual(asGuest.chat.map((m) => m.text), ['public remark']);
    await ana.close();
    await watcher.close();
  } finally {
    assert.equal((await second.stop()).code, 0);
    first.cleanup();
  }
});
