// Engine analysis of finished games (issue 42): a blunder in a short chess game is `??` and the
// mate after it is reported as a mate (Stockfish); a mate in 2 through /api/explore/eval; the
// stored analysis survives a restart and a second request runs no engine; a full queue is 503
// with Retry-After; xiangqi (Fairy-Stockfish) and draughts (builtin) blunders are marked.
// Engine settings are small (few nodes) so that the suite is quick on two busy cores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, httpCall, play, repoRoot, startGame, startServer } from './harness.mjs';
import { scrape, metric } from './prometheus.mjs';

const stockfish = '/usr/games/stockfish';
const fairy = '/usr/games/fairy-stockfish';
const haveEngines = existsSync(stockfish) && existsSync(fairy);
const engineArgs = ['--engine', `stockfish=${stockfish}`, '--engine', `fairy-stockfish=${fairy}`];

/** Plays `moves` in a new game of `create`, then ends it (resign by the side to move unless the
 * moves ended it); returns the game id. */
async function finishedGame(server, create, moves, { resign = true } = {}) {
  const a = await Client.connect(server.url, 'Ann');
  const b = await Client.connect(server.url, 'Bob');
  try {
    const { game } = await startGame(a, b, create);
    await play(game, a, b, moves);
    if (resign) {
      const mover = moves.length % 2 === 0 ? a : b;
      const ended = await mover.ok({ type: 'resign', game });
      assert.equal(ended.type, 'ended');
    }
    return game;
  } finally {
    a.close();
    b.close();
  }
}

