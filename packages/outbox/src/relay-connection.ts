import pg from 'pg';
import { clientConfig, connectClient, destroyClient, type DbTimeouts } from '@cluster/db';
import type { Logger } from '@cluster/platform';

/** A relay's dedicated Postgres connection: it LISTENs for new rows and runs the relay's statements. */
export interface RelayConnection {
  /** The open connection (opening it, and LISTENing, when there is none). */
  session(): Promise<RelaySession>;
  /** The open connection, if there is one (never opens one). */
  current(): RelaySession | undefined;
  /** Ends the connection; the next `session` opens a new one. */
  drop(): Promise<void>;
}

/** The connection as the relay uses it: a query that fails drops the connection. */
export interface RelaySession {
  /** Counts the connections this relay opened: a new one means its backend changed (docs/decisions.md). */
  readonly generation: number;
  /** A statement's text, or a named one (`{ name, text }`: parsed and planned once per connection). */
  query<R extends pg.QueryResultRow>(
    text: string | { name: string; text: string },
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

/**
 * The relay's own connection. It LISTENs on `channel`; the slots it leads are lease rows
 * (`leases.ts`), tied to this connection's backend, so a connection that ends frees them for the
 * other relays at once. A connection that fails or ends (the server restarted, a socket broke) is
 * forgotten at once, so the next `session` reconnects.
 *
 * Bounded as the pools are (`timeouts`, DB_STATEMENT_TIMEOUT_MS and DB_ACQUIRE_TIMEOUT_MS): TCP
 * keepalive, opening within the acquire timeout, statement_timeout set after connecting, and every
 * answer awaited at most the statement timeout plus a second. Any query that fails or times out
 * destroys the connection (a half-open socket left by a failover, a frozen server) and the next
 * `session` opens a new one: the relay resumes within seconds of the server's return, not after the
 * kernel gives up on the socket.
 */
export function createRelayConnection(opts: {
  databaseUrl: string;
  applicationName: string;
  channel: string;
  logger: Logger;
  /** Bounds of every wait; unset: none (tests of the relay alone). */
  timeouts?: DbTimeouts;
  /** A notification arrived on `channel`, or the connection broke: look again now. */
  onWake: () => void;
}): RelayConnection {
  let conn: pg.Client | undefined;
  let opening: Promise<pg.Client> | undefined;
  let generation = 0;

  const forget = (c: pg.Client) => {
    if (conn === c) conn = undefined;
  };

  /** Runs a query on `c`; a failure of any kind (a timeout, a broken socket, an SQL error) ends `c`. */
  const run = async <R extends pg.QueryResultRow>(
    c: pg.Client,
    text: string | { name: string; text: string },
    values?: unknown[],
  ) => {
    try {
      return await c.query<R>(typeof text === 'string' ? { text, values } : { ...text, values });
    } catch (err) {
      forget(c);
      await destroyClient(c);
      throw err;
    }
  };

  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client(clientConfig(opts.databaseUrl, { application: opts.applicationName, timeouts: opts.timeouts }));
    c.on('end', () => forget(c));
    c.on('error', (err) => {
      opts.logger.warn({ err }, 'outbox relay connection lost; reconnecting');
      forget(c);
      void destroyClient(c);
      opts.onWake();
    });
    c.on('notification', () => opts.onWake());
    await connectClient(c, opts.timeouts);
    await run(c, `LISTEN ${opts.channel}`);
    generation++;
    return c;
  };

  const sessionOf = (c: pg.Client): RelaySession => {
    const gen = generation;
    return { generation: gen, query: (text, values) => run(c, text, values) };
  };
  return {
    async session() {
      if (!conn) {
        opening ??= connect().finally(() => (opening = undefined));
        conn = await opening;
      }
      return sessionOf(conn);
    },
    current: () => (conn ? sessionOf(conn) : undefined),
    async drop() {
      const c = conn;
      conn = undefined;
      if (c) await destroyClient(c, 1000);
    },
  };
}
