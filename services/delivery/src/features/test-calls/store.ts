import type { Knex } from '@cluster/db';

/**
 * The calls of POST /webhooks/:id/test per organization, over a rolling window:
 * all SQL of the feature. Counted in Postgres, so the limit holds across replicas.
 */
export interface TestCallStore {
  /** Serialises the organization's test calls until the transaction ends (use in `Stores.transaction`). */
  lock(organizationId: string): Promise<void>;
  /** Forgets the organization's calls made at or before `before`. */
  prune(organizationId: string, before: Date): Promise<void>;
  /** When the organization's calls after `after` were made, oldest first. */
  madeAfter(organizationId: string, after: Date): Promise<Date[]>;
  add(organizationId: string, calledAt: Date): Promise<void>;
}

/** The knex implementation of TestCallStore. */
export function createTestCallStore(db: Knex): TestCallStore {
  return {
    async lock(organizationId) {
      await db.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`webhook-test:${organizationId}`]);
    },
    async prune(organizationId, before) {
      await db('delivery.test_calls').where({ organizationId }).andWhere('calledAt', '<=', before).del();
    },
    async madeAfter(organizationId, after) {
      const calls: { calledAt: Date }[] = await db('delivery.test_calls')
        .where({ organizationId })
        .andWhere('calledAt', '>', after)
        .orderBy('calledAt', 'asc')
        .select('calledAt');
      return calls.map((c) => c.calledAt);
    },
    async add(organizationId, calledAt) {
      await db('delivery.test_calls').insert({ organizationId, calledAt });
    },
  };
}
