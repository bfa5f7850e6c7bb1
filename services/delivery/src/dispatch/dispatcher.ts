import type { DbTimeouts } from '@cluster/db';
import { createWaker, type Logger, type SecretBox } from '@cluster/platform';
import type { RetryPolicy } from '../features/attempts/backoff.ts';
import { createAttemptRecorder } from '../features/attempts/recorder.ts';
import { recordAttemptOutcome } from '../features/attempts/outcome.ts';
import { decideNextStep } from '../features/attempts/service.ts';
import type { AttemptStore } from '../features/attempts/store.ts';
import type { ClaimedDelivery, DeliveryQueueStore } from '../features/deliveries/queue-store.ts';
import type { DeliveryMetrics } from '../metrics.ts';
import { attemptDelivery } from '../sender/attempt-delivery.ts';
import type { DeliverySender } from '../sender/destination.ts';
import { createDueListener } from './due-listener.ts';
import { firstAttemptDelaySeconds } from './first-attempt-delay.ts';
import { createOriginScheduler } from './origin-scheduler.ts';

/** What the delivery loop is made of. */
export interface DispatcherOptions {
  /** Claims, releases and the next due time. */
  deliveries: DeliveryQueueStore;
  /** Where attempts are recorded. */
  attempts: AttemptStore;
  sender: DeliverySender;
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
  /** Bounds of the LISTEN connection's waits (DB_STATEMENT_TIMEOUT_MS, DB_ACQUIRE_TIMEOUT_MS): createDueListener. */
  dbTimeouts?: DbTimeouts;
  /** Notifications carrying this id come from this process, which wakes its loop directly. */
  instanceId?: string;
  /** Called on every due notification, this process's own included (the listeners' streams: features/listen). */
  onNotified?: () => void;
  /** Disables a subscription whose endpoint answered 410 Gone (subscriptions/health.ts). */
  onGone?: (subscriptionId: string) => Promise<boolean>;
  clock?: () => Date;
}

/** The delivery loop of one replica. */
export interface Dispatcher {
  start(): void;
  /** Wakes the loop now (new deliveries were inserted). */
  wake(): void;
  /** How many more deliveries to this origin the loop would hold now (for the fan-out's handoff). */
  capacity(origin: string): number;
  /** Takes deliveries already leased to this replica (inserted so by the fan-out) and sends them. */
  accept(deliveries: ClaimedDelivery[]): void;
  /** Stops claiming, waits for attempts in flight to be recorded. */
  stop(): Promise<void>;
  /** Attempts in flight now. */
  inFlight(): number;
}

/**
 * The delivery loop: claims due deliveries with a lease and sends them, as the
 * per-origin scheduler (origin-scheduler.ts) allows, woken by new deliveries (the
 * fan-out, or other replicas through the due listener) and by retries falling due.
 * Each attempt is signed and sent (DeliverySender: HTTP or a broker destination), decided (succeeded, retry, dead
 * letter: features/attempts) and recorded in batches (features/attempts/outcome.ts). A receiver's failure is
 * recorded as an attempt with a scheduled retry (or a dead letter), never thrown.
 * The schedule lives in Postgres: the loop only looks for what is due, so a
 * restart resumes it.
 */
