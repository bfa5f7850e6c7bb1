import pg from 'pg';
import { clientConfig, connectClient, destroyClient, type DbTimeouts } from '@cluster/db';
import type { Logger } from '@cluster/platform';
import { DUE_CHANNEL } from '../features/deliveries/queue-store.ts';

/** The wake-up of the delivery loop by Postgres: LISTEN on the due channel. */
export interface DueListener {
  start(): void;
  stop(): Promise<void>;
}

/** How often the LISTEN connection proves it still reaches the server (`SELECT 1`, bounded by the query timeout). */
export const LISTEN_HEARTBEAT_MS = 5_000;

/** Waits between attempts to listen again: from the first to the longest, doubling. */
const RETRY_MS = { first: 1_000, max: 10_000 };

/**
 * LISTENs on the due channel, so deliveries inserted by other replicas (or left
 * unleased by this one's fan-out) wake this replica's loop at once rather than at
 * its next poll. Notifications carrying `instanceId` come from this process, which
 * wakes its loop directly, and are ignored. Without a connection the loop still polls.
 *
 * The connection is bounded as the pools are (`timeouts`): TCP keepalive, opening within the acquire
 * timeout, statement_timeout set after connecting. An idle LISTEN connection sends nothing, so a
 * half-open socket (a failover) or a frozen server would go unnoticed: a heartbeat every
 * LISTEN_HEARTBEAT_MS, whose answer is awaited at most the statement timeout plus a second, notices
 * it. A connection that fails, ends or misses a heartbeat is destroyed and made again (after 1 s,
 * doubling up to 10 s while it fails), and the loop is woken once it listens again, for what was
 * inserted meanwhile.
 */
export function createDueListener(opts: {
  databaseUrl: string;
  timeouts?: DbTimeouts;
  instanceId?: string;
  logger: Logger;
  onDue: () => void;
  /** Every notification, this process's own included, and every reconnection (the listening CLIs' streams: features/listen). */
  onNotification?: () => void;
  heartbeatMs?: number;
}): DueListener {
  let stopping = false;
  let listener: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryMs = RETRY_MS.first;
  let failures = 0;

  const listen = async () => {
    if (stopping) return;
    const client = new pg.Client(
      clientConfig(opts.databaseUrl, { application: 'delivery-due-listener', timeouts: opts.timeouts }),
    );
    const timers: { heartbeat?: NodeJS.Timeout } = {};
    let lost = false;
    const lose = (err: unknown) => {
      if (lost) return;
      lost = true;
      clearInterval(timers.heartbeat);
      if (listener === client) listener = undefined;
      void destroyClient(client);
      if (stopping) return;
      // The first failure of an outage is worth a warning; its repeats (every 1-10 s) are not.
      if (failures++ === 0) opts.logger.warn({ err }, 'LISTEN for due deliveries lost; polling only until it is back');
      retryTimer = setTimeout(() => void listen(), retryMs);
      retryTimer.unref();
      retryMs = Math.min(retryMs * 2, RETRY_MS.max);
    };
    client.on('error', lose);
    client.on('end', () => lose(new Error('the LISTEN connection ended')));
    client.on('notification', (n) => {
      opts.onNotification?.();
      if (!opts.instanceId || n.payload !== opts.instanceId) opts.onDue();
    });
    try {
      await connectClient(client, opts.timeouts);
      await client.query(`LISTEN ${DUE_CHANNEL}`);
    } catch (err) {
      return lose(err);
    }
    if (stopping || lost) return void destroyClient(client, 1000);
    listener = client;
    if (failures > 0) opts.logger.info('LISTEN for due deliveries is back');
    failures = 0;
    retryMs = RETRY_MS.first;
    opts.onDue(); // what was inserted while nothing listened is looked for now
    opts.onNotification?.();
    let beating = false;
    timers.heartbeat = setInterval(() => {
      if (beating) return;
      beating = true;
      client
        .query('SELECT 1')
        .catch(lose)
        .finally(() => (beating = false));
    }, opts.heartbeatMs ?? LISTEN_HEARTBEAT_MS);
    timers.heartbeat.unref();
  };

  return {
    start() {
      void listen();
    },
    async stop() {
      stopping = true;
      clearTimeout(retryTimer);
      const c = listener;
      listener = undefined;
      if (c) await destroyClient(c, 1000);
    },
  };
}
