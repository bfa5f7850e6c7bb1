import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 spins a 1 ms timer on every broker connection for as long as it
 * is open: `checkPendingRequests` always reschedules itself, with a negative
 * delay when nothing is pending and nothing is throttled (kafkajs issues #1556,
 * #1704; fix proposed in PR #1667, unreleased). Measured here: 30-40 ms of CPU
 * per second per idle service, and timers interleaved with every request under
 * load. This applies the proposed fix: with nothing pending and no throttle in
 * effect, no check is scheduled. (A request that cannot be sent at once is
 * queued by `push`, which schedules its own check, and every answer checks the
 * queue, so nothing waits on the removed timer.)
 */
interface RequestQueueInternals {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

const CHECK_PENDING_REQUESTS_INTERVAL = 10; // kafkajs's own constant

const require = createRequire(import.meta.url);
const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as { prototype: RequestQueueInternals };

export function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
  let scheduleAt = this.throttledUntil - Date.now();
  if (this.throttleCheckTimeoutId) return;
  if (this.pending.length > 0) scheduleAt = scheduleAt > 0 ? scheduleAt : CHECK_PENDING_REQUESTS_INTERVAL;
  else if (scheduleAt <= 0) return;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, scheduleAt);
}

RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;

/** The queue class kafkajs uses (for tests). */
export const KafkaRequestQueue = RequestQueue as unknown as new (opts: Record<string, unknown>) => RequestQueueInternals;