export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  const { deliveries, sender, secrets, metrics, logger } = opts;
  const clock = opts.clock ?? (() => new Date());
  const recorder = createAttemptRecorder(opts.attempts);
  const outcomePorts = { record: recorder.record, metrics, logger, onGone: opts.onGone };
  const scheduler = createOriginScheduler<ClaimedDelivery>({
    concurrency: opts.concurrency,
    perOrigin: opts.perDestinationConcurrency,
    pollMs: opts.pollMs,
  });
  const running = new Set<Promise<void>>();
  /** Subscriptions this replica saw a receiver pause (429/503 with Retry-After), until when (ms). */
  const paused = new Map<string, number>();
  /** The timer that sends the next delivery held for its rate slot. */
  let timedTimer: NodeJS.Timeout | undefined;
  let timedAt = Infinity;
  let stopping = false;
  let loop: Promise<void> | undefined;
  // New deliveries, retries due sooner, freed capacity: each ends the loop's idle wait.
  const waker = createWaker();
  const wake = waker.wake;
  /** New due rows exist (inserted unleased here, or notified by another replica). */
  const wakeForBacklog = () => {
    scheduler.markBacklog();
    wake();
  };
  const listener = opts.databaseUrl
    ? createDueListener({
        databaseUrl: opts.databaseUrl,
        timeouts: opts.dbTimeouts,
        instanceId: opts.instanceId,
        logger,
        onDue: wakeForBacklog,
        onNotification: opts.onNotified,
      })
    : undefined;

  /** Sends, then frees the destination slot (via `sent`) before recording, so recording never holds a connection slot. */
  const handle = async (d: ClaimedDelivery, sent: () => void): Promise<void> => {
    const pausedUntil = paused.get(d.subscriptionId);
    if (pausedUntil !== undefined && pausedUntil > Date.now()) {
      // Claimed before its receiver asked for a pause: not sent. Its lease goes back, and the claim leaves it
      // until the pause ends (the subscription's pausedUntil).
      sent();
      await deliveries.release([d]).catch((err) => logger.warn({ err }, 'could not release a lease; it expires'));
      return;
    }
    let attempt: Awaited<ReturnType<typeof attemptDelivery>>;
    try {
      attempt = await attemptDelivery(d, sender, secrets);
    } finally {
      sent();
    }
    const { result, attemptedAt } = attempt;
    if (d.attempts === 0) {
      // The webhook delivery SLO: how long after the event its first attempt went out (whatever the receiver said).
      const delay = firstAttemptDelaySeconds(d.body, attemptedAt);
      if (delay !== undefined) metrics.firstAttemptDelay.observe(delay);
    }
    const decision = decideNextStep(opts.retry, d, result, attemptedAt, clock());
    if (decision.kind === 'paused') {
      paused.set(d.subscriptionId, decision.until.getTime());
      metrics.throttled.inc({ reason: 'retry_after' });
    }
    // Earlier than anything the loop is sleeping towards: let it re-plan its sleep.
    if ((decision.kind === 'retry' || decision.kind === 'paused') && scheduler.retryAt(decision.at.getTime())) wake();
    let kept: boolean;
    try {
      kept = await recordAttemptOutcome(outcomePorts, { delivery: d, result, attemptedAt, decision });
    } catch (err) {
      // The lease expires and the delivery is attempted again: at least once, same delivery id.
      logger.error({ err, deliveryId: d.id }, 'could not record a delivery attempt');
      return;
    }
    // An ordered delivery that ended made the next one of its key due: look now, not at the next poll.
    if (kept && d.orderKey && decision.kind !== 'retry' && decision.kind !== 'paused') {
      // Its record's release could not see a next one the fan-out was inserting at that moment; this
      // statement, after the commit, can (the fan-out does the same after its insert): docs/decisions-webhooks.md, "Ordering is a chain".
      await deliveries
        .releaseWaiting([{ subscriptionId: d.subscriptionId, orderKey: d.orderKey }])
        .catch((err) => logger.warn({ err }, 'could not release the next ordered delivery; the sweep will'));
      wakeForBacklog();
    }
  };

  /** Starts one delivery the scheduler let go: its slot is freed once sent, its hold once recorded. */
  const start = (d: ClaimedDelivery) => {
    const origin = d.destinationOrigin;
    metrics.inFlight.inc();
    let released = false;
    const sent = () => {
      if (released) return;
      released = true;
      // Refill from the database once a third of what the origin may hold has drained.
      const refill = scheduler.sent(origin);
      metrics.inFlight.dec();
      pump();
      if (refill) wake();
    };
    const task: Promise<void> = handle(d, sent)
      .catch((err) => logger.error({ err, deliveryId: d.id }, 'delivery attempt failed unexpectedly'))
      .finally(() => {
        sent();
        running.delete(task);
        // The replica-wide bound (claims plus attempts being recorded) had stopped claiming.
        if (scheduler.finished(origin)) wake();
      });
    running.add(task);
  };

  /** Starts queued deliveries while their origin and the replica have free sending slots. */
  const pump = () => {
    if (stopping) return;
    for (const d of scheduler.takeSendable()) start(d);
    armTimed();
  };

  /** Wakes `pump` when the earliest delivery held for its rate slot may go. */
  const armTimed = () => {
    const at = scheduler.nextTimedAt();
    if (at === Infinity || at >= timedAt) return;
    clearTimeout(timedTimer);
    timedAt = at;
    timedTimer = setTimeout(
      () => {
        timedAt = Infinity;
        timedTimer = undefined;
        pump();
      },
      Math.max(0, at - Date.now()),
    );
  };

  /** Queues claimed (or handed-over) deliveries by origin and starts what the slots allow. */
  const enqueue = (claimed: ClaimedDelivery[]) => {
    const now = Date.now();
    const waiting = claimed.filter((d) => d.notBefore && new Date(d.notBefore).getTime() > now).length;
    if (waiting) metrics.throttled.inc({ reason: 'rate_limit' }, waiting);
    // Forget pauses that ended (the map stays as small as the subscriptions paused lately).
    for (const [id, until] of paused) if (until <= now) paused.delete(id);
    scheduler.add(claimed);
    pump();
  };

  const run = async () => {
    let backoff = 100;
    while (!stopping) {
      waker.clear();
      try {
        const room = scheduler.beginClaim();
        let claimed: ClaimedDelivery[] = [];
        if (room) {
          const end = metrics.claimDuration.startTimer();
          const result = await deliveries.claim({
            limit: room.limit,
            leaseMs: opts.leaseMs,
            defaultCap: room.defaultCap,
            caps: room.caps,
          });
          claimed = result.deliveries;
          end();
          metrics.claimed.observe(claimed.length);
          scheduler.claimed(room, claimed, result.more);
          // A rate-limited subscription's last slot given: claim again then (its next slots are free from there).
          const lastSlot = Math.max(...claimed.map((d) => (d.notBefore ? new Date(d.notBefore).getTime() : 0)), 0);
          if (lastSlot > Date.now()) scheduler.retryAt(lastSlot);
          enqueue(claimed);
        }
        backoff = 100;
        if (room && claimed.length === room.limit) continue;
        if (stopping) break;
        // Sleep until the next scheduled attempt, a wake-up, or the poll interval (expired
        // leases, other replicas' retries). The database is asked for the next due time at
        // most once per poll interval; retries scheduled here in between are known locally.
        if (scheduler.dueCheckDue()) scheduler.dueChecked((await deliveries.nextDueAt())?.getTime() ?? Infinity);
        await waker.sleep(scheduler.sleepMs());
        scheduler.woke();
      } catch (err) {
        scheduler.markBacklog();
        logger.warn({ err }, 'claiming deliveries failed; retrying');
        await waker.sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  };

  return {
    start() {
      listener?.start();
      loop = run();
    },
    wake: wakeForBacklog,
    inFlight: () => scheduler.sending(),
    capacity(origin) {
      if (stopping) return 0;
      return scheduler.capacity(origin);
    },
    accept(handed) {
      if (stopping) {
        // Too late to send here: hand the leases back so another replica sends them now.
        void deliveries.release(handed).catch((err) => logger.warn({ err }, 'could not release leases; they expire'));
        return;
      }
      metrics.handedOff.inc(handed.length);
      enqueue(handed);
    },
    async stop() {
      stopping = true;
      clearTimeout(timedTimer);
      waker.stop();
      await loop;
      // Queued but not started: hand the leases back so another replica sends them now.
      await deliveries.release(scheduler.drain()).catch((err) => logger.warn({ err }, 'could not release leases; they expire'));
      await Promise.allSettled([...running]);
      await listener?.stop();
    },
  };
}
