import { isUuid, paginate, prepared, type Knex } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';

/** A subscription row as stored (presenters decide what leaves the service: never `secretSealed`). */
export type SubscriptionRow = {
  id: string;
  organizationId: string;
  destinationUrl: string;
  /** scheme://host:port, the unit of the per-destination concurrency bound. */
  destinationOrigin: string;
  eventNames: string[];
  enabled: boolean;
  description: string | null;
  /** `none` or `per_entity` (ORDERINGS): one entity's deliveries in commit order. */
  ordering: string;
  /** `hmac-sha256` or `ed25519` (SIGNATURE_SCHEMES, migration 009): fixed at creation. */
  signatureScheme: string;
  /** ed25519: the `whpk_` public key of the signing key (not a secret); null for hmac-sha256. */
  publicKey: string | null;
  /** The signing secret (`whsec_`) or ed25519 private key (`whsk_`), sealed (shared/webhook-secret-box.ts). */
  secretSealed: string;
  /** The secret a rotation replaced, sealed: it still signs beside the new one until previousSecretUntil. */
  previousSecretSealed: string | null;
  previousSecretUntil: Date | null;
  /** Custom headers, receiver auth and a broker destination, sealed (sender/receiver.ts; migration 013), or null when none. */
  receiverSealed: string | null;
  /** What answers show of them, secrets masked (features/subscriptions/receiver.ts `receiverView`), or null. */
  receiverView: {
    headers: Record<string, string>;
    auth: Record<string, unknown> | null;
    /** A broker destination's settings, secrets masked (features/subscriptions/destination.ts); absent for HTTP. */
    destination?: Record<string, unknown>;
  } | null;
  /** Throttling (migration 017): deliveries per second and sent at once at most (null: none), across replicas. */
  rateLimit: number | null;
  maxInFlight: number | null;
  /** A receiver's Retry-After (429/503) paused it until then: its due deliveries are not claimed before. */
  pausedUntil: Date | null;
  /** The JSON filter an event's body must match (@cluster/contracts webhook-filter.ts; migration 016), or null: every event. */
  filter: Record<string, unknown> | null;
  /** Health (migration 006): failed attempts in a row, since when every attempt failed, when `failing` was sent. */
  consecutiveFailures: number;
  failingSince: Date | null;
  failingNotifiedAt: Date | null;
  /** Why and when the service disabled it (DISABLED_REASONS), or null. */
  disabledReason: string | null;
  disabledAt: Date | null;
  createdByUserId: string | null;
  /** A listening CLI's (features/listen; migration 015): its deliveries go down the stream, not over HTTP. */
  temporary: boolean;
  /** A temporary subscription's lease: renewed while its stream is open, deleted by the health sweep once lapsed. */
  listenExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
};

/** What a new subscription is written with (the store sets the timestamps). */
export type NewSubscription = Pick<
  SubscriptionRow,
  | 'id'
  | 'organizationId'
  | 'destinationUrl'
  | 'destinationOrigin'
  | 'eventNames'
  | 'enabled'
  | 'description'
  | 'ordering'
  | 'signatureScheme'
  | 'publicKey'
  | 'secretSealed'
  | 'createdByUserId'
> &
  Partial<Pick<SubscriptionRow, 'receiverSealed' | 'receiverView' | 'rateLimit' | 'maxInFlight' | 'filter'>>;

/** The columns an update may change. */
export type SubscriptionChanges = Partial<
  Pick<
    SubscriptionRow,
    | 'destinationUrl'
    | 'destinationOrigin'
    | 'eventNames'
    | 'enabled'
    | 'description'
    | 'ordering'
    | 'publicKey'
    | 'secretSealed'
    | 'previousSecretSealed'
    | 'previousSecretUntil'
    | 'receiverSealed'
    | 'receiverView'
    | 'rateLimit'
    | 'maxInFlight'
    | 'pausedUntil'
    | 'filter'
    | 'consecutiveFailures'
    | 'failingSince'
    | 'failingNotifiedAt'
    | 'disabledReason'
    | 'disabledAt'
  >
>;

/** What the fan-out needs of a subscription that may receive an event. */
export type FanoutSubscription = Pick<
  SubscriptionRow,
  | 'id'
  | 'organizationId'
  | 'eventNames'
  | 'createdAt'
  | 'destinationUrl'
  | 'destinationOrigin'
  | 'secretSealed'
  | 'previousSecretSealed'
  | 'previousSecretUntil'
  | 'receiverSealed'
  | 'ordering'
  | 'temporary'
  | 'rateLimit'
  | 'maxInFlight'
  | 'pausedUntil'
  | 'filter'
>;

/** The columns that hold a sealed signing secret. */
export type SealedColumn = 'secretSealed' | 'previousSecretSealed' | 'receiverSealed';

