import pg from 'pg';
import { createWaker, type Logger } from '@cluster/platform';
import type { AttemptDecision, ClaimedDelivery, DeliveryStore } from '../deliveries/store.ts';
import { DUE_CHANNEL } from '../deliveries/store.ts';
import { createAttemptRecorder } from '../deliveries/recorder.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { DeliveryMetrics } from '../metrics.ts';
import { nextRetry, type RetryPolicy } from './backoff.ts';
import type { HttpSender, SendResult } from './http-sender.ts';
import { deliveryHeaders } from './signing.ts';

export interface DeliveryWorkerOptions {
  store: DeliveryStore;
  sender: HttpSender;
  secrets: SecretBox;
  metrics: DeliveryMetrics;
  logger: Logger;
  retry: RetryPolicy;
  concurrency: number;
  perDestinationConcurrency: number;
  leaseMs: number;
  pollMs: number;
  /** For LISTEN on the due channel, so inserts by other replicas wake this one. */
  databaseUrl?: string;
  /** Notifications carrying this id come from this process, which wakes its loop directly. */
  instanceId?: string;
  clock?: () => Date;
}

/** The sender loop of one replica. */
export interface DeliveryWorker {
  start(): void;
  /** Wakes the loop now (new deliveries were inserted). */
  wake(): void;
  /** How many more deliveries to this origin the worker would hold now (for the fan-out's handoff). */
  capacity(origin: string): number;
  /** Takes deliveries already leased to this replica (inserted so by the fan-out) and sends them. */
  accept(deliveries: ClaimedDelivery[]): void;
  /** Stops claiming, waits for attempts in flight to be recorded. */
  stop(): Promise<void>;
  /** Attempts in flight now. */
  inFlight(): number;
}

/** Signs and sends one delivery, the exact stored bytes, with a timestamp taken at send time. */
export async function attemptDelivery(
  d: Pick<ClaimedDelivery, 'id' | 'eventName' | 'body' | 'destinationUrl' | 'secretSealed' | 'subscriptionId'>,
  sender: HttpSender,
  secrets: SecretBox,
): Promise<{ result: SendResult; attemptedAt: Date }> {
  let secret: string;
  try {
    secret = secrets.open(d.secretSealed, d.subscriptionId);
  } catch {
    return {
      attemptedAt: new Date(),
      result: { ok: false, responseCode: null, responseBody: null, error: 'signing secret could not be unsealed (WEBHOOK_SECRET_KEY changed?)', durationMs: 0 },
    };
  }
  const attemptedAt = new Date();
  const headers = deliveryHeaders({
    secret, deliveryId: d.id, eventName: d.eventName, body: d.body, timestamp: Math.floor(attemptedAt.getTime() / 1000),
  });
  const result = await sender.send(d.destinationUrl, headers, d.body);
  return { result, attemptedAt };
}

/**
 * Claims due deliveries with a lease and sends them, at most `concurrency` at a
 * time and `perDestinationConcurrency` per destination origin, so one slow
 * receiver holds only its own slots. Claims are batched: each origin holds up to
 * three times its slots (in flight plus a short local queue, all under lease), and
 * an origin is refilled from Postgres once a third of that has drained, so the
 * database sees one claim per batch, not one per delivery. New deliveries wake
 * the loop at once. A receiver's failure is recorded as an attempt with a
 * scheduled retry (or a dead letter), never thrown. The schedule lives in
 * Postgres: the loop only looks for what is due, so a restart resumes it.
 */
