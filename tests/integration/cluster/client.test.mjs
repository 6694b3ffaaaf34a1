// The resilient client's own checks of a seq stream (resilient.mjs), fed by hand without a server:
// what the cluster scenarios count as a gap, a duplicate or a seq going back, and what they let
// through (a state that skips ahead, the answer to a re-sent move). A checker that never fails
// would let every scenario pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Journal, ResilientClient } from './resilient.mjs';

/** A client in game g that hears `messages` on its connection; returns what its journal says. */
function hear(messages, { moveIds = [] } = {}) {
  const journal = new Journal();
  const client = new ResilientClient({ url: 'ws://127.0.0.1:9/ws', name: 'c', role: 'spectator', journal });
  client.finished = true; // no liveness pings, no reconnects: only the checks
  clearInterval(client.timer);
  client.game = 'g';
  const conn = { lastHeard: 0 };
  client.conn = conn;
  for (const id of moveIds) client.moveIds.add(id);
  for (const m of messages) client.onMessage(conn, { game: 'g', ...m });
  return { violations: journal.violations.map((v) => v.what), lastSeq: client.lastSeq };
}

const state = (seq) => ({ type: 'state', seq, status: 'playing', turn: 'white', ply: 0, legal: [] });
const moved = (seq, extra = {}) => ({ type: 'moved', seq, ply: seq, move: 'e2e4', turn: 'black', legal: [], ...extra });

test('events one seq after another, and a state that skips ahead, are no breach', () => {
  const heard = hear([state(2), moved(3), moved(4), state(9), moved(10)]);
  assert.deepEqual(heard.violations, []);
  assert.equal(heard.lastSeq, 10);
});

test('a gap, a duplicate and a state going back are each a breach', () => {
  assert.match(hear([state(2), moved(4)]).violations.join(), /^gap: moved seq 4 after seq 2$/);
  assert.match(hear([state(2), moved(3), moved(3)]).violations.join(), /^duplicate: moved seq 3 after seq 3$/);
  assert.match(hear([state(5), state(4)]).violations.join(), /^state seq 4 below the last seq seen, 5$/);
  assert.match(hear([moved(1)]).violations.join(), /before any state/);
});

test('the answer to a re-sent move may repeat its seq; the same seq without our id may not', () => {
  assert.deepEqual(hear([state(2), moved(3), moved(3, { id: 'c.7' })], { moveIds: ['c.7'] }).violations, []);
  assert.equal(hear([state(2), moved(3), moved(3, { id: 'other' })], { moveIds: ['c.7'] }).violations.length, 1);
});
