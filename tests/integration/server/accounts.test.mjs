// Accounts over HTTP (issue 40): sign up, sign in (cookie and token), sign out, password change,
// profiles; Origin on state-changing requests; sign-in slowed after failures; nothing secret
// in the log or in any answer but the sign-in's own token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpCall as call, startServer } from './harness.mjs';

const PASSWORD = 'correct horse battery';

async function withAccountsServer(use) {
  const server = await startServer({ args: ['--password-cost', 'minimal'], logLevel: 'debug' });
  try {
    await use(server);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
}

test('sign up, sign in, profile, sign out, and the log never holds a secret', async () => {
  const server = await startServer({ args: ['--password-cost', 'minimal'], logLevel: 'debug' });
  const answers = [];
  const keep = (answer) => (answers.push(answer.text), answer);
  let token;
  try {
    const created = keep(await call(server, 'POST', '/api/account', { body: { username: 'Anna_B', password: PASSWORD } }));
    assert.equal(created.status, 201);
    assert.deepEqual(created.json, { username: 'Anna_B' });

    const taken = keep(await call(server, 'POST', '/api/account', { body: { username: 'anna_b', password: PASSWORD } }));
    assert.equal(taken.status, 409);

    const badName = keep(await call(server, 'POST', '/api/account', { body: { username: 'a b', password: PASSWORD } }));
    assert.equal(badName.status, 400);
    assert.ok(badName.json.message.length > 0);
    const weak = keep(await call(server, 'POST', '/api/account', { body: { username: 'bert', password: 'password' } }));
    assert.equal(weak.status, 400);
    const malformed = keep(await call(server, 'POST', '/api/account', { body: '{"username":' }));
    assert.equal(malformed.status, 400);

    const signedIn = await call(server, 'POST', '/api/session', { body: { username: 'ANNA_B', password: PASSWORD } });
    assert.equal(signedIn.status, 200);
    assert.equal(signedIn.json.username, 'Anna_B');
    token = signedIn.json.token;
    assert.match(token, /^[0-9a-f]{32}$/);
    const cookie = signedIn.headers.get('set-cookie');
    assert.equal(cookie, `arbiter_session=${token}; HttpOnly; SameSite=Strict; Path=/`);

    const wrongPassword = keep(await call(server, 'POST', '/api/session', { body: { username: 'anna_b', password: 'not it at all' } }));
    const unknownName = keep(await call(server, 'POST', '/api/session', { body: { username: 'nobody', password: PASSWORD } }));
    assert.equal(wrongPassword.status, 401);
    assert.equal(unknownName.status, 401);
    assert.equal(wrongPassword.text, unknownName.text, 'one message, never which was wrong');

    const profile = keep(await call(server, 'GET', '/api/users/anna_b'));
    assert.equal(profile.status, 200);
    assert.deepEqual(Object.keys(profile.json).sort(), ['counts', 'created_ms', 'deleted', 'ratings', 'username']);
    assert.equal(profile.json.username, 'Anna_B');
    assert.equal(keep(await call(server, 'GET', '/api/users/nobody')).status, 404);

    // Sign out with the cookie: the session is gone, a second sign-out changes nothing.
    const out = keep(await call(server, 'DELETE', '/api/session', { headers: { cookie: `arbiter_session=${token}` } }));
    assert.equal(out.status, 204);
    assert.match(out.headers.get('set-cookie'), /^arbiter_session=; .*Max-Age=0/);
    const change = keep(await call(server, 'POST', '/api/account/password', {
      headers: { authorization: `Bearer ${token}` },
      body: { password: PASSWORD, new_password: 'a brand new phrase' },
    }));
    assert.equal(change.status, 401, 'the ended session signs nothing in');
    assert.equal(keep(await call(server, 'DELETE', '/api/session')).status, 401);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
  const log = server.stderr();
  for (const secret of [PASSWORD, 'not it at all', token]) {
    assert.ok(!log.includes(secret), `the log holds a secret: ${secret}`);
    for (const answer of answers) assert.ok(!answer.includes(secret), `an answer holds a secret: ${secret}`);
  }
});

test('a password change ends every other session and keeps this one', async () => {
  await withAccountsServer(async (server) => {
    assert.equal((await call(server, 'POST', '/api/account', { body: { username: 'carl', password: PASSWORD } })).status, 201);
    const here = (await call(server, 'POST', '/api/session', { body: { username: 'carl', password: PASSWORD } })).json.token;
    const there = (await call(server, 'POST', '/api/session', { body: { username: 'carl', password: PASSWORD } })).json.token;
    const wrong = await call(server, 'POST', '/api/account/password', {
      headers: { authorization: `Bearer ${here}` },
      body: { password: 'not the password', new_password: 'a brand new phrase' },
    });
    assert.equal(wrong.status, 401);
    const changed = await call(server, 'POST', '/api/account/password', {
      headers: { authorization: `Bearer ${here}` },
      body: { password: PASSWORD, new_password: 'a brand new phrase' },
    });
    assert.equal(changed.status, 204);
    // The other session is gone (its sign-out still answers 204: ending an ended one is no error),
    // this one still works: it can change the password again.
    const again = await call(server, 'POST', '/api/account/password', {
      headers: { authorization: `Bearer ${there}` },
      body: { password: 'a brand new phrase', new_password: 'yet another phrase' },
    });
    assert.equal(again.status, 401);
    const mine = await call(server, 'POST', '/api/account/password', {
      headers: { cookie: `arbiter_session=${here}` },
      body: { password: 'a brand new phrase', new_password: 'yet another phrase' },
    });
    assert.equal(mine.status, 204);
    assert.equal((await call(server, 'POST', '/api/session', { body: { username: 'carl', password: PASSWORD } })).status, 401);
    assert.equal((await call(server, 'POST', '/api/session', { body: { username: 'carl', password: 'yet another phrase' } })).status, 200);
  });
});

test('a state-changing request from a foreign Origin is refused; its own Origin and none pass', async () => {
  await withAccountsServer(async (server) => {
    const body = { username: 'dora', password: PASSWORD };
    const foreign = await call(server, 'POST', '/api/account', { body, headers: { origin: 'https://evil.example' } });
    assert.equal(foreign.status, 403);
    assert.equal((await call(server, 'GET', '/api/users/dora')).status, 404, 'the refused sign-up changed nothing');
    const own = await call(server, 'POST', '/api/account', { body, headers: { origin: server.http } });
    assert.equal(own.status, 201);
    const signIn = await call(server, 'POST', '/api/session', { body, headers: { origin: 'null' } });
    assert.equal(signIn.status, 403);
    const token = (await call(server, 'POST', '/api/session', { body })).json.token;
    const out = await call(server, 'DELETE', '/api/session', {
      headers: { cookie: `arbiter_session=${token}`, origin: 'https://evil.example' },
    });
    assert.equal(out.status, 403);
  });
});

test('repeated failed sign-ins are slowed with 429 and Retry-After, then let through', async () => {
  await withAccountsServer(async (server) => {
    assert.equal((await call(server, 'POST', '/api/account', { body: { username: 'emil', password: PASSWORD } })).status, 201);
    for (let i = 0; i < 4; i += 1) {
      const failed = await call(server, 'POST', '/api/session', { body: { username: 'emil', password: `guess number ${i}` } });
      assert.equal(failed.status, 401);
    }
    const slowed = await call(server, 'POST', '/api/session', { body: { username: 'emil', password: PASSWORD } });
    assert.equal(slowed.status, 429);
    const wait = Number(slowed.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 50));
    const ok = await call(server, 'POST', '/api/session', { body: { username: 'emil', password: PASSWORD } });
    assert.equal(ok.status, 200);
  });
});

test('accounts and sessions outlive a restart', async () => {
  const first = await startServer({ args: ['--password-cost', 'minimal'] });
  const db = first.database;
  let token;
  try {
    assert.equal((await call(first, 'POST', '/api/account', { body: { username: 'fay', password: PASSWORD } })).status, 201);
    token = (await call(first, 'POST', '/api/session', { body: { username: 'fay', password: PASSWORD } })).json.token;
  } finally {
    // Keep the folder: the second server opens the same database.
    first.proc.kill('SIGTERM');
    await new Promise((resolve) => first.proc.on('exit', resolve));
  }
  const second = await startServer({ args: ['--password-cost', 'minimal'], db });
  try {
    assert.equal((await call(second, 'GET', '/api/users/FAY')).json.username, 'fay');
    assert.equal((await call(second, 'DELETE', '/api/session', { headers: { authorization: `Bearer ${token}` } })).status, 204);
  } finally {
    assert.equal((await second.stop()).code, 0);
    first.cleanup();
  }
});
