// Issue 43, cluster test 1: kill -9 an owner mid-game. Three nodes behind nginx; games opened
// through nginx (2 players and 3 spectators each, spread over the nodes by least_conn); the node
// that owns the most games is killed. Its games must have a new owner within 5 s and every client
// must be back in its game within 10 s; clients of its games connected to other nodes are closed
// with 1012; the games play on to a result with no seq gap or duplicate, every acknowledged move
// stored once, epochs never going down. The killed node then starts again under its id and the
// games go on. ARBITER_CLUSTER_GAMES sets the number of games (12 here, 60 in the soak).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverHasClusterFlags } from './harness.mjs';
import { runScenario } from './scenario.mjs';

test('kill -9 of a game owner: new owners within 5 s, clients back within 10 s, nothing lost', async () => {
  assert.ok(serverHasClusterFlags(), 'this arbiter-server has no --node-id/--bus: it cannot run as a cluster node');
  const { checks } = await runScenario({
    name: 'kill -9 an owner',
    async disrupt(ctx) {
      const victim = await ctx.busiestOwner();
      const before = await ctx.owners();
      const owned = ctx.games.filter((g) => before.get(g.id)?.owner === victim).map((g) => g.id);
      const killedAt = Date.now();
      await ctx.rig.kill(victim);
      const failoverMs = await ctx.waitForNewOwners(owned, victim, killedAt);
      ctx.checks.check(`the ${owned.length} games of ${victim} have new owners within 5 s`,
        failoverMs !== null && failoverMs <= 5000, `${failoverMs} ms`);
      const resumeMs = await ctx.waitForResumed(killedAt);
      ctx.checks.check('every client is back in its game within 10 s of the kill',
        resumeMs !== null && resumeMs <= 10000, `${resumeMs} ms`);
      const drops = ctx.dropsSince(killedAt);
      const elsewhere = drops.filter((d) => d.node !== victim);
      const wrong = elsewhere.filter((d) => d.code !== 1012 && owned.includes(d.game));
      ctx.checks.check('a live node closes its clients of the dead owner\'s games with 1012', wrong.length === 0,
        wrong.map((d) => `${d.client.name}@${d.node}: ${d.code}`).join(' '));
      const onVictim = ctx.clients.filter((c) => c.drops.some((d) => d.at >= killedAt && d.node === victim)).length;
      ctx.checks.check('every client connected to the killed node lost its connection',
        ctx.clients.every((c) => c.node !== victim), `${onVictim} dropped from ${victim}`);
      await ctx.playOn(2);
      await ctx.rig.restart(victim);
      await ctx.playOn(2);
      return { victim, owned: owned.length, failoverMs, resumeMs, drops: drops.length, droppedFromVictim: onVictim,
        droppedElsewhere: elsewhere.length };
    },
  });
  assert.equal(checks.failed().length, 0, checks.summary());
});
