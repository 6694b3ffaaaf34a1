// One cluster test run (issue 43): start the rig, open games through nginx (2 players and some
// spectators each, all resilient clients), let them play, break something (the scenario's
// `disrupt`), let every game play on to a result, then check what the clients saw against what
// PostgreSQL holds. Prints the figures and `N passed, N failed`; any failed check fails the test.
import { writeFileSync } from 'node:fs';
import { startCluster, sleep } from './harness.mjs';
import { Journal, ResilientClient } from './resilient.mjs';

/** Named checks: each passes or fails with a detail; the summary says how many of each. */
export class Checks {
  constructor(name) {
    this.name = name;
    this.results = [];
  }

  check(what, ok, detail = '') {
    this.results.push({ what, ok: Boolean(ok), detail });
    return ok;
  }

  failed() {
    return this.results.filter((r) => !r.ok);
  }

  summary() {
    const failed = this.failed();
    const lines = this.results.map((r) => `  ${r.ok ? 'ok  ' : 'FAIL'} ${r.what}${r.detail ? `: ${r.detail}` : ''}`);
    return `${lines.join('\n')}\n${this.name}: ${this.results.length - failed.length} passed, ${failed.length} failed`;
  }
}

const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

export const figures = { percentile };

/** Samples every game's owner and epoch from PostgreSQL every `everyMs` (quietly while it is
 * down): the run checks that epochs never go down and measures failovers with it. */
