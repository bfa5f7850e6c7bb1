/** The bounds of one replica's delivery loop. */
export interface SchedulerLimits {
  /** Sends in flight per replica. */
  concurrency: number;
  /** Sends in flight per destination origin. */
  perOrigin: number;
  /** Longest time between two claims, and between two looks for the next due time. */
  pollMs: number;
}

/** What one claim may take: `limit` in all, `caps[origin]` for the origins held now, `defaultCap` for any other. */
export interface ClaimRoom {
  limit: number;
  defaultCap: number;
  caps: Map<string, number>;
}

/** Per destination origin: sends in flight, claimed deliveries waiting, and attempts started but not yet finished. */
interface Origin<D> {
  inFlight: number;
  queue: D[];
  started: number;
  /** Deliveries held for their send time (a rate-limited subscription's `notBefore`), not queued yet. */
  timed: number;
}

/**
 * The decisions of the delivery loop, without its I/O (no database, no timers, an
 * injected clock): which deliveries may be sent now, what a claim may take, and
 * when to claim and to sleep.
 *
 * Sending: at most `concurrency` at a time and `perOrigin` per destination origin,
 * so one slow receiver holds only its own slots; every origin with work gets its
 * slots (origins are served in turn, each up to its slots).
 *
 * Claiming is batched: each origin holds up to three times its slots (in flight
 * plus a short local queue, all under lease), the replica three times its
 * concurrency (plus attempts being recorded), and an origin is refilled from
 * Postgres once a third of that has drained, so the database sees one claim per
 * batch, not one per delivery.
 *
 * Whether to claim: when due rows may be waiting that no claim has seen (the
 * backlog flag: new deliveries left unleased, a claim that came back full), when a
 * retry scheduled here falls due, or once per poll interval (expired leases, other
 * replicas' retries). While the backlog is clear, freed slots do not send the loop
 * to Postgres for nothing.
 */
