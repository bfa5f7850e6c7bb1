import type { Knex, Migration } from '@cluster/db';

/** How far back (days) the migration makes weekly partitions at most; older rows go to one archive partition. */
const WEEKLY_BEHIND_DAYS = 45;
/** Days ahead of today whose (weekly) partitions exist: the service's partition job keeps them (features/deliveries/retention.ts). */
export const PARTITIONS_AHEAD_DAYS = 7;

/**
 * What a delivery still needs (never dropped with its partition; docs/decisions-webhooks.md, "Partitioned
 * delivery log"): an attempt scheduled, a live lease, or an ordered delivery waiting for its turn.
 */
export const UNFINISHED_ROW = `("nextAttemptAt" IS NOT NULL OR COALESCE("lockedUntil" > now(), false) OR (status = 'pending' AND "orderKey" IS NOT NULL AND NOT test))`;

/**
 * The unfinished deliveries of the week [lo, hi) being dropped, as rows `x` of delivery.deliveries, found
 * through its partial indexes (deliveries_due, deliveries_ordered) rather than by a scan of the week, which
 * would hold the drop's exclusive lock for seconds (5 s for a week of 2.3 million rows: bench/README.md). A
 * finished delivery under a live lease (a redelivery in flight) is not among them: no index holds it, and its
 * record finds the row gone (the redelivery answers 404).
 */
const KEPT_ROWS = `SELECT x FROM delivery.deliveries x WHERE x."createdAt" >= lo AND x."createdAt" < hi AND x."nextAttemptAt" IS NOT NULL
  UNION ALL SELECT x FROM delivery.deliveries x WHERE x."createdAt" >= lo AND x."createdAt" < hi
    AND x."orderKey" IS NOT NULL AND x."nextAttemptAt" IS NULL AND x.status = 'pending' AND NOT x.test`;

/**
 * The partitioned delivery log (docs/decisions-webhooks.md, "Partitioned delivery log"): `deliveries` is
 * range-partitioned by week (Monday to Monday, UTC) on `createdAt`, which the fan-out now sets to the domain event's `occurredAt`
 * (deterministic for an (event, subscription) pair, so the primary key (id, createdAt) keeps the fan-out
 * idempotent across re-reads and replicas); `attempts` by the same weeks on `deliveryCreatedAt`, its
 * delivery's `createdAt`, so a week's attempts sit in the partition of the same week and go with it.
 *
 * - Existing rows are copied; an event delivery's `createdAt` becomes its body's `occurredAt` (what a fan-out
 *   of the same event after this migration computes), so an event read again across the upgrade finds its row.
 * - Weekly partitions from the oldest week with rows (at most WEEKLY_BEHIND_DAYS back; older rows in one
 *   `_archive` partition) to PARTITIONS_AHEAD_DAYS ahead, and a `_default` partition of each table, so an
 *   insert never fails for lack of a partition (an event from before the oldest partition, or far ahead).
 * - The attempts' foreign key becomes two triggers (`delivery_attempts_follow`): a deleted delivery deletes
 *   its attempts (the cascade), and a delivery whose `createdAt` changes takes its attempts along. A foreign
 *   key to a partitioned table would make every partition drop a detach that validates the attempts under
 *   an exclusive lock on the table, and DETACH CONCURRENTLY is refused beside a default partition.
 * - The service's role creates and drops partitions only through two SECURITY DEFINER functions of the
 *   owner (delivery_partition_create, delivery_partition_drop), each under an advisory lock: it keeps no DDL right.
 *
 * Not expand-only: a replica of the release before fails its fan-out insert (ON CONFLICT (id) has no unique
 * index left to match) until it is replaced; the Kafka messages it could not fan out are read again by the
 * new release, nothing is lost. One transaction, which copies both tables (measured in bench/README.md,
 * "Partitioned delivery log").
 */
