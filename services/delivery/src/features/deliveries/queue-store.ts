import { prepared, type Knex } from '@cluster/db';
import type { QueryResult } from 'pg';
import type { DeliveryRow, DeliveryStatus } from './rows.ts';
import { NO_ATTEMPT, ROLLUP_UPSERT, STATUS_DELTA } from './stats-rollup.ts';

/** Notification channel that wakes sender loops when deliveries become due. */
export const DUE_CHANNEL = 'delivery_due';

/** A new delivery row written by the fan-out or the test endpoint. */
export interface NewDelivery extends Pick<
  DeliveryRow,
  'id' | 'organizationId' | 'subscriptionId' | 'eventId' | 'eventName' | 'body'
> {
  test?: boolean;
  /**
   * Held from the start: test deliveries (sent at once by their caller, never
   * scheduled), and fan-out deliveries handed straight to this replica's sender
   * (due now, so another replica takes them over if the lease lapses).
   */
  leaseToken?: string;
  /** W3C trace context of the event (its Kafka message's traceparent); attempts continue it. */
  traceparent?: string | null;
  /**
   * For a subscription with ordering `per_entity`: `entityType:entityId`. Such a delivery is never
   * handed off: it is due at once only when no earlier one of its key is unfinished; otherwise it
   * waits (pending, nothing scheduled) until the one before it ends (ORDER_RELEASE).
   */
  orderKey?: string | null;
  /**
   * The delivery's time and partition key (migration 018): the domain event's `occurredAt`, the same at
   * every fan-out of the pair, so the primary key (id, createdAt) finds a delivery written before. Absent
   * (a test delivery, an event without a valid time): now.
   */
  createdAt?: Date | null;
}

/**
 * An unfinished delivery `e` of the same ordered key: scheduled, in flight, or not yet attempted
 * (which includes those waiting for their turn).
 */
const UNFINISHED = `(e."nextAttemptAt" IS NOT NULL OR e."lockedUntil" > now() OR e.status = 'pending')`;

/**
 * The next waiting delivery of each ordered key whose delivery `f` (a CTE of finished attempts with
 * "subscriptionId", "orderKey", "nextAttemptAt") just ended, made due now: the chain of an ordered
 * key. Read from the statement's snapshot, in which `f` itself still looks scheduled.
 */
export const ORDER_RELEASE = (finished: string) => `
  UPDATE delivery.deliveries n SET "nextAttemptAt" = now(), "updatedAt" = now()
   WHERE n.id = ANY(ARRAY(
     SELECT (SELECT w.id FROM delivery.deliveries w
              WHERE w."subscriptionId" = f."subscriptionId" AND w."orderKey" = f."orderKey"
                AND w.status = 'pending' AND w."nextAttemptAt" IS NULL AND NOT w.test
              ORDER BY w."orderSeq" LIMIT 1)
       FROM ${finished} f WHERE f."orderKey" IS NOT NULL AND f."nextAttemptAt" IS NULL))`;

/**
 * A delivery's row found again by the time its claim gave it (`ClaimedDelivery.createdAt`, migration 018's
 * partition key), between the bounds `timeBounds` gives: a millisecond either side, since Postgres keeps
 * microseconds and a JavaScript Date milliseconds (cut down, by float arithmetic sometimes one lower). Enough
 * for Postgres to read only the row's week (bounds given as values let the planner itself leave the other
 * weeks out); the id finds the row.
 */
export const AT_TIME = (column: string, lo: string, hi: string) => `${column} BETWEEN ${lo} AND ${hi}`;

/** The bounds AT_TIME takes for a time a claim gave. */
export const timeBounds = (at: Date): [Date, Date] => [new Date(at.getTime() - 1), new Date(at.getTime() + 1)];

/** The bounds of many times, as the two array bindings (lower bounds, upper bounds) of an `unnest`. */
export const timeBoundColumns = (times: Date[]): [Date[], Date[]] => [
  times.map((t) => timeBounds(t)[0]),
  times.map((t) => timeBounds(t)[1]),
];

