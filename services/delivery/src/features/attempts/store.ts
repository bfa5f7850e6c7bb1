import { DELIVERY_ATTEMPT_FIELDS } from '@cluster/contracts';
import { prepared, type Knex } from '@cluster/db';
import { LOGICAL_TOPICS } from '@cluster/kafka';
import { commitWrite, WRITTEN } from '@cluster/outbox';
import type { SendResult } from '../../sender/http-sender.ts';
import { AT_TIME, ORDER_RELEASE, timeBoundColumns, timeBounds, type ClaimedDelivery } from '../deliveries/queue-store.ts';
import { ATTEMPT_DELTA, NO_ATTEMPT, NO_STATUS, ROLLUP_UPSERT, STATUS_DELTA } from '../deliveries/stats-rollup.ts';
import type { DeliveryStatus } from '../deliveries/rows.ts';
import type { QueryResult } from 'pg';

/** How an attempt ends the delivery's current step. */
export type AttemptDecision =
  | { kind: 'succeeded' }
  | { kind: 'retry'; at: Date }
  /**
   * The receiver asked for a pause (429/503 with Retry-After): the subscription is paused `until` then, the
   * delivery tried again `at` (then, or its last chance at the retry deadline), neither counted as a failure of
   * the subscription's health nor as a step of the delivery's backoff.
   */
  | { kind: 'paused'; at: Date; until: Date }
  | { kind: 'dead_letter' }
  /** The receiver answered 410 Gone: the delivery ends failed and the subscription is disabled (subscriptions/health.ts). */
  | { kind: 'gone' }
  /** A failed attempt that schedules nothing (test deliveries). */
  | { kind: 'final_failure' };

/** One finished attempt, to be recorded with its decision. */
export interface AttemptRecord {
  delivery: Pick<
    ClaimedDelivery,
    | 'id'
    | 'createdAt'
    | 'leaseToken'
    | 'attempts'
    | 'firstAttemptAt'
    | 'subscriptionId'
    | 'organizationId'
    | 'eventName'
    | 'body'
    | 'destinationUrl'
  > &
    Partial<Pick<ClaimedDelivery, 'slotted'>>;
  result: SendResult;
  attemptedAt: Date;
  decision: AttemptDecision;
  /** With a dead_letter decision: the message the dead-letter topic gets (events.ts `deadLetterMessage`). */
  deadLetter?: DeadLetterMessage;
}

/** The dead-letter message: the envelope the receiver would have got, with the last error. */
export interface DeadLetterMessage {
  id: string;
  eventName: string;
  deliveryId: string;
  subscriptionId: string;
  organizationId: string;
  destinationUrl: string;
  attempts: number;
  firstAttemptAt: string;
  deadLetteredAt: string;
  lastError: { error: string | null; responseCode: number | null; responseBody: string | null };
  envelope: unknown;
}

/** A row of delivery.attempts as stored (migrations 001 and 018): one attempt of a delivery. */
export type AttemptLogRow = {
  seq: number;
  deliveryId: string;
  attempt: number;
  outcome: 'succeeded' | 'failed';
  responseCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  attemptedAt: Date;
  /** Its delivery's createdAt, the partition key (migration 018). */
  deliveryCreatedAt: Date;
};

/** An entry of the attempt log of a delivery: the contract's DELIVERY_ATTEMPT_FIELDS. */
export type AttemptRow = Pick<AttemptLogRow, (typeof DELIVERY_ATTEMPT_FIELDS)[number]>;

/**
 * The subscription's health, kept by the same statement as its attempts (h: one row per subscription
 * with `ok` (any attempt succeeded), `failures`, `firstFailure` and `paused`): a success resets the run of
 * failures, failures add to it and start `failingSince`. It writes only when something changes, so a
 * healthy subscription's successes never touch (nor lock) its row. subscriptions/health.ts acts on it.
 * A receiver's Retry-After is no failure: it only moves `pausedUntil` (the latest pause asked for wins).
 */
