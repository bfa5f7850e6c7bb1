import type { Knex, Migration } from '@cluster/db';

/**
 * Finding what did not arrive (docs/webhooks.md): the organization-wide delivery search by status and the
 * undelivered summary read the deliveries that are `pending`, `failed` or `dead_letter`, newest first.
 * A partial index holds those rows only, so a delivery that succeeds at its first attempt leaves it at
 * once (the outcome's update is a normal one already: it clears `nextAttemptAt`), and its cost is one
 * index entry at the fan-out's insert and one per failed attempt. Measured in bench/README.md, "Delivery
 * search and the undelivered summary". Built in the migration's transaction: the sender's writes wait
 * for the build, one scan of the table (9 s at a million rows on a busy machine).
 */
export const undeliveredIndex: Migration = {
  name: '012-undelivered-index',
  async up(knex: Knex) {
    await knex.raw(`
      CREATE INDEX IF NOT EXISTS deliveries_undelivered
        ON delivery.deliveries ("organizationId", status, "createdAt", id)
        WHERE status IN ('pending', 'failed', 'dead_letter')`);
  },
};
