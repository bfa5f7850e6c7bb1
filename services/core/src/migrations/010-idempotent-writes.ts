import { createIdempotencyKeysTable, type Knex, type Migration } from '@cluster/db';

/**
 * Idempotency-Keys recorded by the write's own transaction (docs/decisions-api.md, "How a key holds
 * under every fault"): the gateway's records (taken, completed and released by three calls) give way
 * to the table every backend keeps in its schema. The old records are dropped: a retry under one of
 * their keys runs again, which is what a retry of a request that never reached a backend does.
 */
export const idempotentWrites: Migration = {
  name: '010-idempotent-writes',
  async up(knex: Knex) {
    await knex.schema.withSchema('core').dropTableIfExists('idempotency_keys');
    await createIdempotencyKeysTable(knex, 'core');
  },
};