const HEALTH_UPDATE = `
  UPDATE delivery.subscriptions s
     SET "consecutiveFailures" = CASE WHEN h.ok THEN 0 ELSE s."consecutiveFailures" + h.failures END,
         "failingSince" = CASE WHEN h.ok THEN NULL WHEN h.failures = 0 THEN s."failingSince"
                               ELSE COALESCE(s."failingSince", h."firstFailure") END,
         "failingNotifiedAt" = CASE WHEN h.ok THEN NULL ELSE s."failingNotifiedAt" END,
         "pausedUntil" = GREATEST(s."pausedUntil", h.paused)`;
const HEALTH_CHANGES = `((NOT h.ok AND h.failures > 0) OR h.paused IS NOT NULL OR (h.ok AND (s."consecutiveFailures" > 0 OR s."failingSince" IS NOT NULL)))`;

/** Gives back the in-flight slots of recorded deliveries of subscriptions with maxInFlight (delivery.throttles). */
const SLOTS_RELEASE = (recorded: string) => `
  UPDATE delivery.throttles t SET leases = t.leases - r.tokens
    FROM (SELECT "subscriptionId" AS sid, array_agg(token::text) AS tokens FROM ${recorded} GROUP BY "subscriptionId") r
   WHERE t."subscriptionId" = r.sid
     AND t."subscriptionId" = ANY(ARRAY(SELECT "subscriptionId" FROM delivery.throttles
                                         WHERE "subscriptionId" IN (SELECT "subscriptionId" FROM ${recorded})
                                         ORDER BY "subscriptionId" FOR UPDATE))`;

/**
 * The statistics rollup's deltas of recorded attempts (features/deliveries/stats-rollup.ts): `recorded` has a
 * row per recorded attempt with its delivery's "subscriptionId", "createdAt", test, status (new) and
 * "priorStatus" (locked before the update, so it is the status this statement replaced), and the attempt's
 * ok, "pausedMs", "attemptedAt" and "durationMs". The attempt counts in the hour it was made; a change of
 * status moves the delivery in the hour it was created. Test deliveries are not counted.
 */
const RECORDED_DELTAS = (recorded: string) => `(
  SELECT r."subscriptionId" AS sub, date_trunc('hour', r."attemptedAt") AS hour, ${NO_STATUS},
         ${ATTEMPT_DELTA('r.ok', 'r."pausedMs"', 'r."attemptedAt"', 'r."durationMs"')}
    FROM ${recorded} r WHERE NOT r.test
  UNION ALL
  SELECT r."subscriptionId", date_trunc('hour', r."createdAt"), ${STATUS_DELTA('r."priorStatus"', 'r.status')}, ${NO_ATTEMPT}
    FROM ${recorded} r WHERE NOT r.test AND r.status IS DISTINCT FROM r."priorStatus")`;

/** Attempts in Postgres: every attempt recorded with the delivery's next step, and the attempt log. */
export interface AttemptStore {
  /**
   * Records one attempt and the delivery's next step in one statement, only while
   * this replica still holds the lease (`leaseToken`); a dead letter also writes
   * its message (`deadLetter`) to the outbox, so it reaches the dead-letter topic at
   * least once. Returns false when the lease was lost (another replica took the
   * delivery over).
   */
  recordAttempt(args: AttemptRecord): Promise<boolean>;
  /**
   * Records many non-dead-letter attempts in one statement (the sender's hot
   * path: one round trip for a whole batch). Each row is fenced by its lease
   * token like `recordAttempt`. Returns the ids that were recorded.
   */
  recordAttempts(items: AttemptRecord[]): Promise<Set<string>>;
  /** The attempt log of a delivery, in attempt order. */
  listFor(deliveryId: string): Promise<AttemptRow[]>;
}

