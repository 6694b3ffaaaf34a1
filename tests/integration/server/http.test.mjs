// HTTP on the game port: REST API, export, health, metrics, static files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startServer, inTempFolder, Client, startGame, play } from './harness.mjs';

let server;
let finished;
before(async () => {
  server = await startServer();
  const a = await Client.connect(server.url, 'Ana');
  const b = await Client.connect(server.url, 'Bo');
  ({ game: finished } = await startGame(a, b, { variant: 'chess' }));
  await play(finished, a, b, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  await a.nextOf('ended');
});
after(async () => assert.equal((await server.stop()).code, 0));

test('GET /healthz says the database is writable', async () => {
  const response = await fetch(`${server.http}/healthz`);
  assert.equal(response.status, 200);
});

test('every response carries a Date (RFC 9110 6.6.1), a refusal by the HTTP layer too', async () => {
  const dated = (text) => {
    const date = Date.parse(text);
    assert.ok(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text), text);
    assert.ok(Math.abs(date - Date.now()) < 60000, text);
  };
  for (const target of ['/healthz', '/api/games', '/api/games/nosuchgame', '/index.html', '/nosuchfile']) {
    const response = await fetch(`${server.http}${target}`);
    dated(response.headers.get('date'));
  }
  // A request the HTTP layer refuses itself (HTTP/1.1 without Host) is dated too.
  const raw = await new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(server.http).port), '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\n\r\n'));
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(raw, /^HTTP\/1\.1 400/);
  dated(/\r\nDate: ([^\r]*)\r\n/i.exec(raw)[1]);
});

test('GET /api/games lists stored games with filters', async () => {
  const all = await (await fetch(`${server.http}/api/games`)).json();
  assert.ok(all.games.some((g) => g.game === finished));
  const ended = await (await fetch(`${server.http}/api/games?status=ended&variant=chess&limit=5`)).json();
  assert.ok(ended.games.every((g) => g.status === 'ended' && g.variant === 'chess'));
  const bad = await fetch(`${server.http}/api/games?limit=0`);
  assert.equal(bad.status, 400);
});

test('GET /api/games as the README writes it, every value empty, is no filter', async () => {
  // README: `GET /api/games?status=&variant=&limit=&before=`; an HTML form sends its "any"
  // choice the same way. An empty value filters nothing; an unknown key is still refused.
  const response = await fetch(`${server.http}/api/games?status=&variant=&limit=&before=`);
  const body = await response.text();
  assert.equal(response.status, 200, body);
  assert.ok(JSON.parse(body).games.some((g) => g.game === finished), body);
  const chess = await fetch(`${server.http}/api/games?status=&variant=chess`);
  assert.equal(chess.status, 200);
  assert.ok((await chess.json()).games.every((g) => g.variant === 'chess'));
  assert.equal((await fetch(`${server.http}/api/games?colour=`)).status, 400);
  assert.equal((await fetch(`${server.http}/api/games?status=over`)).status, 400);
});

test('GET /ws without the WebSocket upgrade is told to upgrade (426), not that it is missing', async () => {
  for (const method of ['GET', 'HEAD']) {
    const response = await fetch(`${server.http}/ws`, { method });
    assert.equal(response.status, 426, method);
    assert.equal(response.headers.get('upgrade'), 'websocket', method);
    if (method === 'GET') assert.match(await response.text(), /WebSocket/);
  }
  // The WebSocket itself is where it was.
  const client = await Client.connect(server.url);
  await client.ok({ type: 'ping' });
  await client.close();
});

