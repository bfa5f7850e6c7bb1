import { DomainError } from '@cluster/platform';
import type { Stores } from '../../stores.ts';

const HOUR_MS = 3_600_000;

/**
 * The budget of calls that make the service send on demand (test calls, redeliveries, recoveries):
 * `limitPerHour` per organization over a rolling hour, counted in Postgres so that it holds across
 * replicas. The returned function counts one call, or throws 429 with `retryAfter` when the
 * organization has used its calls.
 */
export function createCallLimit(stores: Stores, opts: { limitPerHour: number; clock?: () => Date }) {
  const clock = opts.clock ?? (() => new Date());
  return async function countCall(organizationId: string): Promise<void> {
    const now = clock();
    const windowStart = new Date(now.getTime() - HOUR_MS);
    await stores.transaction(async (tx) => {
      await tx.testCalls.lock(organizationId);
      await tx.testCalls.prune(organizationId, windowStart);
      const calls = await tx.testCalls.madeAfter(organizationId, windowStart);
      if (calls.length >= opts.limitPerHour) {
        const frees = new Date(calls[calls.length - opts.limitPerHour]).getTime() + HOUR_MS;
        const retryAfter = Math.max(1, Math.ceil((frees - now.getTime()) / 1000));
        throw new DomainError(
          'rate_limit',
          `at most ${opts.limitPerHour} test deliveries, redeliveries and recoveries per organization per hour`,
          { retryAfter },
        );
      }
      await tx.testCalls.add(organizationId, now);
    });
  };
}
