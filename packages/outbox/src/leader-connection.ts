import pg from 'pg';
import { clientConfig, connectClient, destroyClient, type DbTimeouts } from '@cluster/db';
import type { Logger } from '@cluster/platform';

/** A dedicated Postgres connection that leads while it holds a session advisory lock. */
export interface LeaderConnection {
  /** The connection if this process leads (taking the lead when it is free), else undefined. */
  acquire(): Promise<LeaderSession | undefined>;
  /** Ends the connection, which releases the lead (another replica takes over). */
  drop(): Promise<void>;
}

/** The leader's connection, as its batches use it: a query that fails drops the connection (and the lead). */
export interface LeaderSession {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * One relay at a time leads: its own connection holds a session advisory lock on
 * `lockName` and LISTENs on `channel`. Losing the connection releases the lock, so
 * a standby replica takes over at its next look when the leader dies. A connection
 * that fails or ends (the server restarted, a socket broke) is forgotten at once,
 * so the next `acquire` reconnects and takes the lead again if it is free.
 *
 * Bounded as the pools are (`timeouts`, DB_STATEMENT_TIMEOUT_MS and DB_ACQUIRE_TIMEOUT_MS): TCP
 * keepalive, opening within the acquire timeout, statement_timeout set after connecting, and every
 * answer awaited at most the statement timeout plus a second. Any query that fails or times out
 * destroys the connection (a half-open socket left by a failover, a frozen server) and the next
 * `acquire` opens a new one: the relay resumes within seconds of the server's return, not after the
 * kernel gives up on the socket.
 */
export function createLeaderConnection(opts: {
  databaseUrl: string;
  applicationName: string;
  lockName: string;
  channel: string;
  logger: Logger;
  /** Bounds of every wait; unset: none (tests of the lead alone). */
  timeouts?: DbTimeouts;
  /** A notification arrived on `channel`, or the connection broke: look again now. */
  onWake: () => void;
}): LeaderConnection {
  let conn: pg.Client | undefined;
  let leading = false;

  const forget = (c: pg.Client) => {
    if (conn !== c) return;
    conn = undefined;
    leading = false;
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
    return c;
  };

  /** Runs a query on `c`; a failure of any kind (a timeout, a broken socket, an SQL error) ends `c`. */
  const run = async <R extends pg.QueryResultRow>(c: pg.Client, text: string, values?: unknown[]) => {
    try {
      return await c.query<R>(text, values);
    } catch (err) {
      forget(c);
      await destroyClient(c);
      throw err;
    }
  };

  return {
    async acquire() {
      const session = (c: pg.Client): LeaderSession => ({ query: (text, values) => run(c, text, values) });
      if (conn && leading) return session(conn);
      const c = (conn ??= await connect());
      const { rows } = await run<{ locked: boolean }>(c, 'SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [opts.lockName]);
      if (!rows[0].locked) return undefined;
      await run(c, `LISTEN ${opts.channel}`);
      leading = conn === c;
      return session(c);
    },
    async drop() {
      const c = conn;
      conn = undefined;
      leading = false;
      if (c) await destroyClient(c, 1000);
    },
  };
}
