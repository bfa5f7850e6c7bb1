import net from 'node:net';

/**
 * A TCP proxy in front of a real server (Redis), on a port of its own, for fault tests: `close()`
 * takes the server away (connections reset, new ones refused), `freeze()` keeps every connection
 * open but forwards nothing (a hung server, as SIGSTOP leaves it), `open()` brings it back on the
 * same port.
 */
export interface TcpProxy {
  port: number;
  close(): Promise<void>;
  freeze(): void;
  open(): Promise<void>;
  /** Closes it for good (afterAll). */
  stop(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let frozen = false;
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
  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    const pair: Pair = { client };
    pairs.add(pair);
    client.on('error', () => drop(pair)).on('close', () => drop(pair));
    if (!frozen) forward(pair);
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
    async open() {
      if (frozen) {
        frozen = false;
        for (const pair of pairs) forward(pair);
      }
      if (!server.listening) await listen(port);
    },
    stop: () => (server.listening ? close() : Promise.resolve()),
  };
}
