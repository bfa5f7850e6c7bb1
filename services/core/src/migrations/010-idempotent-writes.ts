import { createIdempotencyKeysTable, type Knex, type Migration } from '@cluster/db';

/**
 * Idempotency-Keys recorded by the write's own transaction (docs/decisions-api.md, "How a key holds
 * under every fault"), in `core.idempotency_records` as every backend keeps them in its schema. The
 * gateway's old records (`core.idempotency_keys`, taken, completed and released by three calls) stay
 * while a release runs beside the one before it: old core pods still serve old gateways from them
 * during the roll (migrations are expand-only, docs/deploy.md). A later release drops that table.
 */
export const idempotentWrites: Migration = {
  name: '010-idempotent-writes',
  async up(knex: Knex) {
    await createIdempotencyKeysTable(knex, 'core');
  },
};