/** Whether a row's time is the one a claim gave, as AT_TIME finds it (the fakes'). */
export function atTime(row: Date, at: Date): boolean {
  const [lo, hi] = timeBounds(at);
  return row >= lo && row <= hi;
}

/** An ordered key of one subscription (the chain ORDER_RELEASE walks). */
export interface OrderedKey {
  subscriptionId: string;
  orderKey: string;
}

/** A delivery reserved for one replica to attempt now. */
export interface ClaimedDelivery {
  id: string;
  /**
   * Its time and partition key (migration 018): the statements that find it again by id (the record of its
   * attempt, a release) name it too, so Postgres reads its week's partition only, not every week's.
   */
  createdAt: Date;
  organizationId: string;
  subscriptionId: string;
  eventName: string;
  body: string;
  attempts: number;
  firstAttemptAt: Date | null;
  leaseToken: string;
  destinationUrl: string;
  destinationOrigin: string;
  secretSealed: string;
  /** The subscription's replaced secret and the end of its grace period (both signatures until then). */
  previousSecretSealed: string | null;
  previousSecretUntil: Date | null;
  /** W3C trace context of the event, if it had one. */
  traceparent: string | null;
  /** The subscription's custom headers and receiver auth, sealed (sender/receiver.ts), or null. */
  receiverSealed?: string | null;
  /** Its ordered key (subscriptions with ordering per_entity), or null. */
  orderKey?: string | null;
  /** Attempts a receiver answered with Retry-After (they do not advance the backoff: features/attempts/service.ts). */
  throttledAttempts?: number;
  /** A rate-limited subscription's: not to be sent before this time (its rate slot), or null. */
  notBefore?: Date | null;
  /** A subscription with maxInFlight: the delivery holds one of its in-flight slots (delivery.throttles) until recorded. */
  slotted?: boolean;
}

// The sender's hot statements are prepared (@cluster/db `prepared`): they are long CTEs
// whose planning took 2.6-3.7 ms against about 1 ms of execution (a claim of 16 rows).

export interface ClaimArgs {
  limit: number;
  leaseMs: number;
  defaultCap: number;
  caps: Map<string, number>;
}

/**
 * How far ahead a claim gives a rate-limited subscription's deliveries their send times (`notBefore`): a claim
 * takes at most `rateLimit` x this (and at least one) of them, and the replica holds each until its time.
 */
export const THROTTLE_HORIZON_MS = 1000;

/** How many of a throttled subscription's leases (delivery.throttles `leases`, token -> expiry) are live. */
const LIVE_LEASES = (leases: string) => `(SELECT count(*) FROM jsonb_each_text(${leases}) e WHERE e.value::timestamptz > now())`;

/** The claim statement's bindings, and its scan window (exported for the plan test). */
export function claimBindings(args: ClaimArgs): { bindings: Knex.RawBinding[]; scan: number } {
  const origins = [...args.caps.keys()];
  const caps = origins.map((o) => args.caps.get(o) ?? 0);
  // Origins with no free slot are skipped in the scan itself, so a large backlog
  // of one destination cannot fill the window and starve the others.
  const full = origins.filter((_, i) => caps[i] <= 0);
  // The scan window: twice what the known origins, plus one new origin, may still take
  // (rows of an origin beyond its cap are read and left). Reading four times the limit
  // regardless made a refill of 16 rows read and rank 640.
  const room = caps.reduce((sum, c) => sum + Math.max(0, c), 0) + args.defaultCap;
  const scan = Math.max(100, Math.min(args.limit * 4, room * 2));
  const horizon = THROTTLE_HORIZON_MS;
  return {
    bindings: [origins, caps, full, horizon, scan, args.defaultCap, args.limit, horizon, args.leaseMs],
    scan,
  };
}

/**
 * The statistics rollup's deltas of stopped deliveries (stats-rollup.ts): `stopped` returns their id,
 * "subscriptionId", "createdAt", test and status (new), `prior` their id and status before, read under lock.
 */
