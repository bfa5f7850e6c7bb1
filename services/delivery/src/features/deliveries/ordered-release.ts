import type { PeriodicJobDefinition } from '@cluster/platform';
import type { DeliveryQueueStore } from './queue-store.ts';

/**
 * Every replica makes due, every `intervalMs`, the waiting ordered deliveries whose turn a race with
 * the fan-out missed (queue-store.ts, releaseWaiting: the safety net of ORDER_RELEASE).
 */
export function orderedReleaseJob(queue: Pick<DeliveryQueueStore, 'releaseWaiting'>, intervalMs: number): PeriodicJobDefinition {
  return {
    name: 'ordered_release',
    what: 'release of waiting ordered deliveries',
    intervalMs,
    run: () => queue.releaseWaiting(),
  };
}
