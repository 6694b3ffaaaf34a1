// Logs: one structured line per event; with --log-format json every line is a JSON object with
// a time and a level; key events carry their fields; no token ever reaches the log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, startGame, play } from './harness.mjs';

// A name with quotes, a backslash, a newline and an escape sequence: it must not break a line.
const hostileName = 'Ana "the\nrook" \\ \u001b[31m';

async function playAGame(server) {
  const a = await Client.connect(server.url, hostileName);
  const b = await Client.connect(server.url, 'Bo');
  const started = await startGame(a, b, { variant: 'chess' });
  const { game } = started;
  const refused = await b.request({ type: 'move', game, move: 'e7e4', ply: 0 });
  assert.equal(refused.code, 'not_your_turn');
  await play(game, a, b, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  await a.nextOf('ended');
  // A seat resumed with its token: the token crosses the wire again, never the log.
  const again = await Client.connect(server.url);
  await again.ok({ type: 'resume', game, token: started.tokenA });
  for (const c of [a, b, again]) await c.close();
  return { game, tokens: [started.tokenA, started.tokenB] };
}

test('--log-format json: every line parses, key events have fields, no token leaks', async () => {
  const server = await startServer({ args: ['--log-format', 'json'], logLevel: 'debug' });
  const { game, tokens } = await playAGame(server);
  assert.equal((await server.stop()).code, 0);

  const text = server.stderr();
  const lines = text.split('\n').filter((line) => line !== '');
  const entries = lines.map((line) => {
    try {
      return JSON.parse(line);
    } catch (error) {
      throw new Error(`not a JSON line: ${line}`);
    }
  });
  for (const entry of entries) {
    assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(['trace', 'debug', 'info', 'warn', 'error'].includes(entry.level), entry.level);
    assert.ok(entry.event || entry.msg, JSON.stringify(entry));
  }
  const events = (name) => entries.filter((e) => e.event === name);
  assert.equal(events('server_started').length, 1);
  assert.equal(typeof events('server_started')[0].port, 'number');
  assert.ok(events('connection_opened').length >= 3);
  assert.ok(events('connection_opened').every((e) => e.address === '127.0.0.1' && e.peer > 0));
  assert.ok(events('connection_closed').length >= 3);
  const created = events('game_created').find((e) => e.game === game);
  assert.equal(created.variant, 'chess');
  const ended = events('game_ended').find((e) => e.game === game);
  assert.deepEqual([ended.result, ended.reason, ended.variant], ['0-1', 'checkmate', 'chess']);
  const refused = events('request_refused').find((e) => e.game === game);
  assert.deepEqual([refused.code, refused.request], ['not_your_turn', 'move']);
  assert.equal(events('server_stopping').length, 1);
  assert.equal(events('server_stopped').length, 1);

  for (const token of tokens) {
    assert.ok(token.length >= 16, 'a real token');
    assert.ok(!text.includes(token), 'a seat token reached the log');
  }
});

test('--log-format logfmt: time, level and event as key=value on one line each', async () => {
  const server = await startServer({ args: ['--log-format', 'logfmt'], logLevel: 'info' });
  const { tokens } = await playAGame(server);
  assert.equal((await server.stop()).code, 0);
  const lines = server.stderr().split('\n').filter((line) => line !== '');
  assert.ok(lines.length >= 8);
  for (const line of lines) {
    assert.match(line, /^time=\S+Z level=(trace|debug|info|warn|error) (event|msg)=/);
    // Outside quoted values, only key=value pairs separated by single spaces.
    const unquoted = line.replace(/"(?:[^"\\]|\\.)*"/g, 'Q');
    assert.match(unquoted, /^([a-z_]+=\S+)( [a-z_]+=\S+)*$/, line);
  }
  assert.ok(lines.some((l) => / event=game_ended .*result=0-1/.test(l)));
  for (const token of tokens) assert.ok(!server.stderr().includes(token));
});

test('an unknown --log-format is refused at start', async () => {
  await assert.rejects(startServer({ args: ['--log-format', 'xml'] }), /--log-format must be json, logfmt or text/);
});

// The terminal that ran the server closing (SIGHUP, as `make run` in an SSH session that drops)
// ended the process at once: exit 129, no server_stopped, players cut off without a close frame,
// the move journal not filed.
test(
  'SIGHUP stops the server as SIGTERM does: players told (1001), server_stopped logged, exit 0',
  async () => {
    const server = await startServer({ logLevel: 'info' });
    const a = await Client.connect(server.url, 'Ana');
    const b = await Client.connect(server.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'chess' });
    await play(game, a, b, ['e2e4', 'e7e5']);
    const exited = new Promise((resolve) => server.proc.on('exit', (code, signal) => resolve({ code, signal })));
    server.proc.kill('SIGHUP');
    const result = await exited;
    server.cleanup();
    assert.deepEqual(result, { code: 0, signal: null });
    assert.equal((await a.closedPromise).code, 1001);
    assert.match(server.stderr(), /server_stopped/);
  },
);