const STOPPED_DELTAS = (stopped: string, prior: string) => `(
  SELECT x."subscriptionId" AS sub, date_trunc('hour', x."createdAt") AS hour, ${STATUS_DELTA('p.status', 'x.status')}, ${NO_ATTEMPT}
    FROM ${stopped} x JOIN ${prior} p ON p.id = x.id
   WHERE NOT x.test AND x.status IS DISTINCT FROM p.status)`;

/**
 * Reserves due deliveries (see `claim`). Every look-up of a delivery goes by an index:
 * a join of the due rows to the table was once planned as a sequential scan of every
 * delivery, on every claim (test/delivery-claim-plan.test.ts).
 *
 * Throttling (docs/decisions-webhooks.md, "Throttling"): a paused subscription's rows are not scanned, nor
 * those of a throttled one with nothing to give now (its next rate slot beyond the horizon, or every
 * in-flight slot held). The shared state of the throttled subscriptions among the picked rows
 * (delivery.throttles) is locked in id order, so it is read as the last claim of any replica left it, and
 * only as many of their rows are leased as their rate (send times `notBefore`, evenly spaced) and free
 * in-flight slots allow; the state moves on in the same statement. An unthrottled subscription has no
 * such row: its rows go through as before.
 */
export const CLAIM_SQL = `WITH caps AS (
           SELECT * FROM unnest(?::text[], ?::int[]) AS c(origin, cap)
         ), due AS (
           -- Walks the due index in order (disabled and deleted subscriptions have no due rows). A temporary
           -- subscription's rows are its listener's to claim (features/listen), never sent over HTTP.
           SELECT d.id, d."createdAt", d."nextAttemptAt", d."subscriptionId"
             FROM delivery.deliveries d
            WHERE d."nextAttemptAt" <= now()
              AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now())
              AND d."subscriptionId" NOT IN (
                SELECT id FROM delivery.subscriptions WHERE "destinationOrigin" = ANY(?::text[]) OR temporary OR "pausedUntil" > now()
                UNION ALL
                SELECT t."subscriptionId" FROM delivery.throttles t JOIN delivery.subscriptions s ON s.id = t."subscriptionId"
                 WHERE t."nextAt" > now() + (? * interval '1 millisecond')
                    OR (s."maxInFlight" IS NOT NULL AND ${LIVE_LEASES('t.leases')} >= s."maxInFlight"))
            ORDER BY d."nextAttemptAt"
            LIMIT ?
         ), ranked AS (
           SELECT due.id, due."createdAt", due."nextAttemptAt",
                  row_number() OVER (PARTITION BY s."destinationOrigin" ORDER BY due."nextAttemptAt") AS rn,
                  COALESCE(caps.cap, ?) AS cap
             FROM due
             JOIN delivery.subscriptions s ON s.id = due."subscriptionId" AND s.enabled AND s."deletedAt" IS NULL
             LEFT JOIN caps ON caps.origin = s."destinationOrigin"
         ), orphans AS (
           -- Rows that a fan-out wrote while their subscription was being disabled or deleted: stop them.
           -- (id = ANY(ARRAY(...)) keeps both lookups on the primary key: a join here was planned
           -- as a sequential scan of every delivery, on every claim.) Locked first and read as they are now:
           -- the status replaced, for the statistics rollup.
           SELECT o.id, o.status FROM delivery.deliveries o
            WHERE o.id = ANY(ARRAY(
              SELECT due.id FROM due JOIN delivery.subscriptions s ON s.id = due."subscriptionId"
               WHERE NOT (s.enabled AND s."deletedAt" IS NULL)))
            ORDER BY o.id FOR UPDATE
         ), orphaned AS (
           UPDATE delivery.deliveries d
              SET "nextAttemptAt" = NULL, status = 'failed', error = 'retries stopped: subscription disabled or deleted', "updatedAt" = now()
            WHERE d.id = ANY(ARRAY(SELECT id FROM orphans))
           RETURNING d.id, d."subscriptionId", d."createdAt", d.test, d.status
         ), picked AS (
           -- By id and time: a nested loop whose every probe Postgres prunes to the row's own week (migration 018).
           SELECT d.id, d."createdAt", d."subscriptionId", d."nextAttemptAt" FROM delivery.deliveries d
             JOIN (SELECT id, "createdAt" FROM ranked WHERE rn <= cap ORDER BY "nextAttemptAt" LIMIT ?) r
               ON d.id = r.id AND d."createdAt" = r."createdAt"
            WHERE d."nextAttemptAt" <= now()
              AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now())
              -- An ordered delivery goes only when every earlier one of its key has ended.
              AND (d."orderKey" IS NULL OR NOT EXISTS (
                SELECT 1 FROM delivery.deliveries e
                 WHERE e."subscriptionId" = d."subscriptionId" AND e."orderKey" = d."orderKey" AND e."orderSeq" < d."orderSeq"
                   AND ${UNFINISHED}))
            FOR UPDATE OF d SKIP LOCKED
         ), tstate AS (
           -- The throttled subscriptions' shared state, locked in id order (claims and attempt records never wait
           -- on each other in a cycle); a row another claim held is read as that claim left it.
           SELECT t."subscriptionId", t."nextAt", t.leases FROM delivery.throttles t
            WHERE t."subscriptionId" = ANY(ARRAY(SELECT "subscriptionId" FROM picked))
            ORDER BY t."subscriptionId" FOR UPDATE
         ), tsub AS (
           SELECT ts."subscriptionId", ts.leases, s."rateLimit" AS rate, s."maxInFlight" AS slots,
                  GREATEST(ts."nextAt", now()) AS base, ${LIVE_LEASES('ts.leases')} AS busy
             FROM tstate ts JOIN delivery.subscriptions s ON s.id = ts."subscriptionId"
         ), granted AS (
           SELECT p.id, p."createdAt", NULL::timestamptz AS "notBefore", false AS slotted FROM picked p
            WHERE p."subscriptionId" NOT IN (SELECT "subscriptionId" FROM tsub)
           UNION ALL
           -- A throttled subscription's rows, oldest due first: each rate slot 1/rateLimit s after the one before,
           -- as far as the horizon, and no more than its free in-flight slots.
           SELECT n.id, n."createdAt", n."notBefore", n.slots IS NOT NULL FROM (
             SELECT p.id, p."createdAt", t.slots, t.busy, row_number() OVER w AS n,
                    t.base + (row_number() OVER w - 1) * (interval '1 second' / t.rate) AS "notBefore"
               FROM picked p JOIN tsub t ON t."subscriptionId" = p."subscriptionId"
             WINDOW w AS (PARTITION BY p."subscriptionId" ORDER BY p."nextAttemptAt", p.id)) n
            WHERE (n.slots IS NULL OR n.n <= n.slots - n.busy)
              AND (n."notBefore" IS NULL OR n."notBefore" <= now() + (? * interval '1 millisecond'))
         ), leased AS (
           UPDATE delivery.deliveries d
              SET "lockedUntil" = now() + (? * interval '1 millisecond'), "leaseToken" = gen_random_uuid()
             FROM granted g, delivery.subscriptions s
            WHERE d.id = g.id AND d."createdAt" = g."createdAt" AND s.id = d."subscriptionId"
           RETURNING d.id, d."createdAt", d."organizationId", d."subscriptionId", d."eventName", d.body, d.attempts, d."firstAttemptAt",
                     d."leaseToken", s."destinationUrl", s."destinationOrigin", s."secretSealed", s."previousSecretSealed", s."previousSecretUntil", s."receiverSealed", d.traceparent, d."orderKey",
                     d."throttledAttempts", d."lockedUntil", g."notBefore", g.slotted
         ), took AS (
           -- The shared state moves on: the next rate slot after those granted, the granted leases added (lapsed ones dropped).
           UPDATE delivery.throttles t
              SET "nextAt" = CASE WHEN x.rate IS NULL THEN t."nextAt" ELSE x.base + x.k * (interval '1 second' / x.rate) END,
                  leases = (SELECT COALESCE(jsonb_object_agg(e.key, e.value), '{}'::jsonb)
                              FROM jsonb_each_text(x.leases) e WHERE e.value::timestamptz > now()) || x.added
             FROM (SELECT ts."subscriptionId", ts.rate, ts.base, ts.leases, count(*) AS k,
                          COALESCE(jsonb_object_agg(l."leaseToken"::text, l."lockedUntil") FILTER (WHERE l.slotted), '{}'::jsonb) AS added
                     FROM tsub ts JOIN leased l ON l."subscriptionId" = ts."subscriptionId"
                    GROUP BY ts."subscriptionId", ts.rate, ts.base, ts.leases) x
            WHERE t."subscriptionId" = x."subscriptionId"
         ), orphan_stats AS (
           -- The stopped orphans in the statistics rollup, its rows locked after the throttles' (see ROLLUP_UPSERT).
           ${ROLLUP_UPSERT(STOPPED_DELTAS('orphaned', 'orphans'), '(SELECT count(*) FROM tstate) >= 0')}
         )
         SELECT l.*, (SELECT count(*) FROM due)::int AS scanned FROM leased l`;

