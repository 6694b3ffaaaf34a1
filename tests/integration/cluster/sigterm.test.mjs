// Issue 43, cluster test 4: graceful stop. SIGTERM to the node that owns the most games: it hands
// its games over at once (other nodes own them before it has exited, or within moments), closes
// its own clients with 1001 (going away), exits 0, and the clients resume through the other
// nodes; the games play on to a result with nothing lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverHasClusterFlags } from './harness.mjs';
import { runScenario } from './scenario.mjs';

test('SIGTERM: the node hands its games over, its clients see 1001 and resume elsewhere', async () => {
  assert.ok(serverHasClusterFlags(), 'this arbiter-server has no --node-id/--bus: it cannot run as a cluster node');
  const { checks } = await runScenario({
    name: 'SIGTERM handover',
    closeCodes: [1001, 1012],
    async disrupt(ctx) {
      const victim = await ctx.busiestOwner();
      const before = await ctx.owners();
      const owned = ctx.games.filter((g) => before.get(g.id)?.owner === victim).map((g) => g.id);
      const stoppedAt = Date.now();
      const handover = ctx.waitForNewOwners(owned, victim, stoppedAt);
      const exit = await ctx.rig.terminate(victim);
      const exitMs = Date.now() - stoppedAt;
      ctx.checks.check(`${victim} exits 0 on SIGTERM`, exit.code === 0, JSON.stringify(exit));
      const handoverMs = await handover;
      ctx.checks.check(`the ${owned.length} games of ${victim} have new owners within 5 s`,
        handoverMs !== null && handoverMs <= 5000, `${handoverMs} ms (exit after ${exitMs} ms)`);
      const resumeMs = await ctx.waitForResumed(stoppedAt);
      ctx.checks.check('every client is back in its game within 10 s', resumeMs !== null && resumeMs <= 10000,
        `${resumeMs} ms`);
      const fromVictim = ctx.dropsSince(stoppedAt).filter((d) => d.node === victim);
      const notGoingAway = fromVictim.filter((d) => d.code !== 1001);
      ctx.checks.check(`the clients connected to ${victim} are closed with 1001 going away`,
        fromVictim.length > 0 && notGoingAway.length === 0,
        `${fromVictim.length} closed; others: ${notGoingAway.map((d) => `${d.client.name}: ${d.code}`).join(' ')}`);
      await ctx.playOn(4);
      return { victim, owned: owned.length, exitMs, handoverMs, resumeMs, closedByVictim: fromVictim.length };
    },
  });
  assert.equal(checks.failed().length, 0, checks.summary());
});
