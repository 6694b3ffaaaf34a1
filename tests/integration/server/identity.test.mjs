// Who a WebSocket connection is (issue 40): the upgrade's session cookie or hello's token signs
// it in (welcome.user), a bad token is unauthorized and leaves a guest, a guest cannot take a
// registered name, a cookie from another Origin opens nothing, and a deleted account can no
// longer sign in, keeps its name taken and signs no connection in. The log holds no secret.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Client, httpCall as call, inTempFolder, serverBinary, startServer } from './harness.mjs';

const PASSWORD = 'correct horse battery';

async function signUpAndIn(server, username) {
  assert.equal((await call(server, 'POST', '/api/account', { body: { username, password: PASSWORD } })).status, 201);
  const signedIn = await call(server, 'POST', '/api/session', { body: { username, password: PASSWORD } });
  assert.equal(signedIn.status, 200);
  return signedIn.json.token;
}

test('cookie and token sign a connection in; bad tokens and registered names are refused', async () => {
  const server = await startServer({ args: ['--password-cost', 'minimal'], logLevel: 'debug' });
  let token;
  try {
    token = await signUpAndIn(server, 'Anna_B');

    // The upgrade's cookie signs the connection in, whatever name hello gives.
    const browser = await Client.connect(server.url, null, { headers: { cookie: `theme=dark; arbiter_session=${token}` } });
    const welcome = await browser.ok({ type: 'hello', name: 'Someone' });
    assert.deepEqual(welcome.user, { username: 'Anna_B' });
    browser.close();

    // A guest, then hello with the token.
    const terminal = await Client.connect(server.url);
    const guest = await terminal.ok({ type: 'hello', name: 'Guest' });
    assert.equal(guest.user, null);
    const bad = await terminal.request({ type: 'hello', name: 'Guest', token: 'f'.repeat(32) });
    assert.equal(bad.type, 'error');
    assert.equal(bad.code, 'unauthorized');
    const still = await terminal.ok({ type: 'hello', name: 'Guest' });
    assert.equal(still.user, null, 'a bad token changes nothing');
    const signed = await terminal.ok({ type: 'hello', name: 'Guest', token });
    assert.deepEqual(signed.user, { username: 'Anna_B' });
    terminal.close();

    // An unknown cookie: a guest, no error.
    const stale = await Client.connect(server.url, null, { headers: { cookie: 'arbiter_session=0123' } });
    assert.equal((await stale.ok({ type: 'hello', name: 'Stale' })).user, null);
    // A guest may not use a registered name in any case.
    const taken = await stale.request({ type: 'hello', name: 'ANNA_b' });
    assert.equal(taken.type, 'error');
    assert.equal(taken.code, 'name_taken');
    stale.close();

    // The cookie from another site's page: the upgrade is refused.
    await assert.rejects(
      Client.connect(server.url, null, { headers: { cookie: `arbiter_session=${token}`, origin: 'https://evil.example' } }),
      /403/,
    );
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
  const log = server.stderr();
  for (const secret of [PASSWORD, token]) {
    assert.ok(!log.includes(secret), `the log holds a secret: ${secret}`);
  }
});

test('a deleted account cannot sign in, keeps its name taken, and signs no connection in', async () => {
  const server = await startServer({ args: ['--password-cost', 'minimal'], logLevel: 'debug' });
  let token;
  try {
    token = await signUpAndIn(server, 'carl');
    const open = await Client.connect(server.url, null, { headers: { cookie: `arbiter_session=${token}` } });
    assert.deepEqual((await open.ok({ type: 'hello', name: 'x' })).user, { username: 'carl' });

    const foreign = await call(server, 'DELETE', '/api/account', {
      headers: { cookie: `arbiter_session=${token}`, origin: 'https://evil.example' },
      body: { password: PASSWORD },
    });
    assert.equal(foreign.status, 403, 'another site cannot delete with the cookie');
    const wrong = await call(server, 'DELETE', '/api/account', {
      headers: { authorization: `Bearer ${token}` },
      body: { password: 'not the password' },
    });
    assert.equal(wrong.status, 401);
    const deleted = await call(server, 'DELETE', '/api/account', {
      headers: { cookie: `arbiter_session=${token}` },
      body: { password: PASSWORD },
    });
    assert.equal(deleted.status, 204);
    assert.match(deleted.headers.get('set-cookie'), /^arbiter_session=; .*Max-Age=0/);

    // The open connection is a guest at its next message.
    assert.equal((await open.ok({ type: 'hello', name: 'y' })).user, null);
    open.close();

    const again = await call(server, 'POST', '/api/session', { body: { username: 'carl', password: PASSWORD } });
    const unknown = await call(server, 'POST', '/api/session', { body: { username: 'nobody', password: PASSWORD } });
    assert.equal(again.status, 401);
    assert.deepEqual(again.json, unknown.json, 'the same answer as a wrong password');
    assert.equal((await call(server, 'POST', '/api/account', { body: { username: 'CARL', password: PASSWORD } })).status, 409);

    const later = await Client.connect(server.url, null, { headers: { cookie: `arbiter_session=${token}` } });
    assert.equal((await later.ok({ type: 'hello', name: 'z' })).user, null, 'the cookie signs nobody in');
    const taken = await later.request({ type: 'hello', name: 'Carl' });
    assert.equal(taken.code, 'name_taken');
    const tokenHello = await later.request({ type: 'hello', name: 'z', token });
    assert.equal(tokenHello.code, 'unauthorized');
    later.close();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
  const log = server.stderr();
  for (const secret of [PASSWORD, token]) {
    assert.ok(!log.includes(secret), `the log holds a secret: ${secret}`);
  }
});

test('sessions and names survive a restart; --delete-account deletes by name', async () => {
  await inTempFolder(async (dir) => {
    const db = path.join(dir, 'arbiter.db');
    const server = await startServer({ db, args: ['--password-cost', 'minimal'] });
    let token;
    try {
      token = await signUpAndIn(server, 'dora');
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
    const again = await startServer({ db, args: ['--password-cost', 'minimal'] });
    try {
      const client = await Client.connect(again.url);
      assert.deepEqual((await client.ok({ type: 'hello', name: 'd', token })).user, { username: 'dora' });
      const guest = await Client.connect(again.url);
      assert.equal((await guest.request({ type: 'hello', name: 'DORA' })).code, 'name_taken');
      client.close();
      guest.close();
    } finally {
      assert.equal((await again.stop()).code, 0);
    }
    const run = (args) => spawnSync(serverBinary, ['--db', db, ...args], { encoding: 'utf8' });
    const deleted = run(['--delete-account', 'DORA']);
    assert.equal(deleted.status, 0, deleted.stderr);
    assert.match(deleted.stdout, /deleted the account 'dora'/);
    const unknown = run(['--delete-account', 'nobody']);
    assert.notEqual(unknown.status, 0);
    assert.match(unknown.stderr, /no account named 'nobody'/);

    const after = await startServer({ db, args: ['--password-cost', 'minimal'] });
    try {
      const client = await Client.connect(after.url);
      assert.equal((await client.request({ type: 'hello', name: 'd', token })).code, 'unauthorized');
      client.close();
      const signIn = await call(after, 'POST', '/api/session', { body: { username: 'dora', password: PASSWORD } });
      assert.equal(signIn.status, 401);
    } finally {
      assert.equal((await after.stop()).code, 0);
    }
  });
});