export function createOriginScheduler<D extends { destinationOrigin: string; notBefore?: Date | null }>(
  limits: SchedulerLimits,
  clock: () => number = Date.now,
) {
  const slots = limits.perOrigin;
  /** Deliveries an origin may hold (in flight and queued); refilled when down to two thirds. */
  const holdPerOrigin = slots * 3;
  const refillAt = slots * 2;
  const holdTotal = limits.concurrency * 3;
  const origins = new Map<string, Origin<D>>();
  let sending = 0;
  let held = 0;
  let backlog = true;
  let nextDue = Infinity;
  let lastDueCheck = 0;
  let lastClaim = 0;
  /** Deliveries of rate-limited subscriptions waiting for their send time, earliest first. */
  const timed: D[] = [];
  const timeOf = (d: D) => (d.notBefore ? new Date(d.notBefore).getTime() : 0);
  const originOf = (origin: string): Origin<D> => {
    const o = origins.get(origin) ?? { inFlight: 0, queue: [], started: 0, timed: 0 };
    origins.set(origin, o);
    return o;
  };
  /** Queues the timed deliveries whose send time has come. */
  const releaseTimed = () => {
    const now = clock();
    while (timed.length && timeOf(timed[0]) <= now) {
      const d = timed.shift()!;
      const o = originOf(d.destinationOrigin);
      o.timed--;
      o.queue.push(d);
    }
  };

  /**
   * What an origin holds against its claim cap: sends in flight and claims waiting. Attempts
   * being recorded do not count (their slot is free, and their lease keeps them from being
   * claimed again), so a slow group commit never throttles sending; `holdTotal` still bounds them.
   */
  const heldBy = (origin: string) => {
    const o = origins.get(origin);
    return o ? o.inFlight + o.queue.length + o.timed : 0;
  };

  return {
    /**
     * Queues claimed (or handed-over) deliveries by origin; they are held until `finished`. One with a send
     * time still ahead (`notBefore`: its subscription's rate slot) waits for it first, counted against its origin.
     */
    add(deliveries: D[]): void {
      const now = clock();
      for (const d of deliveries) {
        const o = originOf(d.destinationOrigin);
        if (timeOf(d) > now) {
          o.timed++;
          const at = timeOf(d);
          let i = timed.length;
          while (i > 0 && timeOf(timed[i - 1]) > at) i--;
          timed.splice(i, 0, d);
        } else o.queue.push(d);
        held++;
      }
    },

    /** When the earliest delivery held for its send time may go (ms), or Infinity. */
    nextTimedAt(): number {
      return timed.length ? timeOf(timed[0]) : Infinity;
    },

    /** Takes the queued deliveries that may be sent now (free slots of their origin and of the replica), in origin order. */
    takeSendable(): D[] {
      releaseTimed();
      const out: D[] = [];
      for (const o of origins.values()) {
        while (o.queue.length && o.inFlight < slots && sending < limits.concurrency) {
          out.push(o.queue.shift()!);
          o.inFlight++;
          o.started++;
          sending++;
        }
      }
      return out;
    },

    /**
     * A send to `origin` is over: its slot is free. Returns true when the loop should
     * claim again: the origin has drained to its refill mark, or to nothing, and due
     * rows may be waiting.
     */
    sent(origin: string): boolean {
      const o = origins.get(origin);
      if (o) o.inFlight--;
      sending--;
      const h = heldBy(origin);
      return backlog && (h === refillAt || h === 0);
    },

    /**
     * The attempt of a delivery to `origin` is over (recorded, or failed): it is held no
     * more. Returns true when the replica-wide bound had stopped claiming and due rows
     * may be waiting.
     */
    finished(origin: string): boolean {
      const o = origins.get(origin);
      if (o) {
        o.started = Math.max(0, o.started - 1);
        if (o.inFlight === 0 && !o.queue.length && !o.started && !o.timed) origins.delete(origin);
      }
      const wasFull = held >= holdTotal;
      held--;
      return wasFull && backlog;
    },

    /** How many more deliveries to `origin` the replica would hold now (the fan-out's handoff). */
    capacity(origin: string): number {
      return Math.max(0, Math.min(holdPerOrigin - heldBy(origin), holdTotal - held));
    },

    /** Takes every queued delivery out (the loop is stopping): their leases go back. */
    drain(): D[] {
      for (const o of origins.values()) o.timed = 0;
      const queued = [...timed.splice(0), ...[...origins.values()].flatMap((o) => o.queue.splice(0))];
      held -= queued.length;
      return queued;
    },

    /** Sends in flight now. */
    sending: () => sending,
    /** Deliveries held now (queued, in flight, or being recorded). */
    held: () => held,

    /** New due rows exist that no claim has seen (inserted unleased, notified by another replica, or a claim failed). */
    markBacklog(): void {
      backlog = true;
    },

    /**
     * Decides whether to claim now. When so, returns what the claim may take and notes
     * that one is starting (the backlog is cleared before the query: a wake-up arriving
     * during it sets it again); otherwise undefined.
     */
    beginClaim(): ClaimRoom | undefined {
      const limit = holdTotal - held;
      const now = clock();
      const worthAsking = backlog || now >= nextDue || now - lastClaim >= limits.pollMs;
      if (limit <= 0 || !worthAsking) return undefined;
      const caps = new Map<string, number>();
      for (const origin of origins.keys()) caps.set(origin, Math.max(0, holdPerOrigin - heldBy(origin)));
      backlog = false;
      lastClaim = now;
      return { limit, defaultCap: holdPerOrigin, caps };
    },

    /**
     * What a claim took. A full scan window (`more`), a claim full for the replica or
     * for an origin, or an origin left out (no room): more may be due behind it.
     */
    claimed(room: ClaimRoom, claimed: D[], more: boolean): void {
      const perOrigin = new Map<string, number>();
      for (const d of claimed) perOrigin.set(d.destinationOrigin, (perOrigin.get(d.destinationOrigin) ?? 0) + 1);
      if (
        more ||
        claimed.length === room.limit ||
        [...room.caps.values()].some((cap) => cap === 0) ||
        [...perOrigin].some(([o, n]) => n >= (room.caps.get(o) ?? room.defaultCap))
      )
        backlog = true;
    },

    /** A retry was scheduled at `at` (ms): true when it is earlier than anything the loop sleeps towards (wake it to re-plan). */
    retryAt(at: number): boolean {
      if (at >= nextDue) return false;
      nextDue = at;
      return true;
    },

    /** Whether to ask the database for the next due time (at most once per poll interval). */
    dueCheckDue(): boolean {
      return clock() - lastDueCheck >= limits.pollMs;
    },

    /** The database's next due time (ms, Infinity when nothing is scheduled). */
    dueChecked(at: number): void {
      nextDue = at;
      lastDueCheck = clock();
    },

    /** How long to sleep: until the next scheduled attempt, or the poll interval (at least 1 ms). */
    sleepMs(): number {
      return Math.max(1, Math.min(nextDue, lastDueCheck + limits.pollMs, lastClaim + limits.pollMs) - clock());
    },

    /** After a sleep: a retry that has fallen due is claimed next. */
    woke(): void {
      if (nextDue <= clock()) {
        nextDue = Infinity;
        backlog = true;
      }
    },
  };
}
