import { createIdempotencyKeysTable, type Knex, type Migration } from '@cluster/db';

/** Idempotency-Keys recorded by the write's own transaction (docs/decisions-api.md, "How a key holds under every fault"). */
export const idempotencyKeys: Migration = {
  name: '010-idempotency-keys',
  async up(knex: Knex) {
    await createIdempotencyKeysTable(knex, 'delivery');
  },
};
