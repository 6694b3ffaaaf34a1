// Engine think times per level and time control (issue 39: "engines on the clock"). Starts an
// arbiter-server with Stockfish and Fairy-Stockfish, and for each engine, level and time control
// plays a few moves against the engine (a person's side answering at once with a random legal
// move), timing each engine move from the `moved` of the person's move to the engine's `moved`.
// Prints min / median / max think seconds per (engine, level, time control) over the engine's
// timed moves, the think budget that applied (server/engine/think_budget.*: the level's limit,
// capped from the clock) and the moves over it, and apart the engine's first move: untimed (each
// side's first move is), it is also the one that waits for a UCI engine's process to start and
// answer its handshake, which no budget covers. See README.md.
//
//   (cd tests/integration/server && npm ci)   # the ws client and the harness this script uses
//   nice -n 19 node bench/engines/think_times.mjs [--server PATH] [--moves 5] [--levels 1-8]
//        [--tcs 1+0,3+2,15+10] [--engines builtin:chess,stockfish:chess,fairy-stockfish:xiangqi]
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}
const serverPath = option('server', process.env.ARBITER_SERVER ?? path.join(repoRoot, 'build/debug-asan/bin/arbiter-server'));
process.env.ARBITER_SERVER = serverPath; // the harness starts this binary
const movesPerGame = Number(option('moves', '5')); // the first is untimed
const [firstLevel, lastLevel] = option('levels', '1-8').split('-').map(Number);
const levels = Array.from({ length: (lastLevel ?? firstLevel) - firstLevel + 1 }, (_, i) => firstLevel + i);
const timeControls = option('tcs', '1+0,3+2,15+10').split(',').map((tc) => {
  const [minutes, seconds] = tc.split('+').map(Number);
  return { name: tc, initial_ms: minutes * 60000, increment_ms: seconds * 1000 };
});
const engines = option('engines', 'builtin:chess,stockfish:chess,fairy-stockfish:xiangqi')
  .split(',')
  .map((entry) => {
    const [engine, variant] = entry.split(':');
    return { engine, variant };
  });

const { Client, startServer } = await import(path.join(repoRoot, 'tests/integration/server/harness.mjs'));

// The levels' own limits, in ms (protocol.md, Playing the computer; server/engine/uci.cpp and
// common/engine/builtin.cpp).
const LEVEL_LIMIT_MS = {
  uci: [50, 100, 200, 300, 500, 800, 1200, 2000],
  builtin: [0, 100, 250, 500, 1000, 1500, 2500, 5000],
};

/** server/engine/think_budget.cpp, for the table: the level's limit capped from the clock. */
function thinkBudgetMs(levelLimitMs, remainingMs, incrementMs) {
  if (remainingMs === null) return levelLimitMs;
  const fromClock = Math.min(Math.floor(remainingMs / 30) + Math.floor(incrementMs / 2), Math.floor(remainingMs / 2));
  return Math.max(Math.min(20, levelLimitMs), Math.min(fromClock, levelLimitMs));
}

// What a move may take past its budget and still count as within it: the server's bookkeeping
// and the two messages around the engine's think (measured on this machine's loopback).
const SLACK_MS = 250;

async function playAgainst(client, { engine, variant }, level, tc) {
  const created = await client.ok({
    type: 'create',
    variant,
    side: 'first',
    clock: { initial_ms: tc.initial_ms, increment_ms: tc.increment_ms },
    opponent: { engine, level },
  });
  const game = created.game;
  const state = await client.nextOf('state', (m) => m.game === game && m.status === 'playing', 30000);
  const engineSide = Object.keys(state.players).find((seat) => seat !== created.seat);
  let legal = state.legal;
  let ply = state.ply;
  const thinks = [];
  for (let i = 0; i < movesPerGame && legal.length > 0; i++) {
    const move = legal[Math.floor(Math.random() * legal.length)];
    const mine = await client.ok({ type: 'move', game, move, ply }, 30000);
    const sentAt = performance.now();
    if (mine.type !== 'moved' || mine.legal.length === 0) break;
    // The engine's clock before its move: running once both sides have moved (the first move
    // of each side is untimed, and the budget is then the level's limit).
    const remaining = mine.clock?.running ? mine.clock[`${engineSide}_ms`] : null;
    const reply = await client.next(
      (m) => m.game === game && ((m.type === 'moved' && m.ply === ply + 2) || m.type === 'ended'),
      30000,
    );
    if (reply.type === 'ended') break;
    const thinkMs = performance.now() - sentAt;
    thinks.push({ thinkMs, remaining });
    legal = reply.legal;
    ply = reply.ply;
  }
  await client.request({ type: 'resign', game });
  return thinks;
}

const median = (sorted) => sorted[Math.floor(sorted.length / 2)];

const args = ['--max-creates-per-minute', '100000', '--max-open-games', '64'];
for (const [name, binary] of [['stockfish', '/usr/games/stockfish'], ['fairy-stockfish', '/usr/games/fairy-stockfish']]) {
  if (engines.some((e) => e.engine === name)) {
    if (!existsSync(binary)) throw new Error(`${binary} is missing`);
    args.push('--engine', `${name}=${binary}`);
  }
}
const server = await startServer({ args, logLevel: 'error' });
const rows = [];
try {
  const client = await Client.connect(server.url, 'Bench');
  for (const entry of engines) {
    const limits = entry.engine === 'builtin' ? LEVEL_LIMIT_MS.builtin : LEVEL_LIMIT_MS.uci;
    for (const level of levels) {
      for (const tc of timeControls) {
        const played = await playAgainst(client, entry, level, tc);
        const first = played.find((t) => t.remaining === null);
        const thinks = played.filter((t) => t.remaining !== null);
        const seconds = thinks.map((t) => t.thinkMs / 1000).sort((a, b) => a - b);
        // The budget of the timed moves: the level's limit, or less when the clock caps it.
        const budgets = thinks.map((t) => thinkBudgetMs(limits[level - 1], t.remaining, tc.increment_ms));
        const over = thinks.filter((t, i) => t.thinkMs > budgets[i] + SLACK_MS).length;
        const row = {
          engine: `${entry.engine} (${entry.variant})`,
          level,
          tc: tc.name,
          n: thinks.length,
          min: seconds[0],
          median: median(seconds),
          max: seconds.at(-1),
          budget: Math.max(...budgets) / 1000,
          over,
          first: first ? first.thinkMs / 1000 : NaN,
        };
        rows.push(row);
        process.stderr.write(`${row.engine} L${level} ${tc.name}: ${row.first.toFixed(2)} | ${seconds.map((s) => s.toFixed(2)).join(' ')}\n`);
      }
    }
  }
  await client.close();
} finally {
  await server.stop();
}

console.log(`engine think times (s), server ${serverPath}`);
console.log('| engine | level | tc | first move (untimed) | timed moves | min | median | max | budget | over budget |');
console.log('| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(
    `| ${r.engine} | ${r.level} | ${r.tc} | ${r.first.toFixed(2)} | ${r.n} | ${r.min.toFixed(2)} | ${r.median.toFixed(2)} | ${r.max.toFixed(2)} | ${r.budget.toFixed(2)} | ${r.over} |`,
  );
}
const broken = rows.filter((r) => r.over > 0 || (r.level <= 3 && r.max > 2));
if (broken.length > 0) {
  console.log(`\n${broken.length} cells over budget (or levels 1-3 over 2 s)`);
  process.exitCode = 1;
}