/** Requests the analysis of `game` and polls until it is done (or failed); returns it. */
async function analysed(server, game, timeoutMs = 60000) {
  const started = await httpCall(server, 'POST', `/api/games/${game}/analysis`);
  assert.ok([200, 202].includes(started.status), `${started.status} ${started.text}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await httpCall(server, 'GET', `/api/games/${game}/analysis`);
    assert.equal(got.status, 200, got.text);
    if (got.json.status === 'done' || got.json.status === 'failed') return got.json;
    assert.ok(Date.now() < deadline, `analysis not done in time: ${got.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const searches = async (server) => metric(await scrape(server.http), 'arbiter_analysis_searches_total');

test('chess: the blunder is ??, the mate is reported, kept over a restart, analysed once', { skip: !haveEngines }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-analysis-'));
  const db = path.join(dir, 'arbiter.db');
  const args = [...engineArgs, '--analysis-nodes', '20000'];
  try {
    let server = await startServer({ args, db });
    // 1.e4 e5 2.Qh5 Nc6 3.Bc4 Nf6?? 4.Qxf7#
    const game = await finishedGame(server, { variant: 'chess' },
      ['e2e4', 'e7e5', 'd1h5', 'b8c6', 'f1c4', 'g8f6', 'h5f7'], { resign: false });
    const refused = await httpCall(server, 'GET', `/api/games/${game}/analysis`);
    assert.equal(refused.status, 404);
    assert.equal(refused.json.error, 'no_analysis');
    const analysis = await analysed(server, game);
    assert.equal(analysis.status, 'done');
    assert.equal(analysis.engine, 'stockfish');
    assert.equal(analysis.total, 8);
    assert.equal(analysis.plies.length, 8);
    assert.equal(analysis.plies[6].mark, '??', JSON.stringify(analysis.plies[6]));
    assert.deepEqual(analysis.plies[6].eval, { mate: 1 });
    assert.equal(analysis.plies[6].best, 'h5f7');
    assert.equal(analysis.plies[7].eval, null, 'the mated position has no number');
    assert.equal(analysis.plies[7].best, null);
    assert.ok(analysis.accuracy.white > analysis.accuracy.black, JSON.stringify(analysis.accuracy));
    assert.equal(analysis.counts.black.blunder, 1);
    const export_ = await httpCall(server, 'GET', `/api/games/${game}/export`);
    assert.match(export_.text, /\[%eval #1\]/);

    const before = await searches(server);
    assert.ok(before >= 7, `searches ${before}`);
    const again = await httpCall(server, 'POST', `/api/games/${game}/analysis`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, analysis);
    assert.equal(await searches(server), before, 'a second request runs no engine');

    assert.equal((await server.stop()).code, 0);
    server = await startServer({ args, db });
    const kept = await httpCall(server, 'GET', `/api/games/${game}/analysis`);
    assert.equal(kept.status, 200);
    assert.deepEqual(kept.json, analysis);
    const third = await httpCall(server, 'POST', `/api/games/${game}/analysis`);
    assert.equal(third.status, 200);
    assert.equal(await searches(server), 0, 'nothing analysed again after the restart');
    assert.equal((await server.stop()).code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('refusals: unknown game, unfinished game, a full queue, a bad position', { skip: !haveEngines }, async () => {
  const server = await startServer({
    args: [...engineArgs, '--analysis-nodes', '0', '--analysis-movetime-ms', '300',
      '--max-analysis-queue', '1'],
  });
  try {
    const unknown = await httpCall(server, 'POST', '/api/games/nosuchgame/analysis');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error, 'unknown_game');
    const a = await Client.connect(server.url, 'Ann');
    const b = await Client.connect(server.url, 'Bob');
    const { game: playing } = await startGame(a, b, { variant: 'chess' });
    const unfinished = await httpCall(server, 'POST', `/api/games/${playing}/analysis`);
    assert.equal(unfinished.status, 409);
    assert.equal(unfinished.json.error, 'not_finished');
    a.close();
    b.close();

    const games = [];
    for (let i = 0; i < 3; i++) games.push(await finishedGame(server, { variant: 'chess' }, ['e2e4', 'e7e5', 'g1f3']));
    const first = await httpCall(server, 'POST', `/api/games/${games[0]}/analysis`);
    assert.equal(first.status, 202);
    assert.equal(first.json.status, 'queued');
    await new Promise((resolve) => setTimeout(resolve, 200)); // the first one starts running
    const second = await httpCall(server, 'POST', `/api/games/${games[1]}/analysis`);
    assert.equal(second.status, 202);
    const third = await httpCall(server, 'POST', `/api/games/${games[2]}/analysis`);
    assert.equal(third.status, 503, third.text);
    assert.equal(third.json.error, 'busy');
    assert.ok(third.json.retry_after_s >= 1);
    assert.equal(third.headers.get('retry-after'), String(third.json.retry_after_s));

    const bad = await httpCall(server, 'GET', '/api/explore/eval?variant=chess&position=nonsense');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 'bad_position');
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('explore/eval: a mate in 2 is reported as a mate', { skip: !haveEngines }, async () => {
  const server = await startServer({ args: [...engineArgs, '--analysis-nodes', '50000'] });
  try {
    const position = encodeURIComponent('7k/8/8/8/8/8/R7/1R4K1 w - - 0 1');
    const got = await httpCall(server, 'GET', `/api/explore/eval?variant=chess&position=${position}`);
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.json.eval, { mate: 2 });
    assert.equal(got.json.engine, 'stockfish');
    assert.ok(got.json.pv.length >= 3, JSON.stringify(got.json));
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('xiangqi (Fairy-Stockfish): a chariot left en prise is marked', { skip: !haveEngines }, async () => {
  const server = await startServer({ args: [...engineArgs, '--analysis-nodes', '20000'] });
  try {
    // Red's chariot a1-a2-b2 stands in front of its cannon, on the file of black's cannon b8.
    const game = await finishedGame(server, { variant: 'xiangqi' }, ['a1a2', 'a7a6', 'a2b2', 'b8b2']);
    const analysis = await analysed(server, game);
    assert.equal(analysis.engine, 'fairy-stockfish');
    assert.ok(['?', '??'].includes(analysis.plies[3].mark), JSON.stringify(analysis.plies[3]));
    assert.ok(analysis.counts.red.blunder + analysis.counts.red.mistake >= 1);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('draughts (builtin): a piece left en prise is marked', async () => {
  const server = await startServer({ args: ['--analysis-nodes', '20000'] });
  try {
    const game = await finishedGame(server, { variant: 'draughts', position: 'W:W22,29,30:B11,15' }, ['22-18']);
    const analysis = await analysed(server, game);
    assert.equal(analysis.engine, 'builtin');
    assert.ok(['?', '??'].includes(analysis.plies[1].mark), JSON.stringify(analysis.plies));
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('progress: whoever replayed the game hears of its analysis, a few times a second and at the end', async () => {
  // Each position takes 150 ms: seven positions run over a second, long enough for the throttle.
  const server = await startServer({ args: ['--analysis-nodes', '0', '--analysis-movetime-ms', '150'] });
  try {
    const game = await finishedGame(server, { variant: 'draughts' },
      ['21-17', '12-16', '25-21', '8-12', '29-25', '4-8']);
    const viewer = await Client.connect(server.url, 'Vi');
    const other = await Client.connect(server.url, 'Ot');
    const record = await viewer.ok({ type: 'replay', game });
    assert.equal(record.type, 'record');
    const started = Date.now();
    const post = await httpCall(server, 'POST', `/api/games/${game}/analysis`);
    assert.equal(post.status, 202, post.text);
    const last = await viewer.nextOf('analysis', (m) => m.status === 'done', 60000);
    const seconds = (Date.now() - started) / 1000;
    assert.deepEqual(last, { type: 'analysis', game, status: 'done', done: 7, total: 7 });
    const progress = viewer.messages.filter((m) => m.type === 'analysis');
    assert.equal(progress[0].status, 'queued');
    assert.ok(progress.some((m) => m.status === 'running' && m.done > 0 && m.done < 7),
      JSON.stringify(progress));
    // queued, running and done, and at most four a second between them.
    assert.ok(progress.length <= 3 + Math.ceil(seconds * 4), `${progress.length} in ${seconds} s`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i].done >= progress[i - 1].done);
    const analysis = await httpCall(server, 'GET', `/api/games/${game}/analysis`);
    assert.equal(analysis.json.status, 'done');
    // A connection that did not ask for the replay hears nothing of it.
    await other.ok({ type: 'ping' });
    assert.equal(other.messages.filter((m) => m.type === 'analysis').length, 0);
    viewer.close();
    other.close();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a failed analysis is tried again by a new request', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbiter-analysis-'));
  const db = path.join(dir, 'arbiter.db');
  // A "stockfish" that exits when asked to search: every position fails, so the analysis fails.
  const crashing = path.join(dir, 'crash.sh');
  writeFileSync(crashing, `#!/bin/sh\nexec python3 ${path.join(repoRoot, 'tests/integration/server/fake_uci.py')} crash\n`);
  chmodSync(crashing, 0o755);
  try {
    let server = await startServer({ args: ['--engine', `stockfish=${crashing}`, '--analysis-nodes', '2000'], db });
    const game = await finishedGame(server, { variant: 'chess' }, ['e2e4', 'e7e5']);
    const failed = await analysed(server, game);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.engine, 'stockfish');
    const again = await httpCall(server, 'POST', `/api/games/${game}/analysis`);
    assert.equal(again.status, 202, 'a failed analysis is queued again');
    assert.equal(again.json.status, 'queued');
    assert.equal((await analysed(server, game)).status, 'failed', 'the engine still crashes');
    assert.equal((await server.stop()).code, 0);

    // Without that engine the builtin one analyses chess: the stored failure is retried.
    server = await startServer({ args: ['--analysis-nodes', '2000'], db });
    try {
      const stored = await httpCall(server, 'GET', `/api/games/${game}/analysis`);
      assert.equal(stored.json.status, 'failed');
      const retried = await analysed(server, game);
      assert.equal(retried.status, 'done', JSON.stringify(retried));
      assert.equal(retried.engine, 'builtin');
      assert.equal(retried.plies.length, 3);
      const done = await httpCall(server, 'POST', `/api/games/${game}/analysis`);
      assert.equal(done.status, 200, 'a done analysis is not run again');
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
