import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { RelaySession } from './relay-connection.ts';

/** One slot's lease as a relay reads it. */
export interface LeaseState {
  slot: number;
  /** The relay that holds it, live or not. */
  holder: string | null;
  /** Held by a live relay other than the reader (unexpired, its connection's backend still there). */
  takenByOther: boolean;
}

/**
 * What a relay should hold: a fair share of the slots, ceil(slots / live relays), keeping those it
 * holds, then claiming free ones starting at an offset of its own (its rank among the live relays),
 * so that relays starting together reach for different slots. Those past its share it gives back.
 */
export function planLeases(opts: { me: string; slots: number; liveRelays: string[]; leases: LeaseState[] }): {
  claim: number[];
  release: number[];
} {
  const live = [...new Set([...opts.liveRelays, opts.me])].sort();
  const share = Math.ceil(opts.slots / live.length);
  const byslot = new Map(opts.leases.map((l) => [l.slot, l]));
  const mine = opts.leases.filter((l) => l.holder === opts.me && !l.takenByOther && l.slot < opts.slots).map((l) => l.slot);
  const keep = mine.slice(0, share);
  const release = opts.leases.filter((l) => l.holder === opts.me && !keep.includes(l.slot)).map((l) => l.slot);
  const claim = [...keep];
  const offset = (live.indexOf(opts.me) * share) % opts.slots;
  for (let i = 0; i < opts.slots && claim.length < share; i++) {
    const slot = (offset + i) % opts.slots;
    if (claim.includes(slot)) continue;
    const lease = byslot.get(slot);
    if (!lease || !lease.takenByOther) claim.push(slot);
  }
  return { claim: claim.sort((a, b) => a - b), release };
}

/** The slots a relay leads, renewed as it goes. */
export interface SlotLeases {
  /** This relay's name in the lease rows. */
  readonly me: string;
  /** Slots this relay may publish now (its leases, valid by its own clock with a margin). */
  held(): number[];
  /** Whether `renew` is due: a lease is half way to its expiry, or this relay holds less than its share. */
  due(): boolean;
  /** Registers this relay as live, sets the slot count, and renews, claims and gives back leases. */
  renew(c: RelaySession): Promise<number[]>;
  /** Forgets the leases (a new connection: they must be claimed again). */
  forget(): void;
  /** Gives every lease back and leaves (a graceful stop), so the other relays take over at once. */
  leave(c: RelaySession): Promise<void>;
}

/**
 * Lease rows of `<schema>.outbox_leases`, one per slot (addOutboxSlots). A lease is free when it has
 * no holder, has expired (`leaseMs` after its last renewal: a frozen relay), or its holder's
 * registered connection is gone from pg_stat_activity (a killed relay: the server ends its backend
 * at once). A relay renews on the connection it LISTENs on, every quarter of `leaseMs`, and
 * publishes a slot only while its lease is valid by its own clock with a quarter to spare.
 */