/** A subscription's sealed secrets as the re-seal walks them (the previous one only while its grace period runs). */
export type SealedSecrets = Pick<SubscriptionRow, 'id' | 'secretSealed' | 'previousSecretSealed'> &
  Partial<Pick<SubscriptionRow, 'receiverSealed'>>;

/** Webhook subscriptions in Postgres: all SQL of the feature. */
export interface SubscriptionStore {
  /**
   * One page of an organization's live (not deleted) subscriptions, optionally only enabled or disabled ones:
   * the lasting ones, or with `temporary` the listening CLIs' only.
   */
  list(
    organizationId: string,
    filter: { enabled?: boolean; temporary?: boolean },
    page: PageArgs,
  ): Promise<Page<SubscriptionRow>>;
  /** A live subscription of the organization (locked for the transaction with `lock`), or undefined. Non-UUID ids find nothing. */
  find(organizationId: string, id: string, opts?: { lock?: boolean }): Promise<SubscriptionRow | undefined>;
  insert(values: NewSubscription): Promise<SubscriptionRow>;
  update(id: string, values: SubscriptionChanges): Promise<SubscriptionRow>;
  /**
   * Keeps the subscription's row of shared throttle state (delivery.throttles) in step with its limits: present
   * while it has a rateLimit or a maxInFlight (an unthrottled subscription has none, so its claims pay nothing).
   */
  syncThrottle(id: string, throttled: boolean): Promise<void>;
  /** Deletes softly (records stay for the audit trail): disabled and marked deleted. */
  softDelete(id: string): Promise<void>;
  /**
   * The enabled, live subscriptions of these organizations whose eventNames hold any of these selectors
   * (the fan-out's hot read; the selectors of an event name are `selectorsOf` in @cluster/contracts), in id
   * order: two fan-outs of one event (a batch read again during a rebalance) then insert its deliveries in one
   * order, so they never wait on each other's in a cycle (a deadlock, and a failed batch read a third time).
   */
  matching(organizationIds: string[], selectors: string[]): Promise<FanoutSubscription[]>;
  /** Every subscription id, deleted ones included (the retention sweeper's walk). */
  allIds(): Promise<string[]>;
  /**
   * Up to `limit` subscriptions (deleted ones included), in id order after `afterId`, whose
   * secret, or previous secret while its grace period runs, is not sealed with `prefix`: the
   * re-seal's walk after a key rotation.
   */
  sealedOtherwise(prefix: string, afterId: string | null, limit: number): Promise<SealedSecrets[]>;
  /**
   * Replaces a sealed value (`column`: the secret or the previous one) if it is still `from` (a
   * secret rotated meanwhile stays); false when it was not.
   */
  replaceSealed(id: string, from: string, to: string, column?: SealedColumn): Promise<boolean>;
  /** Disables a live, enabled subscription for `reason` (the service's decision); undefined when it was not enabled. */
  disableFor(id: string, reason: string): Promise<SubscriptionRow | undefined>;
  /**
   * Marks `failing` as sent for the enabled subscriptions whose run of failed attempts reached `threshold`
   * and has not been announced; returns them (each is marked once, whichever replica asks).
   */
  claimFailingNotices(threshold: number): Promise<SubscriptionRow[]>;
  /** Ids of the enabled subscriptions whose every attempt has failed since before `cutoff`. */
  failingSinceBefore(cutoff: Date): Promise<string[]>;
  /**
   * Adds to the events each subscription's filter kept back in the hour of `at` (one statement; rows locked in
   * subscription order, so two replicas' batches cannot deadlock).
   */
  addFiltered(counts: ReadonlyMap<string, number>, at: Date): Promise<void>;
  /** The events a subscription's filter kept back in the hours from the one holding `since`. */
  filteredSince(subscriptionId: string, since: Date): Promise<number>;
  /** Deletes the filtered counts of hours before `cutoff`; returns how many hours were deleted. */
  pruneFiltered(cutoff: Date): Promise<number>;
}