/**
 * Gives back in-flight slots (delivery.throttles `leases`) of the given lease tokens, per subscription; rows
 * locked in id order like the claim's. Bindings: releaseSlotsBindings.
 */
export const RELEASE_SLOTS_SQL = `UPDATE delivery.throttles t SET leases = t.leases - r.tokens
   FROM (SELECT x.sid, array_agg(x.token) AS tokens FROM unnest(?::uuid[], ?::text[]) AS x(sid, token) GROUP BY x.sid) r
  WHERE t."subscriptionId" = r.sid
    AND t."subscriptionId" = ANY(ARRAY(SELECT "subscriptionId" FROM delivery.throttles
                                        WHERE "subscriptionId" = ANY(?::uuid[]) ORDER BY "subscriptionId" FOR UPDATE))`;

/** The bindings of RELEASE_SLOTS_SQL for these slotted deliveries. */
export function releaseSlotsBindings(slotted: Pick<ClaimedDelivery, 'subscriptionId' | 'leaseToken'>[]): Knex.RawBinding[] {
  const sids = slotted.map((c) => c.subscriptionId);
  return [sids, slotted.map((c) => c.leaseToken), sids] as Knex.RawBinding[];
}

/**
 * The delivery work queue in Postgres: the durable retry schedule of deliveries. `nextAttemptAt` says
 * when an attempt is due and `lockedUntil`/`leaseToken` which replica holds it, so retries survive
 * restarts and two replicas never send one delivery at the same time. Attempts are recorded by the
 * attempts store; the API's reads are the read store's (read-store.ts), deletion the retention store's.
 */