test('GET /api/games/{id} gives the record; /export gives PGN', async () => {
  const record = await (await fetch(`${server.http}/api/games/${finished}`)).json();
  assert.deepEqual(record.moves.map((m) => m.move), ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  const pgn = await (await fetch(`${server.http}/api/games/${finished}/export`)).text();
  assert.match(pgn, /\[Result "0-1"\]/);
  assert.match(pgn, /1\. f3 e5 2\. g4 Qh4#/);
  assert.match(pgn, /\[TimeControl "-"\]/, 'an untimed game says it had no time control');
  assert.equal((await fetch(`${server.http}/api/games/nosuchgame`)).status, 404);
});

test('stored games carry a strong ETag of their bytes: asked again unchanged, a 304 without a body', async () => {
  const a = await Client.connect(server.url);
  const b = await Client.connect(server.url);
  const { game } = await startGame(a, b, { variant: 'chess' });
  await play(game, a, b, ['e2e4']);
  const paths = [`/api/games/${game}`, `/api/games/${game}/export`, `/api/games?variant=chess`];
  const tags = {};
  for (const target of paths) {
    const first = await fetch(`${server.http}${target}`);
    assert.equal(first.status, 200, target);
    const etag = first.headers.get('etag');
    assert.match(etag, /^"[0-9a-f]{32}"$/, target);
    assert.equal(first.headers.get('cache-control'), 'no-cache', target);
    const body = await first.text();
    tags[target] = etag;
    for (const headers of [{ 'If-None-Match': etag }, { 'If-None-Match': `"other", W/${etag}` }, { 'If-None-Match': '*' }]) {
      for (const method of ['GET', 'HEAD']) {
        const again = await fetch(`${server.http}${target}`, { method, headers });
        assert.equal(again.status, 304, `${method} ${target} ${JSON.stringify(headers)}`);
        assert.equal(again.headers.get('etag'), etag, target);
        assert.equal(await again.text(), '', target);
      }
    }
    const other = await fetch(`${server.http}${target}`, { headers: { 'If-None-Match': '"other"' } });
    assert.equal(other.status, 200, target);
    assert.equal(await other.text(), body, target);
  }
  // A move is a new version of the game and of its export.
  await play(game, b, a, ['e7e5'], 1);
  for (const target of paths.slice(0, 2)) {
    const changed = await fetch(`${server.http}${target}`, { headers: { 'If-None-Match': tags[target] } });
    assert.equal(changed.status, 200, target);
    assert.notEqual(changed.headers.get('etag'), tags[target], target);
  }
  const pgn = await (await fetch(`${server.http}/api/games/${game}/export`)).text();
  assert.match(pgn, /1\. e4 e5/, pgn);
  // A refusal carries no tag.
  const missing = await fetch(`${server.http}/api/games/nosuchgame`, { headers: { 'If-None-Match': '*' } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('etag'), null);
  await a.close();
  await b.close();
});

test('a timed game\'s export carries its TimeControl and each move\'s clock', async () => {
  const a = await Client.connect(server.url);
  const b = await Client.connect(server.url);
  const { game } = await startGame(a, b, { variant: 'chess', clock: { initial_ms: 90500, increment_ms: 2000 } });
  await play(game, a, b, ['e2e4', 'e7e5']);
  const pgn = await (await fetch(`${server.http}/api/games/${game}/export`)).text();
  assert.match(pgn, /\[TimeControl "90\.5\+2"\]/, pgn);
  assert.match(pgn, /1\. e4 \{\[%clk 0:01:\d\d\]\} 1\.\.\. e5 \{\[%clk 0:01:\d\d\]\}/, pgn);
  await a.close();
  await b.close();
});

test('GET /metrics speaks Prometheus text', async () => {
  const text = await (await fetch(`${server.http}/metrics`)).text();
  assert.match(text, /arbiter_moves_accepted_total \d+/);
});

test('the browser client may not be framed by another site, nor load from one', async () => {
  // The page keeps the seat tokens: a foreign page framing it could steer a click onto Resign.
  await inTempFolder(async (dir) => {
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title>\n');
    writeFileSync(path.join(dir, 'app.js'), 'console.log(1);\n');
    const site = await startServer({ webRoot: dir });
    try {
      for (const file of ['/', '/app.js']) {
        const response = await fetch(`${site.http}${file}`);
        assert.equal(response.status, 200, file);
        const policy = response.headers.get('content-security-policy') ?? '';
        assert.match(policy, /frame-ancestors 'none'/, file);
        assert.match(policy, /script-src 'self'(;|$)/, file);
        assert.match(policy, /object-src 'none'/, file);
        assert.equal(response.headers.get('x-frame-options'), 'DENY', file);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff', file);
        assert.equal(response.headers.get('referrer-policy'), 'no-referrer', file);
      }
    } finally {
      await site.stop();
    }
  });
});

test('static files are served with their media type', async () => {
  // nosniff is on: a browser refuses a sound or an icon sent as application/octet-stream.
  await inTempFolder(async (dir) => {
    const files = { 'index.html': 'text/html; charset=utf-8', 'move.wav': 'audio/wav', 'favicon.ico': 'image/x-icon', 'app.css': 'text/css; charset=utf-8' };
    for (const name of Object.keys(files)) writeFileSync(path.join(dir, name), 'x');
    const site = await startServer({ webRoot: dir });
    try {
      for (const [name, type] of Object.entries(files)) {
        const response = await fetch(`${site.http}/${name}`);
        assert.equal(response.status, 200, name);
        assert.equal(response.headers.get('content-type'), type, name);
        await response.arrayBuffer();
      }
    } finally {
      await site.stop();
    }
  });
});

test('static files cannot escape the web root', async () => {
  const response = await fetch(`${server.http}/..%2f..%2fetc%2fpasswd`);
  assert.ok(response.status === 404 || response.status === 400);
});

test('static files carry ETag and Last-Modified; a current copy gets 304 without a body', async () => {
  await inTempFolder(async (dir) => {
    const file = path.join(dir, 'app.js');
    const setVersion = (text, isoTime) => {
      writeFileSync(file, text);
      utimesSync(file, new Date(isoTime), new Date(isoTime));
    };
    setVersion('console.log(1);\n', '2024-01-02T03:04:05.678Z');
    const lastModified = 'Tue, 02 Jan 2024 03:04:05 GMT';
    const site = await startServer({ webRoot: dir });
    try {
      const url = `${site.http}/app.js`;
      const first = await fetch(url);
      assert.equal(first.status, 200);
      assert.equal(await first.text(), 'console.log(1);\n');
      const etag = first.headers.get('etag');
      assert.match(etag, /^W\/"[0-9a-f]+-[0-9a-f]+"$/);
      assert.equal(first.headers.get('last-modified'), lastModified);
      assert.equal(first.headers.get('cache-control'), 'no-cache');

      for (const headers of [
        { 'If-None-Match': etag },
        { 'If-None-Match': etag.slice(2) }, // weak comparison: W/ or not
        { 'If-None-Match': `"other", ${etag}` },
        { 'If-None-Match': '*' },
        { 'If-Modified-Since': lastModified },
        { 'If-Modified-Since': 'Tuesday, 02-Jan-24 03:04:05 GMT' },
        { 'If-Modified-Since': 'Tue Jan  2 03:04:05 2024' },
      ]) {
        for (const method of ['GET', 'HEAD']) {
          const what = `${method} ${JSON.stringify(headers)}`;
          const response = await fetch(url, { method, headers });
          assert.equal(response.status, 304, what);
          assert.equal(await response.text(), '', what);
          assert.equal(response.headers.get('etag'), etag, what);
          assert.equal(response.headers.get('last-modified'), lastModified, what);
          assert.equal(response.headers.get('cache-control'), 'no-cache', what);
          assert.equal(response.headers.get('content-length'), null, what);
          assert.equal(response.headers.get('content-type'), null, what);
        }
      }
      for (const headers of [
        { 'If-None-Match': 'W/"other"' },
        { 'If-None-Match': 'W/"other"', 'If-Modified-Since': lastModified }, // If-None-Match decides
        { 'If-Modified-Since': 'Tue, 02 Jan 2024 03:04:04 GMT' },
        { 'If-Modified-Since': 'Tue, 02 Jan 2024' }, // not a date: ignored
      ]) {
        const response = await fetch(url, { headers });
        assert.equal(response.status, 200, JSON.stringify(headers));
        assert.equal(await response.text(), 'console.log(1);\n');
      }

      // A new version of the same size: a new tag, and the old one gets the new file.
      setVersion('console.log(2);\n', '2024-01-02T03:04:05.900Z');
      const changed = await fetch(url, { headers: { 'If-None-Match': etag } });
      assert.equal(changed.status, 200);
      assert.equal(await changed.text(), 'console.log(2);\n');
      assert.notEqual(changed.headers.get('etag'), etag);

      // The JSON API has no Last-Modified: If-Modified-Since alone does not make it a 304.
      const api = await fetch(`${site.http}/api/games`, {
        headers: { 'If-Modified-Since': 'Fri, 01 Jan 2100 00:00:00 GMT' },
      });
      assert.equal(api.status, 200);
      assert.equal(api.headers.get('last-modified'), null);
      assert.ok(Array.isArray((await api.json()).games));
    } finally {
      assert.equal((await site.stop()).code, 0);
    }
  });
});

test('a flood of API reads waits in a bounded queue: the rest get 503 with Retry-After', async () => {
  const flooded = await startServer({ args: ['--max-queued-reads', '1'] });
  try {
    const a = await Client.connect(flooded.url, 'Ana');
    const b = await Client.connect(flooded.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'chess' });
    await play(game, a, b, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
    await a.nextOf('ended');
    const paths = [`/api/games/${game}/export`, `/api/games/${game}`, '/api/games?status=ended'];
    const responses = await Promise.all(
      Array.from({ length: 150 }, async (_, i) => {
        const path = paths[i % paths.length];
        const response = await fetch(`${flooded.http}${path}`);
        return { path, response, body: await response.text() };
      }),
    );
    let served = 0;
    let refused = 0;
    for (const { path, response, body } of responses) {
      if (response.status === 503) {
        assert.equal(response.headers.get('retry-after'), '1');
        assert.match(body, /busy reading stored games/);
        refused++;
        continue;
      }
      assert.equal(response.status, 200, `${path}: ${body}`);
      if (path.endsWith('/export')) assert.match(body, /1\. f3 e5 2\. g4 Qh4#/);
      else assert.ok(body.includes(game), body);
      served++;
    }
    assert.ok(served > 0 && refused > 0, `served ${served}, refused ${refused}`);
    // The WebSocket side is answered meanwhile, and reads are served again after the flood.
    await a.ok({ type: 'ping' });
    assert.equal((await fetch(`${flooded.http}/api/games/${game}/export`)).status, 200);
    // HEAD keeps its length and drops the body on the deferred path too.
    const head = await fetch(`${flooded.http}/api/games/${game}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.ok(Number(head.headers.get('content-length')) > 0);
    assert.equal(await head.text(), '');
    for (const c of [a, b]) await c.close();
  } finally {
    assert.equal((await flooded.stop()).code, 0);
  }
});

// README, --web-root: a folder that is not there is a warning (`web_root_missing`) and a server
// without the browser client; so is one that cannot be looked at, which used to end the process
// with an uncaught exception before it listened.
test('a --web-root that is missing or cannot be looked at is a warning, and the server runs without files', async () => {
  await inTempFolder(async (dir) => {
    const loop = path.join(dir, 'loop');
    symlinkSync(loop, loop);
    writeFileSync(path.join(dir, 'file'), 'not a folder');
    for (const [webRoot, error] of [
      [path.join(dir, 'missing'), 'No such file or directory'],
      [path.join(dir, 'file'), 'not a folder'],
      [loop, 'Too many levels of symbolic links'],
    ]) {
      const site = await startServer({ webRoot });
      try {
        const log = await site.waitForLog(/web_root_missing/);
        const line = log.split('\n').find((l) => l.includes('web_root_missing'));
        assert.ok(line, `no web_root_missing warning for ${webRoot}:\n${log}`);
        assert.ok(line.includes(error), line);
        assert.equal((await fetch(`${site.http}/`)).status, 404);
        assert.equal((await fetch(`${site.http}/healthz`)).status, 200);
      } finally {
        assert.equal((await site.stop()).code, 0);
      }
    }
  });
});

test('without --web-root no file is served, not even from the working directory', async () => {
  await inTempFolder(async (dir) => {
    writeFileSync(path.join(dir, 'notes.txt'), 'private');
    const bare = await startServer({ db: 'arbiter.db', cwd: dir, webRoot: null });
    try {
      for (const file of ['/arbiter.db', '/notes.txt', '/']) {
        const response = await fetch(`${bare.http}${file}`);
        assert.equal(response.status, 404, file);
        assert.ok(!(await response.text()).includes('private'), file);
      }
      // The API still answers.
      assert.equal((await fetch(`${bare.http}/healthz`)).status, 200);
    } finally {
      assert.equal((await bare.stop()).code, 0);
    }
  });
});
