import net from 'node:net';

/**
 * A TCP proxy in front of a real server (Redis, Postgres), on a port of its own, for fault tests:
 * `close()` takes the server away (connections reset, new ones refused), `freeze()` keeps every
 * connection open but forwards nothing (a hung server, as SIGSTOP leaves it), `blackhole()` leaves
 * every open connection half-open for good (what a failover leaves: the client's socket stays open,
 * nothing it sends is answered, no FIN or RST ever comes; the server's side is closed, as the old
 * primary is gone) and holds new connections unanswered, `open()` brings it back on the same port
 * (after a black hole, for new connections only).
 */
export interface TcpProxy {
  port: number;
  close(): Promise<void>;
  freeze(): void;
  blackhole(): void;
  open(): Promise<void>;
  /** Closes it for good (afterAll). */
  stop(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
  /** Black-holed: never forwarded again, never closed by the proxy (until stop). */
  dead?: boolean;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let frozen = false;
  let holing = false;
  const drop = (pair: Pair) => {
    pairs.delete(pair);
    pair.client.destroy();
    pair.upstream?.destroy();
  };
  const forward = (pair: Pair) => {
    if (!pair.upstream) {
      pair.upstream = net.connect(target);
      pair.upstream.on('error', () => drop(pair)).on('close', () => drop(pair));
    }
    pair.client.pipe(pair.upstream).pipe(pair.client);
    pair.client.resume();
    pair.upstream.resume();
  };
  const bury = (pair: Pair) => {
    pair.dead = true;
    pair.client.unpipe();
    pair.upstream?.unpipe();
    pair.client.pause();
    const upstream = pair.upstream;
    pair.upstream = undefined;
    upstream
      ?.removeAllListeners('close')
      .removeAllListeners('error')
      .on('error', () => {});
    upstream?.destroy();
  };
  // allowHalfOpen: a black-holed client's FIN gets no FIN back (its socket stays half-open).
  const server = net.createServer({ pauseOnConnect: true, allowHalfOpen: true }, (client) => {
    const pair: Pair = { client };
    pairs.add(pair);
    client.on('error', () => drop(pair)).on('close', () => drop(pair));
    if (holing) bury(pair);
    else if (!frozen) forward(pair);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const { port } = server.address() as net.AddressInfo;
  const close = async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    for (const pair of pairs) {
      pair.client.resetAndDestroy();
      drop(pair);
    }
    await closed;
  };
  return {
    port,
    close,
    freeze() {
      frozen = true;
      for (const { client, upstream } of pairs) {
        client.unpipe();
        upstream?.unpipe();
        client.pause();
        upstream?.pause();
      }
    },
    blackhole() {
      holing = true;
      for (const pair of pairs) bury(pair);
    },
    async open() {
      holing = false;
      if (frozen) {
        frozen = false;
        for (const pair of pairs) if (!pair.dead) forward(pair);
      }
      if (!server.listening) await listen(port);
    },
    stop: () => (server.listening ? close() : Promise.resolve()),
  };
}
