import pg from 'pg';
import { pgConnectionConfig } from '@cluster/db';
import type { Logger } from '@cluster/platform';
import { DUE_CHANNEL } from '../features/deliveries/queue-store.ts';

/** The wake-up of the delivery loop by Postgres: LISTEN on the due channel. */
export interface DueListener {
  start(): void;
  stop(): Promise<void>;
}

/**
 * LISTENs on the due channel, so deliveries inserted by other replicas (or left
 * unleased by this one's fan-out) wake this replica's loop at once rather than at
 * its next poll. Notifications carrying `instanceId` come from this process, which
 * wakes its loop directly, and are ignored. A lost connection is made again after
 * a second; without one the loop still polls.
 */
export function createDueListener(opts: {
  databaseUrl: string;
  instanceId?: string;
  logger: Logger;
  onDue: () => void;
}): DueListener {
  let stopping = false;
  let listener: pg.Client | undefined;

  const listen = async () => {
    if (stopping) return;
    try {
      const client = new pg.Client(pgConnectionConfig(opts.databaseUrl));
      client.on('error', () => {
        listener = undefined;
        if (!stopping) setTimeout(() => void listen(), 1000).unref();
      });
      client.on('notification', (n) => {
        if (!opts.instanceId || n.payload !== opts.instanceId) opts.onDue();
      });
      await client.connect();
      await client.query(`LISTEN ${DUE_CHANNEL}`);
      listener = client;
      if (stopping) await client.end().catch(() => {});
    } catch (err) {
      opts.logger.warn({ err }, 'LISTEN for due deliveries failed; polling only');
    }
  };

  return {
    start() {
      void listen();
    },
    async stop() {
      stopping = true;
      await listener?.end().catch(() => {});
    },
  };
}
