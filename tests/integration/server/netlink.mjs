// A network between a client and the server, in user space (no root, no netem): a TCP proxy on
// 127.0.0.1 that forwards each connection's bytes in order, each direction late by a delay plus
// a random jitter, with "loss" as TCP shows it to the application (a stall: the bytes come late,
// and everything behind them waits), and cuts (nothing gets through any more, not even a FIN:
// the link is gone, and each end learns it only from its own timers).
import net from 'node:net';

/**
 * Starts a link to 127.0.0.1:`targetPort`. Options (each may be changed later with set()):
 * - delayMs: one way, each direction
 * - jitterMs: up to this much more, random per chunk (order is kept, as TCP keeps it)
 * - stallRate: the share of chunks that are "lost" and come stallMs late (a retransmission)
 * - stallMs
 * Returns { port, url, set(options), cut(), heal(), connections(), close() }.
 */
export async function startLink(targetPort, options = {}) {
  const settings = { delayMs: 0, jitterMs: 0, stallRate: 0, stallMs: 300, ...options };
  const pairs = new Set();

  /** Forwards `from` to `to` with the link's delays; held while the pair is cut. */
  function pipe(pair, from, to) {
    let releaseAt = 0; // the last chunk's release time: a later chunk never overtakes it
    const queue = [];
    let timer = null;
    const flush = () => {
      timer = null;
      if (pair.cut) return; // held: released by heal(), or never
      const now = Date.now();
      while (queue.length > 0 && queue[0].at <= now) {
        if (!to.destroyed) to.write(queue.shift().data);
        else queue.shift();
      }
      if (queue.length > 0) timer = setTimeout(flush, queue[0].at - now);
    };
    pair.flushers.push(() => {
      if (!timer) flush();
    });
    from.on('data', (data) => {
      // While cut, held as TCP holds what it could not deliver: for ever, or until heal()
      // (when the retransmissions get through). Dropping bytes would break the stream.
      const now = Date.now();
      let late = settings.delayMs + Math.random() * settings.jitterMs;
      if (settings.stallRate > 0 && Math.random() < settings.stallRate) late += settings.stallMs;
      releaseAt = Math.max(releaseAt, now + late);
      queue.push({ at: releaseAt, data });
      if (!timer) timer = setTimeout(flush, releaseAt - now);
    });
    from.on('end', () => {
      // A FIN goes through once the bytes before it have (a cut link carries none).
      const finish = () => {
        if (pair.cut) return;
        if (queue.length > 0) return void setTimeout(finish, 5);
        to.end();
      };
      finish();
    });
  }

  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    const pair = { client, upstream, cut: false, flushers: [] };
    pairs.add(pair);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      socket.on('error', () => {});
      socket.on('close', () => {
        // A reset or close on one side reaches the other side only while the link is up.
        if (!pair.cut) {
          client.destroy();
          upstream.destroy();
        }
        if (client.destroyed && upstream.destroyed) pairs.delete(pair);
      });
    }
    pipe(pair, client, upstream);
    pipe(pair, upstream, client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    port,
    url: `ws://127.0.0.1:${port}/ws`,
    set(changes) {
      Object.assign(settings, changes);
    },
    /** Every connection open now stops carrying anything, both ways, without a FIN or a reset.
     * New connections still go through: the client came back by another route. */
    cut() {
      for (const pair of pairs) pair.cut = true;
    },
    /** The cut connections carry again, what they held first (TCP's retransmissions). */
    heal() {
      for (const pair of pairs) {
        pair.cut = false;
        for (const flush of pair.flushers) flush();
      }
    },
    connections() {
      return pairs.size;
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      pairs.clear();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
