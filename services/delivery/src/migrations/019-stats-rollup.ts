import type { Knex, Migration } from '@cluster/db';
import { ROLLUP_UPSERT, SCAN_DELTAS } from '../features/deliveries/stats-rollup.ts';

/**
 * The hourly statistics rollup (docs/decisions-webhooks.md, "Statistics from an hourly rollup";
 * features/deliveries/stats-rollup.ts): `stats_hourly`, one row per subscription and hour, with the
 * deliveries created in the hour by their status now and the attempts made in it (counts, pauses, the last
 * success and failure, a histogram of durations over fixed buckets), written by the statements that insert
 * deliveries, record attempts and stop retries, in the same statement. No foreign key (like
 * `filtered_counts`): a key check on every insert for rows the retention sweep deletes after the longest
 * statistics window anyway. Half-empty pages: the upserts change no indexed column, so they are HOT updates.
 *
 * Two functions build and add the histograms: `stats_histogram` (1-based bucket positions -> counts per
 * position, as long as the highest one) and `stats_histogram_add` (element-wise, the longer length).
 *
 * Backfill: the hours of the longest statistics window and one more (8 days), from a scan of the
 * deliveries created since then and of the attempts made since then of deliveries created up to a day
 * before (the retry period), in the migration's transaction (one scan of the table's last 9 days).
 */
export const statsRollup: Migration = {
  name: '019-stats-rollup',
  async up(knex: Knex) {
    await knex.raw(`CREATE TABLE IF NOT EXISTS delivery.stats_hourly (
      "subscriptionId" uuid NOT NULL,
      hour timestamptz NOT NULL,
      pending integer NOT NULL DEFAULT 0,
      succeeded integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      dead_letter integer NOT NULL DEFAULT 0,
      attempts integer NOT NULL DEFAULT 0,
      "attemptsSucceeded" integer NOT NULL DEFAULT 0,
      pauses integer NOT NULL DEFAULT 0,
      "pausedMs" bigint NOT NULL DEFAULT 0,
      "lastSuccessAt" timestamptz,
      "lastFailureAt" timestamptz,
      durations integer[] NOT NULL DEFAULT '{}',
      PRIMARY KEY ("subscriptionId", hour)
    ) WITH (fillfactor = 50)`);
    await knex.raw(`CREATE OR REPLACE FUNCTION delivery.stats_histogram(positions integer[]) RETURNS integer[]
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT COALESCE(array_agg(COALESCE(c.n, 0) ORDER BY g.i), '{}')
          FROM generate_series(1, COALESCE((SELECT max(p) FROM unnest(positions) AS p), 0)) AS g(i)
          LEFT JOIN (SELECT p, count(*)::int AS n FROM unnest(positions) AS p GROUP BY p) c ON c.p = g.i
      $$`);
    await knex.raw(`CREATE OR REPLACE FUNCTION delivery.stats_histogram_add(a integer[], b integer[]) RETURNS integer[]
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT COALESCE(array_agg(COALESCE(x, 0) + COALESCE(y, 0) ORDER BY n), '{}')
          FROM unnest(a, b) WITH ORDINALITY AS u(x, y, n)
      $$`);
    const from = new Date(Date.now() - 8 * 86_400_000);
    await knex.raw(ROLLUP_UPSERT(SCAN_DELTAS(false)), [from, from, from]);
  },
};