function ownershipSampler(rig, everyMs = 200) {
  const series = new Map(); // game -> [{at, owner, epoch, status}]
  let busy = false;
  let failures = 0;
  const sample = async () => {
    if (busy) return;
    busy = true;
    try {
      const at = Date.now();
      const rows = await rig.sql('SELECT id, coalesce(owner_node, \'\'), owner_epoch, status FROM games', 3000);
      for (const [game, owner, epoch, status] of rows) {
        if (!series.has(game)) series.set(game, []);
        series.get(game).push({ at, owner, epoch: Number(epoch), status });
      }
    } catch {
      failures++;
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(sample, everyMs);
  return {
    series,
    sample,
    failures: () => failures,
    stop: () => clearInterval(timer),
    /** The latest sample of each game: {owner, epoch, status}. */
    latest() {
      const now = new Map();
      for (const [game, points] of series) now.set(game, points.at(-1));
      return now;
    },
  };
}

/**
 * Runs one scenario. `disrupt(ctx)` breaks something and checks its own promises (ctx.checks);
 * it returns figures to print. Options: `games`, `spectators` per game, `nodes`, `cluster` (false:
 * one ordinary server on PostgreSQL), `minPlies` (a game's plies before it may end),
 * `closeCodes` (the close codes the clients may see), `thinkMs`.
 */
export async function runScenario({
  name,
  games: gameCount = Number(process.env.ARBITER_CLUSTER_GAMES ?? 12),
  spectators = 3,
  nodes = 3,
  cluster = true,
  minPlies = 24,
  warmPlies = 6,
  thinkMs = 100,
  closeCodes = [1006, 1012, 'silent', 'timeout'],
  clusterOptions = {},
  disrupt,
}) {
  const checks = new Checks(name);
  const journal = new Journal();
  const began = Date.now();
  const rig = await startCluster({ nodes, cluster, ...clusterOptions });
  const sampler = ownershipSampler(rig);
  const clients = [];
  const games = []; // {id, players: [a, b], spectators: [...]}
  let released = false;
  const out = {};
  try {
    const common = {
      url: rig.url,
      journal,
      nodeAt: (address) => rig.nodeAt(address),
      thinkMs,
      mayFinish: (ply) => released && ply >= minPlies,
    };
    const setupStarted = Date.now();
    const openGame = async (i) => {
      const a = new ResilientClient({ ...common, name: `g${i}a`, role: 'player' });
      const b = new ResilientClient({ ...common, name: `g${i}b`, role: 'player' });
      clients.push(a, b);
      await a.open({ type: 'create', variant: 'chess', side: 'first' });
      await b.open({ type: 'join', game: a.game });
      const watchers = [];
      for (let s = 0; s < spectators; s++) {
        const w = new ResilientClient({ ...common, name: `g${i}s${s}`, role: 'spectator' });
        w.game = a.game;
        clients.push(w);
        watchers.push(w);
      }
      await Promise.all(watchers.map((w) => w.open({ type: 'watch', game: a.game })));
      games.push({ id: a.game, players: [a, b], spectators: watchers });
    };
    // Four games at a time: the creates spread over the nodes as nginx's least_conn sends them.
    for (let i = 0; i < gameCount; i += 4) {
      await Promise.all(Array.from({ length: Math.min(4, gameCount - i) }, (_, k) => openGame(i + k)));
    }
    out.setupMs = Date.now() - setupStarted;
    await waitFor(() => games.every((g) => g.players[0].view.ply >= warmPlies), 60000, 'every game under way');
    await sampler.sample();

    const ctx = {
      rig,
      checks,
      journal,
      games,
      clients,
      sampler,
      /** Our games' owners now, from PostgreSQL: Map game -> {owner, epoch, status}. */
      async owners() {
        const rows = await rig.sql(`SELECT id, coalesce(owner_node, ''), owner_epoch, status FROM games`);
        return new Map(rows.map(([id, owner, epoch, status]) => [id, { owner, epoch: Number(epoch), status }]));
      },
      /** The node that owns the most of our games that are in play. */
      async busiestOwner() {
        const counts = new Map();
        for (const [, o] of await ctx.owners()) {
          if (o.status === 'playing' && o.owner) counts.set(o.owner, (counts.get(o.owner) ?? 0) + 1);
        }
        const [best] = [...counts].sort((x, y) => y[1] - x[1]);
        if (!best) throw new Error('no game has an owner');
        return best[0];
      },
      /** Resolves, with the ms it took from `since`, once every game of `ids` has an owner other
       * than `old` in PostgreSQL (polled every 100 ms); null after `ms`. */
      async waitForNewOwners(ids, old, since, ms = 20000) {
        const deadline = since + ms;
        while (Date.now() < deadline) {
          try {
            const now = await ctx.owners();
            if (ids.every((id) => now.get(id)?.owner && now.get(id).owner !== old)) return Date.now() - since;
          } catch {
            // PostgreSQL away: ask again
          }
          await sleep(100);
        }
        return null;
      },
      /** Waits until every client is in its game again and every drop since `since` is resumed;
       * returns the ms from `since` to the last resume (0 when no client dropped), or null. */
      async waitForResumed(since, ms = 30000) {
        const settled = () => clients.every((c) => c.ready && c.drops.every((d) => d.resumedAt !== null));
        await waitFor(settled, ms, 'every client back in its game').catch(() => null);
        if (!settled()) return null;
        const back = clients.flatMap((c) => c.drops.filter((d) => d.at >= since).map((d) => d.resumedAt - since));
        return back.length === 0 ? 0 : Math.max(...back);
      },
      /** Drops since `since`: [{client, game, code, node, at, resumedAt}]. */
      dropsSince(since) {
        return clients.flatMap((c) => c.drops.filter((d) => d.at >= since).map((d) => ({ client: c, game: c.game, ...d })));
      },
      /** Waits until every game is at least `plies` further on than now. */
      async playOn(plies, ms = 60000) {
        const target = new Map(games.map((g) => [g.id, g.players[0].view.ply + plies]));
        await waitFor(() => games.every((g) => g.players[0].view.status !== 'playing' ||
          g.players[0].view.ply >= target.get(g.id)), ms, `every game ${plies} plies further`,
        () => journal.lines.length, 15000);
      },
    };

    out.disrupted = (await disrupt(ctx)) ?? {};
    released = true;
    for (const c of clients) c.maybeMove();
    const endWait = Date.now();
    await waitFor(() => clients.every((c) => c.done()), 120000, 'every game ended, seen by all its clients',
      () => journal.lines.length, 15000)
      .catch((error) => checks.check('every game ends and every client sees its end', false, error.message));
    out.endMs = Date.now() - endWait;
    await sleep(300); // the last events reach the slowest spectator
    await sampler.sample();
    await finalChecks(rig, checks, journal, games, clients, sampler, closeCodes);
  } catch (error) {
    checks.check('the scenario ran to its end', false, error.stack);
  } finally {
    sampler.stop();
    await Promise.all(clients.map((c) => c.close()));
    // A clean stop is part of the contract (and where ASan reports what it found).
    const exits = await rig.stopNodes();
    const unclean = exits.filter((e) => e.code !== 0);
    checks.check('every node still running at the end exits 0 on SIGTERM', unclean.length === 0,
      unclean.map((e) => JSON.stringify(e)).join(' '));
    if (checks.failed().length > 0) {
      console.error(rig.logs().slice(-20000));
      console.error(`nginx:\n${rig.nginx?.log().slice(-3000)}`);
    }
    if (process.env.ARBITER_CLUSTER_JOURNAL) {
      writeFileSync(`${process.env.ARBITER_CLUSTER_JOURNAL}.${name.replace(/\W+/g, '_')}.jsonl`,
        `${journal.lines.join('\n')}\n`);
      writeFileSync(`${process.env.ARBITER_CLUSTER_JOURNAL}.${name.replace(/\W+/g, '_')}.logs`, rig.logs());
    }
    await rig.close();
  }
  const moves = journal.acks.length;
  const report = {
    scenario: name,
    games: games.length,
    clients: clients.length,
    acks: moves,
    events: journal.events,
    refused: journal.refusals.length,
    drops: clients.reduce((n, c) => n + c.drops.length, 0),
    seconds: Math.round((Date.now() - began) / 100) / 10,
    ...out,
  };
  // One line for scripts/cluster-soak.sh to gather.
  console.log(`cluster-figures ${JSON.stringify({ ...report, passed: checks.results.length - checks.failed().length, failed: checks.failed().length })}`);
  console.log(checks.summary());
  return { checks, report };
}

/** Polls `condition` every 50 ms until it holds; rejects after `ms` with `what`, or sooner when
 * `progress()` (a count of what happens) stays the same for `stallMs`: a run that stopped. */
export async function waitFor(condition, ms, what, progress = null, stallMs = Infinity) {
  const deadline = Date.now() + ms;
  let seen = progress?.();
  let movedAt = Date.now();
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    if (progress) {
      const now = progress();
      if (now !== seen) [seen, movedAt] = [now, Date.now()];
      if (Date.now() - movedAt > stallMs) {
        throw new Error(`nothing happened for ${stallMs} ms (no ack, event or reconnection): ${what}`);
      }
    }
    await sleep(50);
  }
}

async function finalChecks(rig, checks, journal, games, clients, sampler, closeCodes) {
  const violations = journal.violations;
  checks.check('no client saw a seq gap, a duplicate seq, a seq going back or another breach', violations.length === 0,
    violations.slice(0, 10).map((v) => `${v.client} (${v.game}): ${v.what}`).join('; '));
  const unresumed = clients.filter((c) => c.drops.some((d) => d.resumedAt === null)).map((c) => c.name);
  checks.check('every client that lost its connection came back', unresumed.length === 0, unresumed.join(' '));
  const badCodes = clients.flatMap((c) => c.drops.filter((d) => !closeCodes.includes(d.code))
    .map((d) => `${c.name}@${d.node}: ${d.code}`));
  checks.check(`connections ended only with ${closeCodes.join('/')}`, badCodes.length === 0, badCodes.join(' '));

  const ids = games.map((g) => `'${g.id}'`).join(',');
  const stored = await rig.sql(`SELECT game_id, ply, move, seq FROM moves WHERE game_id IN (${ids})`);
  const byKey = new Map(stored.map(([game, ply, move, seq]) => [`${game}/${ply}`, { move, seq: Number(seq) }]));
  const lost = journal.acks.filter((a) => {
    const row = byKey.get(`${a.game}/${a.ply}`);
    return !row || row.move !== a.move || row.seq !== a.seq;
  });
  checks.check(`every acknowledged move is stored with its seq (${journal.acks.length} acks)`, lost.length === 0,
    lost.slice(0, 5).map((a) => `${a.client} ${a.game} ply ${a.ply} ${a.move} seq ${a.seq}: stored ` +
      JSON.stringify(byKey.get(`${a.game}/${a.ply}`) ?? null)).join('; '));

  const twice = await rig.sql(
    `SELECT game_id, ply, count(*) FROM moves WHERE game_id IN (${ids}) GROUP BY game_id, ply HAVING count(*) > 1`);
  checks.check('no ply stored twice', twice.length === 0, twice.length ? JSON.stringify(twice.slice(0, 5)) : '');

  const rows = await rig.sql(
    `SELECT g.id, g.status, g.result, g.seq, g.ply, count(m.ply), coalesce(max(m.ply), 0)
       FROM games g LEFT JOIN moves m ON m.game_id = g.id WHERE g.id IN (${ids})
       GROUP BY g.id, g.status, g.result, g.seq, g.ply`);
  const gameRows = new Map(rows.map(([id, status, result, seq, ply, count, max]) =>
    [id, { status, result, seq: Number(seq), ply: Number(ply), count: Number(count), max: Number(max) }]));
  const unfinished = games.filter((g) => gameRows.get(g.id)?.status !== 'ended' || !gameRows.get(g.id)?.result);
  checks.check('every game reached a result', unfinished.length === 0,
    unfinished.map((g) => `${g.id}: ${JSON.stringify(gameRows.get(g.id))}`).join('; '));
  const holes = games.filter((g) => {
    const r = gameRows.get(g.id);
    return !r || r.count !== r.ply || r.max !== r.ply;
  });
  checks.check('each game stores plies 1..N once each, N its ply count', holes.length === 0,
    holes.map((g) => `${g.id}: ${JSON.stringify(gameRows.get(g.id))}`).join('; '));
  const behind = clients.filter((c) => c.lastSeq !== gameRows.get(c.game)?.seq)
    .map((c) => `${c.name} at seq ${c.lastSeq}, stored ${gameRows.get(c.game)?.seq}`);
  checks.check('every client ends at the game\'s stored seq', behind.length === 0, behind.slice(0, 8).join('; '));

  const backwards = [];
  let ownerChanges = 0;
  for (const g of games) {
    const points = sampler.series.get(g.id) ?? [];
    for (let i = 1; i < points.length; i++) {
      const [was, now] = [points[i - 1], points[i]];
      if (now.epoch < was.epoch) backwards.push(`${g.id}: epoch ${was.epoch} then ${now.epoch}`);
      if (now.owner !== was.owner) {
        ownerChanges++;
        if (now.epoch <= was.epoch && now.owner) {
          backwards.push(`${g.id}: owner ${was.owner} -> ${now.owner} with epoch ${was.epoch} -> ${now.epoch}`);
        }
      }
    }
  }
  checks.check(`epochs never decrease, and a new owner has a higher one (${ownerChanges} owner changes sampled)`,
    backwards.length === 0, backwards.slice(0, 5).join('; '));
}
