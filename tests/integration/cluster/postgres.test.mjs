// Issue 43, cluster test 5: PostgreSQL restarts mid-game (a fast shutdown, 3 s down, then started
// again on its port with its data). While it is down a move is refused (`unavailable`), never
// acknowledged: a move sent while the database was down and then acknowledged is a failure. Once
// it is back, play resumes: every client back in its game, every game on to a result, every
// acknowledged move stored once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverHasClusterFlags, sleep } from './harness.mjs';
import { runScenario } from './scenario.mjs';

test('PostgreSQL restart: moves refused while it is down, play resumes after', async () => {
  assert.ok(serverHasClusterFlags(), 'this arbiter-server has no --node-id/--bus: it cannot run as a cluster node');
  const { checks } = await runScenario({
    name: 'PostgreSQL restart',
    async disrupt(ctx) {
      const stoppingAt = Date.now();
      await ctx.rig.postgresDown();
      const downAt = Date.now();
      await sleep(3000);
      const upFrom = Date.now();
      await ctx.rig.postgresUp();
      const upAt = Date.now();
      // Sent once it was down and before it was started again: nothing may be acknowledged.
      const ackedWhileDown = ctx.journal.acks.filter((a) => a.sentAt >= downAt && a.sentAt < upFrom);
      ctx.checks.check('no move sent while PostgreSQL was down was acknowledged', ackedWhileDown.length === 0,
        ackedWhileDown.slice(0, 5).map((a) => `${a.client} ply ${a.ply} sent +${a.sentAt - downAt} ms, acked +${a.at - downAt} ms`).join('; '));
      const refused = ctx.journal.refusals.filter((r) => r.at >= stoppingAt && r.at <= upAt + 1000);
      const codes = [...new Set(refused.map((r) => `${r.what}:${r.code}`))];
      ctx.checks.check('what was refused while it was down was refused as unavailable',
        refused.every((r) => r.code === 'unavailable'), codes.join(' '));
      // The nodes find their leases expired once the database is back, and their clients are
      // closed (1012) only then: the games must move again before the resumes can be counted.
      const acksBefore = ctx.journal.acks.length;
      await ctx.playOn(2);
      ctx.checks.check('moves are acknowledged again once it is back', ctx.journal.acks.length > acksBefore,
        `${ctx.journal.acks.length - acksBefore} acks`);
      const resumeMs = await ctx.waitForResumed(stoppingAt);
      ctx.checks.check('every client is back in its game within 10 s of PostgreSQL coming back',
        resumeMs !== null && resumeMs - (upAt - stoppingAt) <= 10000, `${resumeMs} ms after the stop`);
      await ctx.playOn(2);
      return { stopMs: downAt - stoppingAt, downMs: upAt - downAt, movesRefused: refused.filter((r) => r.what === 'move').length,
        refusedCodes: codes, resumeMs, drops: ctx.dropsSince(stoppingAt).length };
    },
  });
  assert.equal(checks.failed().length, 0, checks.summary());
});