export interface DeliveryQueueStore {
  /**
   * Inserts deliveries, ignoring ids that already exist (a fan-out's ids are
   * derived from (eventId, subscriptionId), its `createdAt` is the event's time: the
   * primary key (id, createdAt) finds the row; a row without `createdAt` is looked up
   * by id), and notifies the delivery loops when
   * any new one is free to claim, in one statement. Rows with a lease token are
   * held for `leaseMs` from now. The notification carries `notifier` so a loop
   * can ignore its own process's.
   * Returns the ids that were new.
   */
  insertMany(rows: NewDelivery[], opts?: { notifier?: string; leaseMs?: number }): Promise<Set<string>>;
  /**
   * Reserves up to `limit` due deliveries of enabled subscriptions for `leaseMs`,
   * at most `caps[origin]` (else `defaultCap`) per destination, oldest due first.
   * SKIP LOCKED lets replicas claim side by side without waiting on each other.
   * `more` says the scan window was full: more due rows may wait behind it.
   * The deliveries come in no particular order.
   */
  claim(args: ClaimArgs): Promise<{ deliveries: ClaimedDelivery[]; more: boolean }>;
  /** The earliest future due time (to sleep until), or null when nothing is scheduled. */
  nextDueAt(): Promise<Date | null>;
  /** Gives back leases of claimed deliveries that were never attempted (a replica stopping). */
  release(
    claims: (Pick<ClaimedDelivery, 'id' | 'createdAt' | 'leaseToken'> &
      Partial<Pick<ClaimedDelivery, 'subscriptionId' | 'slotted'>>)[],
  ): Promise<void>;
  /** Subscriptions paused now by a receiver's Retry-After (the paused-subscriptions gauge). */
  countPaused(): Promise<number>;
  /**
   * Stops every scheduled attempt of a subscription (disabled or deleted); returns how many. One whose
   * attempt is being recorded at this moment is left to the claim's `orphaned` step, never waited for.
   */
  stopPending(subscriptionId: string, reason: string): Promise<number>;
  /**
   * Makes due every waiting ordered delivery none of whose earlier ones is unfinished; returns how
   * many. Without `keys`, of every ordered key: the sweep, the safety net of ORDER_RELEASE. With
   * `keys`, of those keys only: what the fan-out runs after inserting ordered deliveries, and the
   * sender after recording the end of one, each in a statement of its own after its commit, so
   * that a release racing an insert is not missed (docs/decisions-webhooks.md, "Ordering is a chain").
   */
  releaseWaiting(keys?: readonly OrderedKey[]): Promise<number>;
  /** Deliveries of a status with an attempt scheduled (the backlog metrics). */
  countScheduled(status: DeliveryStatus): Promise<number>;
  /** When the oldest delivery with an attempt scheduled was created, or null when none is. */
  oldestScheduledAt(): Promise<Date | null>;
  /**
   * The earliest due time of a delivery that is due, not leased, and whose destination origin has
   * no attempt in flight (no leased due delivery), or null when there is none: the delivery loop's
   * own health (the overdue metric). A receiver that is down has its retries scheduled in the future;
   * a slow one at its concurrency bound has attempts in flight: neither shows here. A stalled or
   * saturated loop (every replica's slots busy, the claims failing) leaves due origins unserved.
   * Subscriptions paused by their receiver or held to a rateLimit are left out: their rows wait by design.
   */
  oldestUnservedDueAt(): Promise<Date | null>;
}