export function createDeliveryWorker(opts: DeliveryWorkerOptions): DeliveryWorker {
  const { store, sender, secrets, metrics, logger } = opts;
  const clock = opts.clock ?? (() => new Date());
  const recorder = createAttemptRecorder(store);
  const slots = opts.perDestinationConcurrency;
  /** Deliveries an origin may hold (in flight and queued); refilled when down to two thirds. */
  const holdPerOrigin = slots * 3;
  const refillAt = slots * 2;
  const holdTotal = opts.concurrency * 3;
  /** Per destination origin: sends in flight, claimed deliveries waiting, and attempts started but not yet recorded. */
  const origins = new Map<string, { inFlight: number; queue: ClaimedDelivery[]; started: number }>();
  let sending = 0;
  const running = new Set<Promise<void>>();
  let held = 0;
  let nextDue = Infinity;
  let lastDueCheck = 0;
  /**
   * Whether due rows may be waiting that no claim has seen: set by new deliveries left
   * unleased (fan-out over capacity, other replicas' notifications) and by a claim that
   * came back full; cleared by a claim that found less than it could take. While it is
   * clear, freed slots do not send the loop to Postgres for nothing (deliveries handed
   * over by the fan-out need no claim); retries falling due and the poll interval
   * (expired leases) still claim.
   */
  let backlog = true;
  let lastClaim = 0;
  let stopping = false;
  let loop: Promise<void> | undefined;
  // New deliveries, retries due sooner, freed capacity: each ends the loop's idle wait.
  const waker = createWaker();
  const wake = waker.wake;
  /** New due rows exist (inserted unleased here, or notified by another replica). */
  const wakeForBacklog = () => {
    backlog = true;
    wake();
  };
  let listener: pg.Client | undefined;

  const decide = (d: ClaimedDelivery, result: SendResult, attemptedAt: Date): AttemptDecision => {
    if (result.ok) return { kind: 'succeeded' };
    const decision = nextRetry(opts.retry, {
      failedAttempts: d.attempts + 1,
      firstAttemptAt: d.firstAttemptAt ?? attemptedAt,
      now: clock(),
      retryAfterMs: result.retryAfterMs,
    });
    return decision.kind === 'retry' ? { kind: 'retry', at: decision.at } : decision;
  };

  /** Sends, then frees the destination slot (via `sent`) before recording, so recording never holds a connection slot. */
  const handle = async (d: ClaimedDelivery, sent: () => void): Promise<void> => {
    let attempt: Awaited<ReturnType<typeof attemptDelivery>>;
    try {
      attempt = await attemptDelivery(d, sender, secrets);
    } finally {
      sent();
    }
    const { result, attemptedAt } = attempt;
    const decision = decide(d, result, attemptedAt);
    if (decision.kind === 'retry' && decision.at.getTime() < nextDue) {
      // Earlier than anything the loop is sleeping towards: let it re-plan its sleep.
      nextDue = decision.at.getTime();
      wake();
    }
    const outcome = decision.kind === 'succeeded' ? 'succeeded' : decision.kind === 'dead_letter' ? 'dead_letter' : 'failed';
    metrics.attemptDuration.observe({ outcome: result.ok ? 'succeeded' : 'failed' }, result.durationMs / 1000);
    try {
      const kept = await recorder.record({ delivery: d, result, attemptedAt, decision });
      if (!kept) {
        logger.warn({ deliveryId: d.id }, 'lease lost before the attempt was recorded; another replica owns the delivery');
        return;
      }
    } catch (err) {
      // The lease expires and the delivery is attempted again: at least once, same delivery id.
      logger.error({ err, deliveryId: d.id }, 'could not record a delivery attempt');
      return;
    }
    metrics.deliveries.inc({ outcome });
    if (decision.kind === 'dead_letter') {
      metrics.deadLetters.inc();
      logger.warn({ deliveryId: d.id, subscriptionId: d.subscriptionId, attempts: d.attempts + 1, error: result.error }, 'delivery dead-lettered');
    }
  };

  /**
   * What an origin holds against its claim cap: sends in flight and claims waiting. Attempts
   * being recorded do not count (their slot is free, and their lease keeps them from being
   * claimed again), so a slow group commit never throttles sending; `holdTotal` still bounds them.
   */
  const heldBy = (origin: string) => {
    const o = origins.get(origin);
    return o ? o.inFlight + o.queue.length : 0;
  };

  /** Starts queued deliveries while their origin and the replica have free sending slots. */
  const pump = () => {
    for (const [origin, o] of origins) {
      while (!stopping && o.queue.length && o.inFlight < slots && sending < opts.concurrency) {
        const d = o.queue.shift()!;
        o.inFlight++;
        sending++;
        metrics.inFlight.inc();
        let released = false;
        const sent = () => {
          if (released) return;
          released = true;
          o.inFlight--;
          sending--;
          metrics.inFlight.dec();
          pump();
          // Refill from the database once a third of what the origin may hold has drained.
          const h = heldBy(origin);
          if (backlog && (h === refillAt || h === 0)) wake();
        };
        const task: Promise<void> = handle(d, sent)
          .catch((err) => logger.error({ err, deliveryId: d.id }, 'delivery attempt failed unexpectedly'))
          .finally(() => {
            sent();
            o.started = Math.max(0, o.started - 1);
            const wasFull = held >= holdTotal;
            held--;
            running.delete(task);
            if (o.inFlight === 0 && !o.queue.length && !o.started) origins.delete(origin);
            // The replica-wide bound (claims plus attempts being recorded) had stopped claiming.
            if (wasFull && backlog) wake();
          });
        o.started++;
        running.add(task);
      }
    }
  };

  /** Queues claimed (or handed-over) deliveries by origin and starts what the slots allow. */
  const enqueue = (deliveries: ClaimedDelivery[]) => {
    for (const d of deliveries) {
      const o = origins.get(d.destinationOrigin) ?? { inFlight: 0, queue: [], started: 0 };
      o.queue.push(d);
      origins.set(d.destinationOrigin, o);
      held++;
    }
    pump();
  };

  const run = async () => {
    let backoff = 100;
    while (!stopping) {
      waker.clear();
      try {
        const free = holdTotal - held;
        const now = Date.now();
        const worthAsking = backlog || now >= nextDue || now - lastClaim >= opts.pollMs;
        let claimed: ClaimedDelivery[] = [];
        if (free > 0 && worthAsking) {
          const caps = new Map<string, number>();
          for (const origin of origins.keys()) caps.set(origin, Math.max(0, holdPerOrigin - heldBy(origin)));
          // Cleared before the query: a notification arriving during it sets it again.
          backlog = false;
          lastClaim = now;
          const end = metrics.claimDuration.startTimer();
          const result = await store.claim({ limit: free, leaseMs: opts.leaseMs, defaultCap: holdPerOrigin, caps });
          claimed = result.deliveries;
          end();
          metrics.claimed.observe(claimed.length);
          // A full scan window, full for the replica or for an origin, or an origin left out
          // (no room): more may be due behind what was taken.
          const perOrigin = new Map<string, number>();
          for (const d of claimed) perOrigin.set(d.destinationOrigin, (perOrigin.get(d.destinationOrigin) ?? 0) + 1);
          if (
            result.more
            || claimed.length === free
            || [...caps.values()].some((cap) => cap === 0)
            || [...perOrigin].some(([o, n]) => n >= (caps.get(o) ?? holdPerOrigin))
          ) backlog = true;
          enqueue(claimed);
        }
        backoff = 100;
        if (free > 0 && worthAsking && claimed.length === free) continue;
        if (stopping) break;
        // Sleep until the next scheduled attempt, a wake-up, or the poll interval (expired
        // leases, other replicas' retries). The database is asked for the next due time at
        // most once per poll interval; retries scheduled here in between are known locally.
        if (Date.now() - lastDueCheck >= opts.pollMs) {
          nextDue = (await store.nextDueAt())?.getTime() ?? Infinity;
          lastDueCheck = Date.now();
        }
        const untilNext = Math.min(nextDue, lastDueCheck + opts.pollMs, lastClaim + opts.pollMs) - Date.now();
        await waker.sleep(Math.max(1, untilNext));
        if (nextDue <= Date.now()) {
          // A retry has fallen due: claim it.
          nextDue = Infinity;
          backlog = true;
        }
      } catch (err) {
        backlog = true;
        logger.warn({ err }, 'claiming deliveries failed; retrying');
        await waker.sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  };

  const listen = async () => {
    if (!opts.databaseUrl || stopping) return;
    try {
      const client = new pg.Client({ connectionString: opts.databaseUrl });
      client.on('error', () => {
        listener = undefined;
        if (!stopping) setTimeout(() => void listen(), 1000).unref();
      });
      client.on('notification', (n) => {
        if (!opts.instanceId || n.payload !== opts.instanceId) wakeForBacklog();
      });
      await client.connect();
      await client.query(`LISTEN ${DUE_CHANNEL}`);
      listener = client;
      if (stopping) await client.end().catch(() => {});
    } catch (err) {
      logger.warn({ err }, 'LISTEN for due deliveries failed; polling only');
    }
  };

  return {
    start() {
      void listen();
      loop = run();
    },
    wake: wakeForBacklog,
    inFlight: () => sending,
    capacity(origin) {
      if (stopping) return 0;
      return Math.max(0, Math.min(holdPerOrigin - heldBy(origin), holdTotal - held));
    },
    accept(deliveries) {
      if (stopping) {
        // Too late to send here: hand the leases back so another replica sends them now.
        void store.release(deliveries).catch((err) => logger.warn({ err }, 'could not release leases; they expire'));
        return;
      }
      metrics.handedOff.inc(deliveries.length);
      enqueue(deliveries);
    },
    async stop() {
      stopping = true;
      waker.stop();
      await loop;
      // Queued but not started: hand the leases back so another replica sends them now.
      const queued = [...origins.values()].flatMap((o) => o.queue.splice(0));
      held -= queued.length;
      await store.release(queued).catch((err) => logger.warn({ err }, 'could not release leases; they expire'));
      await Promise.allSettled([...running]);
      await listener?.end().catch(() => {});
    },
  };
}