export const partitionedDeliveries: Migration = {
  name: '018-partitioned-deliveries',
  async up(knex: Knex) {
    await knex.raw('ALTER TABLE delivery.attempts DROP CONSTRAINT IF EXISTS attempts_deliveryid_foreign');
    await knex.raw('ALTER SEQUENCE delivery.attempts_seq_seq OWNED BY NONE');
    await knex.raw('ALTER TABLE delivery.attempts RENAME TO attempts_unpartitioned');
    await knex.raw('ALTER TABLE delivery.deliveries RENAME TO deliveries_unpartitioned');
    await knex.raw(
      `CREATE TABLE delivery.deliveries (LIKE delivery.deliveries_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE ("createdAt")`,
    );
    await knex.raw(`CREATE TABLE delivery.attempts (LIKE delivery.attempts_unpartitioned INCLUDING DEFAULTS,
      "deliveryCreatedAt" timestamptz NOT NULL) PARTITION BY RANGE ("deliveryCreatedAt")`);
    // Half-empty pages as before (migration 003): a claim's update stays heap-only. Set per partition.
    await knex.raw('CREATE TABLE delivery.deliveries_default PARTITION OF delivery.deliveries DEFAULT WITH (fillfactor = 50)');
    await knex.raw('CREATE TABLE delivery.attempts_default PARTITION OF delivery.attempts DEFAULT');

    // The partitions of both tables for the week (Monday 00:00 UTC to the next) of a day, attached (SHARE UPDATE
    // EXCLUSIVE on the parent: the service's reads and writes go on); rows the default partitions took for it move in.
    await knex.raw(`
      CREATE FUNCTION delivery.delivery_partition_create(p_day date, p_lock_timeout_ms int DEFAULT 2000) RETURNS boolean
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
      DECLARE
        monday date := date_trunc('week', p_day::timestamp)::date;
        lo timestamptz := monday::timestamp AT TIME ZONE 'UTC';
        hi timestamptz := (monday + 7)::timestamp AT TIME ZONE 'UTC';
        d text := 'deliveries_p' || to_char(monday, 'YYYYMMDD');
        a text := 'attempts_p' || to_char(monday, 'YYYYMMDD');
        strays boolean;
        md delivery.deliveries[];
        ma delivery.attempts[];
      BEGIN
        PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
        PERFORM pg_advisory_xact_lock(hashtext('delivery-partitions'));
        IF to_regclass('delivery.' || d) IS NOT NULL THEN RETURN false; END IF;
        strays := EXISTS (SELECT 1 FROM delivery.deliveries_default WHERE "createdAt" >= lo AND "createdAt" < hi)
               OR EXISTS (SELECT 1 FROM delivery.attempts_default WHERE "deliveryCreatedAt" >= lo AND "deliveryCreatedAt" < hi);
        IF strays THEN
          -- Held in variables (no temporary table: a hardened database refuses TEMP). Attempts first: deleting
          -- their deliveries would delete them (delivery_attempts_follow).
          WITH m AS (DELETE FROM delivery.attempts y WHERE y."deliveryCreatedAt" >= lo AND y."deliveryCreatedAt" < hi RETURNING y)
          SELECT array_agg(m.y) INTO ma FROM m;
          WITH m AS (DELETE FROM delivery.deliveries x WHERE x."createdAt" >= lo AND x."createdAt" < hi RETURNING x)
          SELECT array_agg(m.x) INTO md FROM m;
        END IF;
        EXECUTE format('CREATE TABLE delivery.%I (LIKE delivery.deliveries INCLUDING DEFAULTS) WITH (fillfactor = 50)', d);
        EXECUTE format('ALTER TABLE delivery.deliveries ATTACH PARTITION delivery.%I FOR VALUES FROM (%L) TO (%L)', d, lo, hi);
        EXECUTE format('CREATE TABLE delivery.%I (LIKE delivery.attempts INCLUDING DEFAULTS)', a);
        EXECUTE format('ALTER TABLE delivery.attempts ATTACH PARTITION delivery.%I FOR VALUES FROM (%L) TO (%L)', a, lo, hi);
        IF md IS NOT NULL THEN INSERT INTO delivery.deliveries SELECT * FROM unnest(md); END IF;
        IF ma IS NOT NULL THEN INSERT INTO delivery.attempts SELECT * FROM unnest(ma); END IF;
        RETURN true;
      END $fn$`);

    // Drops a partition of both tables (`p20261123`, named by its Monday, or `archive`) whose rows the caller found expired. Its
    // unfinished deliveries (KEPT_ROWS) and their attempts move to the default partitions first, when
    // there are at most p_max_kept of them; more, and nothing is dropped (-1). Returns the rows moved.
    await knex.raw(`
      CREATE FUNCTION delivery.delivery_partition_drop(p_suffix text, p_max_kept int, p_lock_timeout_ms int DEFAULT 2000) RETURNS int
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
      DECLARE
        d text := 'deliveries_' || p_suffix;
        a text := 'attempts_' || p_suffix;
        kept int;
        bound text;
        lo timestamptz;
        hi timestamptz;
        kd delivery.deliveries[];
        ka delivery.attempts[];
      BEGIN
        IF p_suffix !~ '^(p[0-9]{8}|archive)$' THEN RAISE EXCEPTION 'not a delivery partition: %', p_suffix; END IF;
        PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
        PERFORM pg_advisory_xact_lock(hashtext('delivery-partitions'));
        IF to_regclass('delivery.' || d) IS NULL THEN RETURN 0; END IF;
        -- Its bounds, as Postgres prints them: FOR VALUES FROM ('...' | MINVALUE) TO ('...').
        SELECT pg_get_expr(relpartbound, oid) INTO bound FROM pg_class WHERE oid = to_regclass('delivery.' || d);
        lo := COALESCE(substring(bound from 'FROM \\(''([^'']+)''\\)')::timestamptz, '-infinity');
        hi := substring(bound from 'TO \\(''([^'']+)''\\)')::timestamptz;
        -- Counted before any lock beyond a read's: a partition with too much still to do is left alone.
        SELECT count(*) INTO kept FROM (${KEPT_ROWS} LIMIT p_max_kept + 1) s;
        IF kept > p_max_kept THEN RETURN -1; END IF;
        -- DROP of a partition locks its table exclusively: taken here, in the order the service's statements
        -- take them (deliveries, then attempts), and given up after lock_timeout (the next sweep tries again).
        LOCK TABLE delivery.deliveries, delivery.attempts IN ACCESS EXCLUSIVE MODE;
        -- Held in variables (no temporary table: a hardened database refuses TEMP).
        SELECT array_agg(s.x) INTO kd FROM (${KEPT_ROWS}) s;
        SELECT array_agg(y) INTO ka FROM delivery.attempts y
         WHERE y."deliveryCreatedAt" >= lo AND y."deliveryCreatedAt" < hi
           AND (y."deliveryId", y."deliveryCreatedAt") IN (SELECT k.id, k."createdAt" FROM unnest(kd) k);
        EXECUTE format('DROP TABLE delivery.%I', a);
        EXECUTE format('DROP TABLE delivery.%I', d);
        -- The week has no partition now: its kept rows land in the default partitions.
        IF kd IS NOT NULL THEN INSERT INTO delivery.deliveries SELECT * FROM unnest(kd); END IF;
        IF ka IS NOT NULL THEN INSERT INTO delivery.attempts SELECT * FROM unnest(ka); END IF;
        kept := COALESCE(array_length(kd, 1), 0);
        RETURN kept;
      END $fn$`);
    await knex.raw('REVOKE ALL ON FUNCTION delivery.delivery_partition_create(date, int) FROM PUBLIC');
    await knex.raw('REVOKE ALL ON FUNCTION delivery.delivery_partition_drop(text, int, int) FROM PUBLIC');

    // The old rows: an event delivery's createdAt becomes its event's occurredAt (the envelope's, first in the body).
    const columns = (
      await knex.raw<{ rows: { name: string }[] }>(
        `SELECT attname AS name FROM pg_attribute
          WHERE attrelid = 'delivery.deliveries'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      )
    ).rows.map((r) => r.name);
    const occurredAt = `substring(body from '"occurredAt":"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9]{2}:[0-9]{2}))"')`;
    const createdAt = `CASE WHEN "eventId" IS NOT NULL AND ${occurredAt} IS NOT NULL THEN ${occurredAt}::timestamptz ELSE "createdAt" END`;
    const list = columns.map((c) => `"${c}"`).join(', ');
    const values = columns.map((c) => (c === 'createdAt' ? `${createdAt} AS "createdAt"` : `"${c}"`)).join(', ');
    const {
      rows: [span],
    } = await knex.raw<{ rows: { oldest: string | null; today: string }[] }>(
      `SELECT (min("createdAt") AT TIME ZONE 'UTC')::date::text AS oldest, (now() AT TIME ZONE 'UTC')::date::text AS today
         FROM delivery.deliveries_unpartitioned`,
    );
    // A day back for events that occurred before the row was written (a lagging fan-out); weeks start on Monday.
    const first = await knex.raw<{ rows: { first: string; archive: boolean }[] }>(
      `SELECT date_trunc('week', GREATEST(COALESCE(?::date, ?::date) - 1, ?::date - ?::int))::date::text AS first,
              COALESCE(?::date, ?::date) - 1 < date_trunc('week', ?::date - ?::int)::date AS archive`,
      [span.oldest, span.today, span.today, WEEKLY_BEHIND_DAYS, span.oldest, span.today, span.today, WEEKLY_BEHIND_DAYS],
    );
    const { first: firstDay, archive } = first.rows[0];
    if (archive) {
      const bound = `'${firstDay}'::timestamp AT TIME ZONE 'UTC'`;
      const to = (await knex.raw<{ rows: { to: string }[] }>(`SELECT (${bound})::text AS to`)).rows[0].to;
      await knex.raw(
        `CREATE TABLE delivery.deliveries_archive PARTITION OF delivery.deliveries FOR VALUES FROM (MINVALUE) TO ('${to}') WITH (fillfactor = 50)`,
      );
      await knex.raw(
        `CREATE TABLE delivery.attempts_archive PARTITION OF delivery.attempts FOR VALUES FROM (MINVALUE) TO ('${to}')`,
      );
    }
    await knex.raw(
      `SELECT delivery.delivery_partition_create(d::date) FROM generate_series(?::date, ?::date + ?::int, interval '7 days') d`,
      [firstDay, span.today, PARTITIONS_AHEAD_DAYS],
    );
    await knex.raw(`INSERT INTO delivery.deliveries (${list}) SELECT ${values} FROM delivery.deliveries_unpartitioned`);
    const attemptColumns = (
      await knex.raw<{ rows: { name: string }[] }>(
        `SELECT attname AS name FROM pg_attribute
          WHERE attrelid = 'delivery.attempts_unpartitioned'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      )
    ).rows.map((r) => `"${r.name}"`);
    await knex.raw(
      `INSERT INTO delivery.attempts (${attemptColumns.join(', ')}, "deliveryCreatedAt")
       SELECT ${attemptColumns.map((c) => `a.${c}`).join(', ')}, d."createdAt"
         FROM delivery.attempts_unpartitioned a JOIN delivery.deliveries d ON d.id = a."deliveryId"`,
    );
    await knex.raw('DROP TABLE delivery.attempts_unpartitioned');
    await knex.raw('DROP TABLE delivery.deliveries_unpartitioned');

    // The indexes of migrations 001, 008 and 012, each with the partition key where it must be unique.
    await knex.raw('ALTER TABLE delivery.deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id, "createdAt")');
    await knex.raw(
      'CREATE INDEX deliveries_subscriptionid_createdat_id_index ON delivery.deliveries ("subscriptionId", "createdAt", id)',
    );
    await knex.raw('CREATE INDEX deliveries_due ON delivery.deliveries ("nextAttemptAt") WHERE "nextAttemptAt" IS NOT NULL');
    await knex.raw(`CREATE INDEX deliveries_ordered ON delivery.deliveries ("subscriptionId", "orderKey", "orderSeq")
      WHERE "orderKey" IS NOT NULL`);
    await knex.raw(`CREATE INDEX deliveries_undelivered ON delivery.deliveries ("organizationId", status, "createdAt", id)
      WHERE status IN ('pending', 'failed', 'dead_letter')`);
    await knex.raw(`ALTER TABLE delivery.deliveries ADD CONSTRAINT deliveries_subscriptionid_foreign
      FOREIGN KEY ("subscriptionId") REFERENCES delivery.subscriptions (id) ON DELETE CASCADE`);
    // (deliveryId, attempt) was unique; with the partition key it is the primary key (one index, not two).
    await knex.raw(
      'ALTER TABLE delivery.attempts ADD CONSTRAINT attempts_pkey PRIMARY KEY ("deliveryId", "deliveryCreatedAt", attempt)',
    );
    await knex.raw('ALTER SEQUENCE delivery.attempts_seq_seq OWNED BY delivery.attempts.seq');

    // The cascade and the follow of a moved delivery (invoker's rights: the service's role deletes and updates attempts).
    await knex.raw(`
      CREATE FUNCTION delivery.delivery_attempts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          DELETE FROM delivery.attempts WHERE "deliveryId" = OLD.id AND "deliveryCreatedAt" = OLD."createdAt";
          RETURN OLD;
        END IF;
        UPDATE delivery.attempts SET "deliveryCreatedAt" = NEW."createdAt"
         WHERE "deliveryId" = OLD.id AND "deliveryCreatedAt" = OLD."createdAt";
        RETURN NEW;
      END $fn$`);
    await knex.raw(`CREATE TRIGGER deliveries_attempts_cascade AFTER DELETE ON delivery.deliveries
      FOR EACH ROW EXECUTE FUNCTION delivery.delivery_attempts_follow()`);
    // Only an UPDATE that sets createdAt fires it (none of the service's does): the hot path pays nothing.
    await knex.raw(`CREATE TRIGGER deliveries_attempts_rekey BEFORE UPDATE OF "createdAt" ON delivery.deliveries
      FOR EACH ROW WHEN (OLD."createdAt" IS DISTINCT FROM NEW."createdAt") EXECUTE FUNCTION delivery.delivery_attempts_follow()`);
    await knex.raw('ANALYZE delivery.deliveries');
    await knex.raw('ANALYZE delivery.attempts');
  },
};