export function createSlotLeases(opts: {
  schema: string;
  /** Slots this relay asks for (OUTBOX_RELAY_SLOTS): writers hash entities into as many. */
  slots: number;
  leaseMs: number;
  /** Shortest time between two renewals while this relay holds less than its share. */
  retryMs: number;
}): SlotLeases {
  const s = `"${opts.schema}"`;
  const me = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  let held: number[] = [];
  let validUntil = 0;
  let renewedAt = 0;
  let share = 1;
  let announced = false;
  // A relay whose backend is still there and whose heartbeat is unexpired.
  const liveRelays = `SELECT r.holder FROM ${s}.outbox_relays r
      JOIN pg_stat_activity a ON a.pid = r.pid AND a.backend_start = r."backendStart"
     WHERE r."expiresAt" > now()`;
  return {
    me,
    held: () => (Date.now() < validUntil ? held : []),
    due() {
      const since = Date.now() - renewedAt;
      return since >= opts.leaseMs / 4 || (held.length < share && since >= opts.retryMs);
    },
    async renew(c) {
      const started = Date.now();
      // Registers this relay (its connection's backend), drops relays long gone, and at its first
      // renewal sets the slot count writers use: the newest relay's OUTBOX_RELAY_SLOTS, so relays of
      // two releases rolling side by side do not flip it back and forth (docs/decisions.md).
      await c.query(
        `WITH me AS (
           INSERT INTO ${s}.outbox_relays (holder, pid, "backendStart", "expiresAt")
           SELECT $1, pid, backend_start, now() + $2 * interval '1 millisecond' FROM pg_stat_activity WHERE pid = pg_backend_pid()
           ON CONFLICT (holder) DO UPDATE SET pid = EXCLUDED.pid, "backendStart" = EXCLUDED."backendStart", "expiresAt" = EXCLUDED."expiresAt"),
         gone AS (DELETE FROM ${s}.outbox_relays WHERE "expiresAt" < now() - interval '1 hour' AND holder <> $1)
         INSERT INTO ${s}.outbox_settings (id, slots) SELECT true, $3 WHERE $4
         ON CONFLICT (id) DO UPDATE SET slots = EXCLUDED.slots WHERE outbox_settings.slots <> EXCLUDED.slots`,
        [me, opts.leaseMs, opts.slots, !announced],
      );
      announced = true;
      // Every slot that has rows is led, also one past this relay's count (written by a relay with a
      // larger OUTBOX_RELAY_SLOTS, or before the count was lowered).
      const { rows: state } = await c.query<{ slots: number; live: string[] }>(
        `SELECT greatest($1::int, coalesce((SELECT max(slot) + 1 FROM ${s}.outbox), 0),
                coalesce((SELECT slots FROM ${s}.outbox_settings WHERE id), 0)) AS slots,
                ARRAY(${liveRelays}) AS live`,
        [opts.slots],
      );
      const slots = state[0].slots;
      const { rows: leases } = await c.query<LeaseState>(
        `WITH want AS (
           INSERT INTO ${s}.outbox_leases (slot) SELECT generate_series(0, $1::int - 1) ON CONFLICT (slot) DO NOTHING)
         SELECT l.slot, l.holder,
                (l.holder IS NOT NULL AND l.holder <> $2 AND l."expiresAt" > now() AND l.holder IN (${liveRelays})) AS "takenByOther"
           FROM ${s}.outbox_leases l ORDER BY l.slot`,
        [slots, me],
      );
      const plan = planLeases({ me, slots, liveRelays: state[0].live, leases });
      share = Math.ceil(slots / new Set([...state[0].live, me]).size);
      if (plan.release.length) {
        await c.query(
          `UPDATE ${s}.outbox_leases SET holder = NULL, "expiresAt" = '-infinity' WHERE holder = $1 AND slot = ANY($2)`,
          [me, plan.release],
        );
      }
      // Taken only if still free when the row is locked: of two relays claiming one slot, one gets it.
      const { rows: got } = await c.query<{ slot: number }>(
        `UPDATE ${s}.outbox_leases l SET holder = $1, "expiresAt" = now() + $2 * interval '1 millisecond'
          WHERE l.slot = ANY($3)
            AND (l.holder IS NULL OR l.holder = $1 OR l."expiresAt" <= now() OR l.holder NOT IN (${liveRelays}))
          RETURNING l.slot`,
        [me, opts.leaseMs, plan.claim],
      );
      held = got.map((r) => r.slot).sort((a, b) => a - b);
      renewedAt = Date.now();
      validUntil = started + (opts.leaseMs * 3) / 4;
      return held;
    },
    forget() {
      held = [];
      validUntil = 0;
      renewedAt = 0;
    },
    async leave(c) {
      held = [];
      validUntil = 0;
      await c.query(`UPDATE ${s}.outbox_leases SET holder = NULL, "expiresAt" = '-infinity' WHERE holder = $1`, [me]);
      await c.query(`DELETE FROM ${s}.outbox_relays WHERE holder = $1`, [me]);
    },
  };
}
