// Issue 43, cluster test 2: split brain. The node that owns the most games is frozen (SIGSTOP)
// for longer than its lease (3 s): the other nodes adopt its games, and its clients come back
// through them. A probe game created straight on the frozen node (not through nginx) has a move
// waiting in the node's socket while it is frozen. Then SIGCONT: the node must acknowledge
// nothing that PostgreSQL does not hold (its writes are fenced by the games' epochs), drop the
// rooms it lost, and rejoin: a lease of its own again, and a new game created on it is its own
// and takes moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startGame, play } from '../server/harness.mjs';
import { serverHasClusterFlags, sleep } from './harness.mjs';
import { runScenario } from './scenario.mjs';

/** Creates a game on the node at `url` directly and plays its first move there; null when the
 * node refuses (it may still be rejoining). */
async function gameOn(url) {
  const a = await Client.connect(url, 'Rejoin A');
  const b = await Client.connect(url, 'Rejoin B');
  try {
    const created = await a.request({ type: 'create', variant: 'chess', side: 'first' });
    if (created.type === 'error') return { refused: created.code };
    await a.nextOf('state', (s) => s.game === created.game);
    const joined = await b.request({ type: 'join', game: created.game });
    if (joined.type === 'error') return { refused: joined.code };
    const moved = await a.request({ type: 'move', game: created.game, move: 'd2d4', ply: 0 });
    return { game: created.game, moved };
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

test('SIGSTOP past the lease: others adopt, the thawed node acknowledges nothing fenced, and rejoins', async () => {
  assert.ok(serverHasClusterFlags(), 'this arbiter-server has no --node-id/--bus: it cannot run as a cluster node');
  const { checks } = await runScenario({
    name: 'SIGSTOP an owner past its lease',
    async disrupt(ctx) {
      const victim = await ctx.busiestOwner();
      const direct = `ws://127.0.0.1:${ctx.rig.node(victim).port}/ws`;
      // The probe: a game of the victim's own, its players connected to it directly.
      const pa = await Client.connect(direct, 'Probe A');
      const pb = await Client.connect(direct, 'Probe B');
      const probe = await startGame(pa, pb, { variant: 'chess' });
      await play(probe.game, pa, pb, ['e2e4', 'e7e5']);
      const before = await ctx.owners();
      ctx.checks.check(`the probe game belongs to ${victim}, where it was created`,
        before.get(probe.game)?.owner === victim, JSON.stringify(before.get(probe.game)));
      const owned = ctx.games.filter((g) => before.get(g.id)?.owner === victim).map((g) => g.id);

      const frozenAt = Date.now();
      ctx.rig.freeze(victim);
      pa.send({ type: 'move', game: probe.game, move: 'g1f3', ply: 2, id: 'probe-move' });
      const adoptMs = await ctx.waitForNewOwners([...owned, probe.game], victim, frozenAt);
      ctx.checks.check(`the ${owned.length + 1} games of the frozen ${victim} are adopted within 5 s`,
        adoptMs !== null && adoptMs <= 5000, `${adoptMs} ms`);
      // Thawed as soon as its games are adopted: its own clients (silent for 5 s before they give
      // up) are then still connected to it, and it must not leave them deaf or act on what they
      // sent it while it was frozen.
      const frozenMs = Date.now() - frozenAt;
      ctx.rig.thaw(victim);
      const thawedAt = Date.now();
      // What the thawed node does with the move that waited in its socket.
      let probeReply = null;
      try {
        probeReply = await pa.next((m) => m.id === 'probe-move', 8000);
      } catch (error) {
        probeReply = { closed: pa.closed?.code ?? null, error: error.message.split('\n')[0] };
      }
      if (probeReply.type === 'moved') {
        ctx.journal.ack({ client: 'probe', game: probe.game, seq: probeReply.seq, ply: probeReply.ply,
          move: probeReply.move, sentAt: frozenAt, at: Date.now(), resent: false, node: victim });
        const [row] = await ctx.rig.sql(
          `SELECT move, seq FROM moves WHERE game_id = '${probe.game}' AND ply = ${probeReply.ply}`);
        ctx.checks.check('a move the thawed node acknowledged is stored, with its seq',
          row && row[0] === probeReply.move && Number(row[1]) === probeReply.seq, JSON.stringify(row ?? null));
      } else {
        ctx.checks.check('the thawed node did not acknowledge the move it could not commit',
          probeReply.type !== 'moved', JSON.stringify(probeReply));
      }
      const stale = pa.messages.filter((m) => m.type === 'moved' && m.game === probe.game && m.ply > 2 &&
        m.seq !== probeReply.seq);
      ctx.checks.check('the thawed node sent no other move of the game it lost', stale.length === 0,
        stale.length ? JSON.stringify(stale) : '');

      // It rejoins: a lease again, and a new game on it is its own and takes a move.
      const rejoinDeadline = Date.now() + 15000;
      let attempt = null;
      while (Date.now() < rejoinDeadline) {
        attempt = await gameOn(direct).catch((error) => ({ error: error.message.split('\n')[0] }));
        if (attempt.moved?.type === 'moved') break;
        await sleep(500);
      }
      const rejoinMs = Date.now() - thawedAt;
      ctx.checks.check(`a game created on the thawed ${victim} takes a move`, attempt?.moved?.type === 'moved',
        JSON.stringify(attempt));
      if (attempt?.game) {
        const [row] = await ctx.rig.sql(`SELECT owner_node FROM games WHERE id = '${attempt.game}'`);
        ctx.checks.check(`that game belongs to ${victim}`, row?.[0] === victim, JSON.stringify(row ?? null));
      }
      const [lease] = await ctx.rig.sql(`SELECT lease_expires_at > clock_timestamp(), left_at IS NULL, incarnation
        FROM nodes WHERE node_id = '${victim}'`);
      ctx.checks.check(`${victim} holds a live lease again`, lease?.[0] === 't' && lease?.[1] === 't',
        JSON.stringify(lease ?? null));
      const resumeMs = await ctx.waitForResumed(frozenAt);
      ctx.checks.check('every client is back in its game within 10 s of the freeze',
        resumeMs !== null && resumeMs <= 10000, `${resumeMs} ms`);
      const probeEnd = { a: pa.closed?.code ?? 'open', b: pb.closed?.code ?? 'open' };
      await Promise.all([pa.close(), pb.close()]);
      return { victim, owned: owned.length, adoptMs, resumeMs, frozenMs, probeReply: probeReply.type ??
        probeReply, probeEnd, rejoinMs, incarnation: lease?.[2] };
    },
  });
  assert.equal(checks.failed().length, 0, checks.summary());
});
