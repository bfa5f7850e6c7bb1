import type { Knex, Migration } from '@cluster/db';

/** Trace headers on outbox rows (databases created before createOutboxTable had them). */
export const outboxHeaders: Migration = {
  name: '006-outbox-headers',
  async up(knex: Knex) {
    await knex.raw('ALTER TABLE outbox ADD COLUMN IF NOT EXISTS headers jsonb');
  },
};
