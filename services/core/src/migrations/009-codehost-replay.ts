import type { Knex, Migration } from '@cluster/db';

/**
 * Replay-proof code-host ingestion (docs/codehost.md, "Order and repeats"; issue 30):
 * - `codehost_deliveries.bodyDigest`, the SHA-256 of the signed body bytes, unique per organization
 *   and provider: a signed body re-sent under a new (unsigned) X-GitHub-Delivery id is a duplicate.
 *   It lives in the delivery's row, so the sweep forgets it with the delivery id. Rows from before
 *   this migration have none (NULLs never collide).
 * - `sourceUpdatedAt` of pull requests and CI runs: the payload's own time of the state stored
 *   (a pull request's `updated_at`; a workflow run's `updated_at`, a check run's `completed_at` or
 *   `started_at`), so a delivery older than what is stored changes nothing, whatever its arrival.
 *   NULL for rows from before: any delivery with a time is newer than them.
 */
export const codehostReplay: Migration = {
  name: '009-codehost-replay',
  async up(knex: Knex) {
    await knex.schema.alterTable('codehost_deliveries', (t) => {
      t.text('bodyDigest');
      t.unique(['organizationId', 'provider', 'bodyDigest']);
    });
    for (const table of ['code_pull_requests', 'code_ci_runs']) {
      await knex.schema.alterTable(table, (t) => {
        t.timestamp('sourceUpdatedAt', { useTz: true });
      });
    }
  },
};
