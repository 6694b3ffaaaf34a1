// The cluster rig itself (issue 43), on what the server already has: PostgreSQL, Redis and nginx
// started in a temporary folder, and one ordinary server (no node id: a single node must be its
// database's only server) behind nginx. Games are played by resilient clients through nginx; the
// server is killed (-9) mid-game and started again (another port: nginx reloads); every client
// comes back with `since`, re-sends what was not acknowledged, and every game plays on to a
// result. The same checks as the cluster's scenarios: no seq gap or duplicate, every acknowledged
// move stored once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runScenario } from './scenario.mjs';

test('rig smoke: one server on PostgreSQL behind nginx, killed and restarted mid-game', async () => {
  const { checks } = await runScenario({
    name: 'smoke (single node, kill -9 and restart)',
    nodes: 1,
    cluster: false,
    games: Number(process.env.ARBITER_CLUSTER_GAMES ?? 6),
    closeCodes: [1006, 'silent', 'timeout'],
    async disrupt(ctx) {
      const since = Date.now();
      await ctx.rig.kill('n1');
      await ctx.rig.restart('n1');
      const restartMs = Date.now() - since;
      const resumeMs = await ctx.waitForResumed(since);
      ctx.checks.check('every client resumed within 10 s of the kill', resumeMs !== null && resumeMs <= 10000,
        `${resumeMs} ms`);
      ctx.checks.check('the kill dropped every client', ctx.dropsSince(since).length === ctx.clients.length,
        `${ctx.dropsSince(since).length} of ${ctx.clients.length}`);
      await ctx.playOn(4);
      return { restartMs, resumeMs };
    },
  });
  assert.equal(checks.failed().length, 0, checks.summary());
});
