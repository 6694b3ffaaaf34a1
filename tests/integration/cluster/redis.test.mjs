// Issue 43, cluster test 3: Redis dies mid-game (kill -9) and comes back on its port 2 s later.
// Pub/sub loses what was in flight: the nodes catch up from PostgreSQL and retry forwarded moves,
// so the clients end with no seq gap or duplicate, every acknowledged move is stored once, and
// every game plays on to a result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverHasClusterFlags, sleep } from './harness.mjs';
import { runScenario } from './scenario.mjs';

test('Redis killed mid-game and back 2 s later: no gap, no loss, no double move', async () => {
  assert.ok(serverHasClusterFlags(), 'this arbiter-server has no --node-id/--bus: it cannot run as a cluster node');
  const { checks } = await runScenario({
    name: 'Redis dies for 2 s',
    async disrupt(ctx) {
      const acksBefore = ctx.journal.acks.length;
      const downAt = Date.now();
      await ctx.rig.redisDown();
      await sleep(2000);
      await ctx.rig.redisUp();
      const upAt = Date.now();
      const resumeMs = await ctx.waitForResumed(downAt);
      ctx.checks.check('every client is back in its game within 10 s of Redis coming back',
        resumeMs !== null && resumeMs - (upAt - downAt) <= 10000, `${resumeMs} ms after the kill`);
      await ctx.playOn(4);
      const during = ctx.journal.acks.filter((a) => a.at >= downAt && a.at <= upAt).length;
      return { redisDownMs: upAt - downAt, resumeMs, drops: ctx.dropsSince(downAt).length, acksWhileDown: during,
        acksBefore, resentAcks: ctx.journal.acks.filter((a) => a.resent && a.at >= downAt).length };
    },
  });
  assert.equal(checks.failed().length, 0, checks.summary());
});