/** The knex implementation of AttemptStore. */
export function createAttemptStore(db: Knex): AttemptStore {
  return {
    async recordAttempt(args) {
      const { delivery, result, attemptedAt, decision } = args;
      const status: DeliveryStatus =
        decision.kind === 'succeeded' ? 'succeeded' : decision.kind === 'dead_letter' ? 'dead_letter' : 'failed';
      const nextAttemptAt = decision.kind === 'retry' || decision.kind === 'paused' ? decision.at : null;
      const pausedUntil = decision.kind === 'paused' ? decision.until : null;
      const attempt = delivery.attempts + 1;
      // One statement, so one round trip and atomic: the delivery's new state, its attempt
      // row and (for a dead letter) the dead-letter topic's message in the outbox, only while
      // this replica holds the lease. A subscription disabled or deleted meanwhile schedules nothing more.
      if (decision.kind === 'dead_letter' && !args.deadLetter) throw new Error('a dead letter is recorded with its message');
      const messages = args.deadLetter
        ? [{ topic: LOGICAL_TOPICS.deliveryDeadLetter, key: delivery.subscriptionId, value: args.deadLetter }]
        : [];
      const updated = await commitWrite(
        db,
        'delivery',
        { rows: [], events: [], messages },
        {
          ctes: [
            {
              // Locked first and read as it is now: the status this statement replaces, for the rollup.
              sql: `prior AS (
              SELECT d.id, d.status FROM delivery.deliveries d
               WHERE d.id = ? AND ${AT_TIME('d."createdAt"', '?::timestamptz', '?::timestamptz')} AND d."leaseToken" = ? FOR UPDATE
            ), ${WRITTEN} AS (
              UPDATE delivery.deliveries d
                 SET status = ?, attempts = ?, "responseCode" = ?, "responseBody" = ?, error = ?, "durationMs" = ?,
                     "nextAttemptAt" = CASE WHEN ?::timestamptz IS NOT NULL AND EXISTS (
                         SELECT 1 FROM delivery.subscriptions s WHERE s.id = d."subscriptionId" AND s.enabled AND s."deletedAt" IS NULL)
                       THEN ?::timestamptz ELSE NULL END,
                     "firstAttemptAt" = COALESCE(d."firstAttemptAt", ?::timestamptz), "lastAttemptAt" = ?::timestamptz,
                     "throttledAttempts" = d."throttledAttempts" + ?,
                     "lockedUntil" = NULL, "leaseToken" = NULL, "updatedAt" = now()
                FROM prior p
               WHERE d.id = p.id AND ${AT_TIME('d."createdAt"', '?::timestamptz', '?::timestamptz')} AND d."leaseToken" = ?
              RETURNING d.id, d."subscriptionId", d."orderKey", d."nextAttemptAt", ?::uuid AS token,
                        d."createdAt", d.test, d.status, p.status AS "priorStatus")`,
              bindings: [
                delivery.id,
                ...timeBounds(delivery.createdAt),
                delivery.leaseToken,
                status,
                attempt,
                result.responseCode,
                result.responseBody,
                result.error,
                result.durationMs,
                nextAttemptAt,
                nextAttemptAt,
                attemptedAt,
                attemptedAt,
                pausedUntil ? 1 : 0,
                ...timeBounds(delivery.createdAt),
                delivery.leaseToken,
                delivery.leaseToken,
              ],
            },
            {
              sql: `attempt_row AS (
              INSERT INTO delivery.attempts ("deliveryId", "deliveryCreatedAt", attempt, outcome, "responseCode", "responseBody", error, "durationMs", "attemptedAt", "pausedMs")
              SELECT id, "createdAt", ?, ?, ?, ?, ?, ?, ?::timestamptz, ?::int FROM ${WRITTEN})`,
              bindings: [
                attempt,
                result.ok ? 'succeeded' : 'failed',
                result.responseCode,
                result.responseBody,
                result.error,
                result.durationMs,
                attemptedAt,
                pausedUntil ? pausedUntil.getTime() - attemptedAt.getTime() : null,
              ],
            },
            {
              sql: `health AS (${HEALTH_UPDATE}
                FROM (SELECT "subscriptionId" AS sid, ?::boolean AS ok, CASE WHEN ?::boolean THEN 0 ELSE 1 END AS failures,
                             ?::timestamptz AS "firstFailure", ?::timestamptz AS paused FROM ${WRITTEN}) h
               WHERE s.id = h.sid AND ${HEALTH_CHANGES} RETURNING s.id)`,
              bindings: [result.ok, result.ok || pausedUntil !== null, attemptedAt, pausedUntil],
            },
            { sql: `order_release AS (${ORDER_RELEASE(WRITTEN)} RETURNING n.id)`, bindings: [] },
            ...(delivery.slotted
              ? [{ sql: `slots AS (${SLOTS_RELEASE(WRITTEN)} RETURNING t."subscriptionId")`, bindings: [] }]
              : []),
            {
              sql: `recorded AS (
              SELECT w.*, ?::boolean AS ok, ?::int AS "pausedMs", ?::timestamptz AS "attemptedAt", ?::int AS "durationMs"
                FROM ${WRITTEN} w)`,
              bindings: [
                result.ok,
                pausedUntil ? pausedUntil.getTime() - attemptedAt.getTime() : null,
                attemptedAt,
                result.durationMs,
              ],
            },
            {
              // The rollup last: after the subscription's and the throttle's rows are locked (see ROLLUP_UPSERT).
              sql: `stats AS (${ROLLUP_UPSERT(
                RECORDED_DELTAS('recorded'),
                `(SELECT count(*) FROM health) + (SELECT count(*) FROM order_release)${delivery.slotted ? ' + (SELECT count(*) FROM slots)' : ''} >= 0`,
              )})`,
              bindings: [],
            },
          ],
        },
      );
      return updated !== undefined;
    },

    async recordAttempts(items) {
      if (!items.length) return new Set();
      const col = <T>(f: (i: AttemptRecord) => T) => items.map(f);
      const { rows } = await db
        .raw<QueryResult<{ id: string }>>(
          `WITH input AS (
           SELECT * FROM unnest(?::uuid[], ?::timestamptz[], ?::timestamptz[], ?::uuid[], ?::text[], ?::int[], ?::int[], ?::text[], ?::text[], ?::int[], ?::timestamptz[], ?::timestamptz[], ?::text[], ?::timestamptz[], ?::boolean[])
             AS i(id, lo, hi, token, status, attempt, "responseCode", "responseBody", error, "durationMs", "nextAttemptAt", "attemptedAt", outcome, paused, slotted)
         ), prior AS (
           -- Locked first, in id order, and read as they are now: the status this statement replaces (the rollup's).
           -- Each row by its id and time, so each probe reads its own week's partition only (migration 018).
           SELECT d.id, d.status FROM delivery.deliveries d
             JOIN input i ON i.id = d.id AND ${AT_TIME('d."createdAt"', 'i.lo', 'i.hi')} AND d."leaseToken" = i.token
            ORDER BY d.id FOR UPDATE OF d
         ), upd AS (
           UPDATE delivery.deliveries d
              SET status = i.status, attempts = i.attempt, "responseCode" = i."responseCode", "responseBody" = i."responseBody",
                  error = i.error, "durationMs" = i."durationMs",
                  "nextAttemptAt" = CASE WHEN i."nextAttemptAt" IS NOT NULL AND EXISTS (
                      SELECT 1 FROM delivery.subscriptions s WHERE s.id = d."subscriptionId" AND s.enabled AND s."deletedAt" IS NULL)
                    THEN i."nextAttemptAt" ELSE NULL END,
                  "firstAttemptAt" = COALESCE(d."firstAttemptAt", i."attemptedAt"), "lastAttemptAt" = i."attemptedAt",
                  "throttledAttempts" = d."throttledAttempts" + CASE WHEN i.paused IS NULL THEN 0 ELSE 1 END,
                  "lockedUntil" = NULL, "leaseToken" = NULL, "updatedAt" = now()
             FROM input i JOIN prior p ON p.id = i.id
            WHERE d.id = i.id AND ${AT_TIME('d."createdAt"', 'i.lo', 'i.hi')} AND d."leaseToken" = i.token
           RETURNING d.id, d."subscriptionId", d."orderKey", d."nextAttemptAt", d."createdAt", d.test, d.status, p.status AS "priorStatus"
         ), ins AS (
           INSERT INTO delivery.attempts ("deliveryId", "deliveryCreatedAt", attempt, outcome, "responseCode", "responseBody", error, "durationMs", "attemptedAt", "pausedMs")
           SELECT i.id, upd."createdAt", i.attempt, i.outcome, i."responseCode", i."responseBody", i.error, i."durationMs", i."attemptedAt",
                  (extract(epoch FROM i.paused - i."attemptedAt") * 1000)::int
             FROM input i JOIN upd ON upd.id = i.id
         ), h AS (
           -- A receiver's Retry-After (paused) is no failure: it only pauses the subscription.
           SELECT upd."subscriptionId" AS sid, bool_or(i.outcome = 'succeeded') AS ok,
                  count(*) FILTER (WHERE i.outcome <> 'succeeded' AND i.paused IS NULL) AS failures,
                  min(i."attemptedAt") FILTER (WHERE i.outcome <> 'succeeded' AND i.paused IS NULL) AS "firstFailure",
                  max(i.paused) AS paused
             FROM input i JOIN upd ON upd.id = i.id GROUP BY upd."subscriptionId"
         ), slotted AS (
           SELECT upd."subscriptionId", i.token FROM input i JOIN upd ON upd.id = i.id WHERE i.slotted
         ), slots AS (${SLOTS_RELEASE('slotted')} RETURNING t."subscriptionId"
         ), health_rows AS (
           -- Locked in id order: two batches of failing subscriptions never wait on each other in a cycle.
           SELECT s.id FROM delivery.subscriptions s JOIN h ON h.sid = s.id
            WHERE ${HEALTH_CHANGES} ORDER BY s.id FOR UPDATE OF s
         ), health AS (${HEALTH_UPDATE} FROM h JOIN health_rows r ON r.id = h.sid WHERE s.id = h.sid AND ${HEALTH_CHANGES} RETURNING s.id
         ), order_release AS (${ORDER_RELEASE('upd')} RETURNING n.id
         ), recorded AS (
           SELECT upd.*, i.outcome = 'succeeded' AS ok, (extract(epoch FROM i.paused - i."attemptedAt") * 1000)::int AS "pausedMs",
                  i."attemptedAt", i."durationMs"
             FROM input i JOIN upd ON upd.id = i.id
         ), stats AS (${ROLLUP_UPSERT(
           RECORDED_DELTAS('recorded'),
           // The rollup's rows last, after the subscriptions' and throttles' (see ROLLUP_UPSERT).
           '(SELECT count(*) FROM health) + (SELECT count(*) FROM slots) + (SELECT count(*) FROM order_release) >= 0',
         )}
         )
         SELECT id FROM upd`,
          [
            col((i) => i.delivery.id),
            ...timeBoundColumns(col((i) => i.delivery.createdAt)),
            col((i) => i.delivery.leaseToken),
            col((i) => (i.decision.kind === 'succeeded' ? 'succeeded' : 'failed')),
            col((i) => i.delivery.attempts + 1),
            col((i) => i.result.responseCode),
            col((i) => i.result.responseBody),
            col((i) => i.result.error),
            col((i) => i.result.durationMs),
            col((i) => (i.decision.kind === 'retry' || i.decision.kind === 'paused' ? i.decision.at : null)),
            col((i) => i.attemptedAt),
            col((i) => (i.result.ok ? 'succeeded' : 'failed')),
            col((i) => (i.decision.kind === 'paused' ? i.decision.until : null)),
            col((i) => i.delivery.slotted ?? false),
          ] as Knex.RawBinding[],
        )
        .options(prepared('delivery-record-attempts-v8'));
      return new Set(rows.map((r) => r.id));
    },

    async listFor(deliveryId) {
      return db<AttemptLogRow>('delivery.attempts').where({ deliveryId }).orderBy('attempt').select(DELIVERY_ATTEMPT_FIELDS);
    },
  };
}
