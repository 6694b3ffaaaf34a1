// --backup FILE while a server plays on the same database: SQLite's online backup gives a
// consistent copy that opens (in a second server) with the game in progress.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, serverBinary, Client, startGame, play } from './harness.mjs';

function backup(database, target) {
  return spawnSync(serverBinary, ['--db', database, '--backup', target, '--log-format', 'json'], {
    encoding: 'utf8',
    timeout: 60000,
  });
}

test('a backup taken during a game opens and holds the game', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-backup-'));
  const live = await startServer();
  let copy = null;
  try {
    const a = await Client.connect(live.url, 'Ana');
    const b = await Client.connect(live.url, 'Bo');
    const { game } = await startGame(a, b, { variant: 'xiangqi' });
    await play(game, a, b, ['h3e3', 'h10g8']);

    const target = path.join(dir, 'copy.db');
    const result = backup(live.database, target);
    assert.equal(result.status, 0, result.stderr);
    const logged = result.stderr.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    assert.ok(logged.some((e) => e.event === 'backup_written' && e.to === target));
    assert.ok(!existsSync(`${target}.partial`), 'no partial file is left behind');

    // The live server goes on after the copy; the copy holds the game as it was.
    await play(game, a, b, ['b1c3'], 2);
    copy = await startServer({ db: target });
    const record = await (await fetch(`${copy.http}/api/games/${game}`)).json();
    assert.equal(record.status, 'playing');
    assert.deepEqual(record.moves.map((m) => m.move), ['h3e3', 'h10g8']);
    // The copy is a working database, not only a readable one.
    const health = await fetch(`${copy.http}/healthz`);
    assert.equal(health.status, 200);
    for (const c of [a, b]) await c.close();
  } finally {
    if (copy) assert.equal((await copy.stop()).code, 0);
    assert.equal((await live.stop()).code, 0);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a backup to a folder that does not exist fails with a message and exit 1', async () => {
  const live = await startServer();
  try {
    const result = backup(live.database, '/nonexistent-dir/copy.db');
    assert.equal(result.status, 1);
    const logged = result.stderr.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const failed = logged.find((e) => e.event === 'backup_failed');
    assert.ok(failed && failed.error.length > 0, result.stderr);
  } finally {
    assert.equal((await live.stop()).code, 0);
  }
});