/** What the claim statement returns: a claimed delivery and the size of the scan it came from. */
type ClaimResultRow = ClaimedDelivery & { scanned: number; lockedUntil: Date };

/** The knex implementation of DeliveryQueueStore. */
export function createDeliveryQueueStore(db: Knex): DeliveryQueueStore {
  const deliveries = () => db<DeliveryRow>('delivery.deliveries');
  return {
    async insertMany(rows, opts = {}) {
      const inserted = new Set<string>();
      if (!rows.length) return inserted;
      for (let i = 0; i < rows.length; i += 500) {
        const chunk = rows.slice(i, i + 500);
        const col = <T>(f: (r: NewDelivery) => T) => chunk.map(f);
        const { rows: res } = await db
          .raw<QueryResult<{ id: string }>>(
            `WITH input AS (
             SELECT i.*, row_number() OVER (PARTITION BY i.sub, i.okey ORDER BY i.ord) AS nth
               FROM unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::boolean[], ?::uuid[], ?::text[], ?::text[], ?::timestamptz[])
                 WITH ORDINALITY AS i(id, org, sub, event, name, body, test, token, trace, okey, at, ord)
           ), ins AS (
             INSERT INTO delivery.deliveries (id, "organizationId", "subscriptionId", "eventId", "eventName", body, test, "leaseToken", "lockedUntil", status, "nextAttemptAt", traceparent, "orderKey", "orderSeq", "createdAt")
             SELECT i.id, i.org, i.sub, i.event, i.name, i.body, i.test, i.token,
                    CASE WHEN i.token IS NOT NULL AND NOT i.test THEN now() + (? * interval '1 millisecond') END,
                    'pending',
                    -- An ordered delivery waits (nothing scheduled) behind an unfinished one of its key.
                    CASE WHEN i.test THEN NULL
                         WHEN i.okey IS NOT NULL AND (i.nth > 1 OR EXISTS (
                           SELECT 1 FROM delivery.deliveries e
                            WHERE e."subscriptionId" = i.sub AND e."orderKey" = i.okey AND ${UNFINISHED})) THEN NULL
                         ELSE now() END,
                    i.trace, i.okey, CASE WHEN i.okey IS NOT NULL THEN nextval('delivery.delivery_order_seq') END,
                    COALESCE(i.at, now())
               -- (orderSeq rises with the events' order within each key: the window above sorted by it.)
               FROM input i
              -- A row without its time (now) cannot meet its earlier self in the key: looked up by id (every partition).
              WHERE i.at IS NOT NULL OR NOT EXISTS (SELECT 1 FROM delivery.deliveries x WHERE x.id = i.id)
             -- The partition key is part of the primary key (migration 018): the event's time, the same at every fan-out.
             ON CONFLICT (id, "createdAt") DO NOTHING
             RETURNING id, "leaseToken" IS NULL AS free, "subscriptionId", "createdAt", test
           ), stats AS (${ROLLUP_UPSERT(
             `(SELECT "subscriptionId" AS sub, date_trunc('hour', "createdAt") AS hour, ${STATUS_DELTA('NULL', "'pending'")}, ${NO_ATTEMPT}
                 FROM ins WHERE NOT test)`,
           )}
           ), n AS (SELECT count(*) FILTER (WHERE free) AS free FROM ins)
           SELECT ins.id, CASE WHEN n.free > 0 THEN pg_notify(?, ?) END AS notified FROM ins, n`,
            [
              col((r) => r.id),
              col((r) => r.organizationId),
              col((r) => r.subscriptionId),
              col((r) => r.eventId),
              col((r) => r.eventName),
              col((r) => r.body),
              col((r) => r.test ?? false),
              col((r) => r.leaseToken ?? null),
              col((r) => r.traceparent ?? null),
              col((r) => r.orderKey ?? null),
              col((r) => r.createdAt ?? null),
              opts.leaseMs ?? 0,
              DUE_CHANNEL,
              opts.notifier ?? '',
            ] as Knex.RawBinding[],
          )
          .options(prepared('delivery-insert-many-v5'));
        for (const r of res) inserted.add(r.id);
      }
      return inserted;
    },

    async claim(args) {
      if (args.limit <= 0) return { deliveries: [], more: false };
      const { bindings, scan } = claimBindings(args);
      const { rows } = await db.raw<QueryResult<ClaimResultRow>>(CLAIM_SQL, bindings).options(prepared('delivery-claim-v8'));
      const claimed = rows.map(({ scanned: _, lockedUntil: __, ...d }): ClaimedDelivery => d);
      return { deliveries: claimed, more: rows.length > 0 && rows[0].scanned >= scan };
    },

    async nextDueAt() {
      const [row] = await deliveries()
        .where('nextAttemptAt', '>', db.fn.now())
        .min<{ at: Date | null }[]>({ at: 'nextAttemptAt' });
      return row?.at ?? null;
    },

    async release(claims) {
      if (!claims.length) return;
      await db.raw(
        `UPDATE delivery.deliveries d SET "lockedUntil" = NULL, "leaseToken" = NULL
           FROM unnest(?::uuid[], ?::timestamptz[], ?::timestamptz[], ?::uuid[]) AS c(id, lo, hi, token)
          WHERE d.id = c.id AND ${AT_TIME('d."createdAt"', 'c.lo', 'c.hi')} AND d."leaseToken" = c.token`,
        [claims.map((c) => c.id), ...timeBoundColumns(claims.map((c) => c.createdAt)), claims.map((c) => c.leaseToken)],
      );
      // Their in-flight slots too (subscriptions with maxInFlight), so another replica may take them now.
      const slotted = claims.flatMap((c) => (c.slotted && c.subscriptionId ? [{ ...c, subscriptionId: c.subscriptionId }] : []));
      if (slotted.length) await db.raw(RELEASE_SLOTS_SQL, releaseSlotsBindings(slotted));
    },

    async countPaused() {
      const [row] = await db('delivery.subscriptions')
        .where('pausedUntil', '>', db.fn.now())
        .where({ enabled: true })
        .whereNull('deletedAt')
        .count<{ n: number }[]>({ n: '*' });
      return Number(row?.n ?? 0);
    },

    async stopPending(subscriptionId, reason) {
      // SKIP LOCKED: the callers hold the subscription's row lock, and an attempt statement locks its
      // deliveries before the subscription's row (its health): waiting here would close a cycle (a
      // deadlock, and a 500 to the PATCH that disabled the endpoint). A row skipped is being recorded
      // right now; a retry it gets is stopped by the claim's `orphaned` step when it falls due.
      // The rows are locked first and read as they are now: the status replaced, for the statistics rollup.
      const { rows } = await db.raw<QueryResult<{ n: number }>>(
        `WITH prior AS (
           SELECT id, status FROM delivery.deliveries WHERE "subscriptionId" = ? AND "nextAttemptAt" IS NOT NULL
            ORDER BY id FOR UPDATE SKIP LOCKED
         ), stopped AS (
           UPDATE delivery.deliveries d SET "nextAttemptAt" = NULL, status = 'failed', error = ?, "updatedAt" = now()
            WHERE d.id = ANY(ARRAY(SELECT id FROM prior))
           RETURNING d.id, d."subscriptionId", d."createdAt", d.test, d.status
         ), stats AS (${ROLLUP_UPSERT(STOPPED_DELTAS('stopped', 'prior'))})
         SELECT count(*)::int AS n FROM stopped`,
        [subscriptionId, reason],
      );
      return rows[0]?.n ?? 0;
    },

    async releaseWaiting(keys) {
      if (keys && !keys.length) return 0;
      const { rowCount } = await db.raw<QueryResult>(
        `UPDATE delivery.deliveries w SET "nextAttemptAt" = now(), "updatedAt" = now()
          WHERE w."orderKey" IS NOT NULL AND w.status = 'pending' AND w."nextAttemptAt" IS NULL AND NOT w.test
            ${keys ? `AND (w."subscriptionId", w."orderKey") IN (SELECT * FROM unnest(?::uuid[], ?::text[]))` : ''}
            AND NOT EXISTS (
              SELECT 1 FROM delivery.deliveries e
               WHERE e."subscriptionId" = w."subscriptionId" AND e."orderKey" = w."orderKey" AND e."orderSeq" < w."orderSeq"
                 AND ${UNFINISHED})`,
        keys ? [keys.map((k) => k.subscriptionId), keys.map((k) => k.orderKey)] : [],
      );
      return rowCount ?? 0;
    },

    async countScheduled(status) {
      const [row] = await deliveries().where({ status }).whereNotNull('nextAttemptAt').count<{ n: number }[]>({ n: '*' });
      return Number(row?.n ?? 0);
    },

    async oldestScheduledAt() {
      const [row] = await deliveries().whereNotNull('nextAttemptAt').min<{ oldest: Date | null }[]>({ oldest: 'createdAt' });
      return row?.oldest ?? null;
    },

    async oldestUnservedDueAt() {
      // Due rows only (the partial index deliveries_due), grouped by their destination origin.
      const { rows } = await db.raw<QueryResult<{ oldest: Date | null }>>(
        `SELECT min(o.oldest) AS oldest FROM (
           SELECT min(d."nextAttemptAt") FILTER (WHERE d."lockedUntil" IS NULL OR d."lockedUntil" < now()) AS oldest,
                  bool_or(d."lockedUntil" >= now()) AS sending
             FROM delivery.deliveries d
             JOIN delivery.subscriptions s ON s.id = d."subscriptionId" AND s.enabled AND s."deletedAt" IS NULL
                  -- Rows a receiver's pause or rateLimit holds back wait by design, not for the loop.
                  AND s."rateLimit" IS NULL AND (s."pausedUntil" IS NULL OR s."pausedUntil" <= now())
            WHERE d."nextAttemptAt" <= now()
            GROUP BY s."destinationOrigin") o
          WHERE o.oldest IS NOT NULL AND NOT coalesce(o.sending, false)`,
      );
      return rows[0]?.oldest ?? null;
    },
  };
}
