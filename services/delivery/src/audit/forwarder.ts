import { fromJson } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { Counter, Gauge } from 'prom-client';
import { createBatchLoop, type Logger, type Metrics } from '@cluster/platform';
import { ActorSchema, type AuditService } from '@cluster/proto';
import type { AuditOutboxStore } from './store.ts';

/** Audit records forwarded per batch. */
const BATCH = 100;

/** The loop that hands the audit records of webhook writes to the core. */
export interface AuditForwarder {
  start(): void;
  /** Forwards what is queued now; resolves with how many went. */
  flush(): Promise<number>;
  /** Something was queued: forward it now rather than at the next poll. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Forwards queued audit events to the core's RecordAuditEvent, oldest first, each
 * under its own id (the core records an id once, so a retry after a lost answer
 * does no harm) and with the time of the write. On failure it backs off (up to
 * 30 s) and tries again; replicas share the queue with SKIP LOCKED. An event the
 * core refuses as malformed (never true of what the writes queue) is logged with
 * its content, counted and dropped, so it cannot hold back every later one.
 */
export function createAuditForwarder(opts: {
  store: AuditOutboxStore;
  core: Client<typeof AuditService>;
  logger: Logger;
  metrics: Metrics;
  pollMs?: number;
}): AuditForwarder {
  const { store, core, logger } = opts;
  const pollMs = opts.pollMs ?? 1000;
  new Gauge({
    name: `${opts.metrics.prefix}audit_forward_backlog`,
    help: 'Audit events of webhook writes not yet recorded by the core (grows while the core is unreachable).',
    registers: [opts.metrics.registry],
    async collect() {
      this.set(await store.count().catch(() => 0));
    },
  });

  const rejected = new Counter({
    name: `${opts.metrics.prefix}audit_forward_rejected_total`,
    help: 'Queued audit events the core refused as malformed; logged in full and dropped (our bug; must stay 0).',
    registers: [opts.metrics.registry],
  });

  /** Refusals that no retry can change: the request itself is wrong. */
  const malformed = (err: unknown) =>
    err instanceof ConnectError && (err.code === Code.InvalidArgument || err.code === Code.Unauthenticated);

  const forwardBatch = (): Promise<number> =>
    store.forwardOldest(BATCH, async (rows) => {
      for (const row of rows) {
        try {
          await core.recordAuditEvent({
            id: row.id,
            actor: fromJson(ActorSchema, row.actor),
            entityType: row.entityType,
            action: row.action,
            entityId: row.entityId,
            metadata: row.metadata ?? {},
            occurredAt: new Date(row.createdAt).toISOString(),
          });
        } catch (err) {
          if (!malformed(err)) throw err;
          rejected.inc();
          logger.error({ err, audit: row }, 'the core refused a queued audit event; dropped');
        }
      }
    });

  const loop = createBatchLoop({
    step: forwardBatch,
    batchSize: BATCH,
    idleMs: pollMs,
    backoff: { initialMs: pollMs, maxMs: 30_000 },
    onError: (err) => logger.warn({ err }, 'audit events not forwarded to the core yet; retrying'),
  });

  return {
    start() {
      loop.start();
    },
    async flush() {
      let total = 0;
      for (let n = await forwardBatch(); n > 0; n = await forwardBatch()) total += n;
      return total;
    },
    wake: loop.wake,
    stop: loop.stop,
  };
}
