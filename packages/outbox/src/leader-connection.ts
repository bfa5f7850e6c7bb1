import pg from 'pg';
import { pgConnectionConfig } from '@cluster/db';
import type { Logger } from '@cluster/platform';

/** A dedicated Postgres connection that leads while it holds a session advisory lock. */
export interface LeaderConnection {
  /** The connection if this process leads (taking the lead when it is free), else undefined. */
  acquire(): Promise<pg.Client | undefined>;
  /** Ends the connection, which releases the lead (another replica takes over). */
  drop(): Promise<void>;
}

/**
 * One relay at a time leads: its own connection holds a session advisory lock on
 * `lockName` and LISTENs on `channel`. Losing the connection releases the lock, so
 * a standby replica takes over at its next look when the leader dies. A connection
 * that fails or ends (the server restarted, a socket broke) is forgotten at once,
 * so the next `acquire` reconnects and takes the lead again if it is free.
 */
export function createLeaderConnection(opts: {
  databaseUrl: string;
  applicationName: string;
  lockName: string;
  channel: string;
  logger: Logger;
  /** A notification arrived on `channel`, or the connection broke: look again now. */
  onWake: () => void;
}): LeaderConnection {
  let conn: pg.Client | undefined;
  let leading = false;

  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({ ...pgConnectionConfig(opts.databaseUrl), application_name: opts.applicationName });
    const forget = () => {
      if (conn !== c) return;
      conn = undefined;
      leading = false;
    };
    c.on('end', forget);
    c.on('error', (err) => {
      opts.logger.warn({ err }, 'outbox relay connection lost; reconnecting');
      forget();
      void c.end().catch(() => {});
      opts.onWake();
    });
    c.on('notification', () => opts.onWake());
    await c.connect();
    return c;
  };

  return {
    async acquire() {
      if (conn && leading) return conn;
      conn ??= await connect();
      const { rows } = await conn.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
        opts.lockName,
      ]);
      if (!rows[0].locked) return undefined;
      await conn.query(`LISTEN ${opts.channel}`);
      leading = true;
      return conn;
    },
    async drop() {
      const c = conn;
      conn = undefined;
      leading = false;
      await c?.end().catch(() => {});
    },
  };
}