/** The knex implementation of SubscriptionStore. */
export function createSubscriptionStore(db: Knex): SubscriptionStore {
  const subscriptions = () => db<SubscriptionRow>('delivery.subscriptions');
  const live = (organizationId: string) => subscriptions().where({ organizationId }).whereNull('deletedAt');
  return {
    list(organizationId, filter, page) {
      const q = live(organizationId).andWhere({ temporary: filter.temporary ?? false });
      if (filter.enabled !== undefined) q.andWhere({ enabled: filter.enabled });
      return paginate<SubscriptionRow>(q, page);
    },
    async find(organizationId, id, opts = {}) {
      if (!isUuid(id)) return undefined;
      const q = live(organizationId).andWhere({ id });
      if (opts.lock) q.forUpdate();
      return q.first();
    },
    async insert(values) {
      const [row] = await subscriptions().insert(values).returning('*');
      return row;
    },
    async update(id, values) {
      const [row] = await subscriptions()
        .where({ id })
        .update({ ...values, updatedAt: db.fn.now() })
        .returning('*');
      return row;
    },
    async syncThrottle(id, throttled) {
      if (throttled) await db.raw('INSERT INTO delivery.throttles ("subscriptionId") VALUES (?) ON CONFLICT DO NOTHING', [id]);
      else await db('delivery.throttles').where({ subscriptionId: id }).delete();
    },
    async softDelete(id) {
      await subscriptions().where({ id }).update({ deletedAt: db.fn.now(), enabled: false, updatedAt: db.fn.now() });
    },
    async matching(organizationIds, selectors) {
      // One constant text (arrays, not IN lists), so it is a prepared statement: its planning
      // took ten times its execution.
      const rows: FanoutSubscription[] = await subscriptions()
        .whereRaw('"organizationId" = ANY(?::uuid[])', [organizationIds])
        .where({ enabled: true })
        .whereNull('deletedAt')
        .whereRaw('"eventNames" && ?::text[]', [selectors])
        .select(
          'id',
          'organizationId',
          'eventNames',
          'createdAt',
          'destinationUrl',
          'destinationOrigin',
          'secretSealed',
          'previousSecretSealed',
          'previousSecretUntil',
          'receiverSealed',
          'ordering',
          'temporary',
          'rateLimit',
          'maxInFlight',
          'pausedUntil',
          'filter',
        )
        .orderBy('id')
        .options(prepared('delivery-fanout-subscriptions-v8'));
      return rows;
    },
    async allIds() {
      return (await subscriptions().select('id')).map((r) => r.id);
    },
    async sealedOtherwise(prefix, afterId, limit) {
      const q = subscriptions()
        .whereRaw(
          `(left("secretSealed", ?) <> ? OR ("previousSecretUntil" > now() AND left("previousSecretSealed", ?) <> ?)
            OR left("receiverSealed", ?) <> ?)`,
          [prefix.length, prefix, prefix.length, prefix, prefix.length, prefix],
        )
        .orderBy('id')
        .limit(limit)
        .select('id', 'secretSealed', 'previousSecretSealed', 'previousSecretUntil', 'receiverSealed');
      if (afterId) q.andWhere('id', '>', afterId);
      const now = Date.now();
      return (await q).map(({ id, secretSealed, previousSecretSealed, previousSecretUntil, receiverSealed }) => ({
        id,
        secretSealed,
        receiverSealed,
        previousSecretSealed: previousSecretUntil && previousSecretUntil.getTime() > now ? previousSecretSealed : null,
      }));
    },
    async replaceSealed(id, from, to, column = 'secretSealed') {
      return (
        (await subscriptions()
          .where({ id, [column]: from })
          .update({ [column]: to })) === 1
      );
    },
    async disableFor(id, reason) {
      const [row] = await subscriptions()
        .where({ id, enabled: true })
        .whereNull('deletedAt')
        .update({ enabled: false, disabledReason: reason, disabledAt: db.fn.now(), updatedAt: db.fn.now() })
        .returning('*');
      return row;
    },
    async claimFailingNotices(threshold) {
      return subscriptions()
        .where({ enabled: true })
        .whereNull('deletedAt')
        .whereNotNull('failingSince')
        .whereNull('failingNotifiedAt')
        .where('consecutiveFailures', '>=', threshold)
        .update({ failingNotifiedAt: db.fn.now() })
        .returning('*');
    },
    async failingSinceBefore(cutoff) {
      const rows = await subscriptions()
        .where({ enabled: true })
        .whereNull('deletedAt')
        .where('failingSince', '<', cutoff)
        .select('id');
      return rows.map((r) => r.id);
    },
    async addFiltered(counts, at) {
      const ids = [...counts.keys()].filter((id) => (counts.get(id) ?? 0) > 0).sort();
      if (!ids.length) return;
      await db.raw(
        `INSERT INTO delivery.filtered_counts ("subscriptionId", "hour", "count")
         SELECT s, date_trunc('hour', ?::timestamptz), n FROM unnest(?::uuid[], ?::bigint[]) AS t(s, n) ORDER BY s
         ON CONFLICT ("subscriptionId", "hour") DO UPDATE SET "count" = filtered_counts."count" + EXCLUDED."count"`,
        [at, ids, ids.map((id) => counts.get(id) ?? 0)],
      );
    },
    async filteredSince(subscriptionId, since) {
      const row = await db('delivery.filtered_counts')
        .where({ subscriptionId })
        .where('hour', '>=', db.raw("date_trunc('hour', ?::timestamptz)", [since]))
        .sum<{ n: string | null }>({ n: 'count' })
        .first();
      return Number(row?.n ?? 0);
    },
    async pruneFiltered(cutoff) {
      return db('delivery.filtered_counts').where('hour', '<', cutoff).delete();
    },
  };
}
