import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

/**
 * The ambient transaction of a call (docs/decisions-api.md, "How a key holds under every fault"):
 * a backend runs a call under an Idempotency-Key in one transaction, and everything the call's
 * handler writes must join it, through whatever store it goes. The stores of a service are made
 * once, over `ambientDb(pool)`: every query on it runs in the transaction `inAmbientTransaction`
 * opened for the current call, or on the pool when there is none (or it has ended). A store's own
 * `db.transaction(...)` is then a savepoint inside it.
 *
 * The transaction follows the call's async context, so whatever a call starts and does not await
 * (a background run, a loop's wake-up) would join it while it is open: start such work with
 * `afterCommit`, which runs it once the call's transaction has ended.
 */
const ambient = new AsyncLocalStorage<Knex.Transaction>();

/** The call's open transaction, if any. */
function current(): Knex.Transaction | undefined {
  const trx = ambient.getStore();
  return trx && !trx.isCompleted() ? trx : undefined;
}

/**
 * A knex that runs on the current call's transaction when there is one, else on `pool`. Pass it to
 * the service's stores; keep `pool` for what must never join a call's transaction (readiness, the
 * outbox relay's own connections, the transaction's own opening).
 */
export function ambientDb(pool: Knex): Knex {
  const target = (): Knex => current() ?? pool;
  return new Proxy(pool, {
    apply: (_pool, _this, args: unknown[]): unknown => Reflect.apply(target() as (...a: unknown[]) => unknown, undefined, args),
    get(_pool, property): unknown {
      const db = target();
      const value: unknown = Reflect.get(db, property, db);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(db) : value;
    },
  });
}

/**
 * Runs `work` in a transaction of `pool` that every `ambientDb(pool)` query made during it joins.
 * Commits when `work` resolves, rolls back when it throws (and rethrows).
 */
export function inAmbientTransaction<T>(pool: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return pool.transaction((trx) => ambient.run(trx, () => work(trx)));
}

/**
 * Runs `fn` once the current call's transaction has committed (never, if it rolls back), or now
 * when there is none: for in-process wake-ups of a loop that reads what the write committed.
 */
export function afterCommit(fn: () => void): void {
  const trx = current();
  if (!trx) return fn();
  trx.executionPromise.then(fn, () => {});
}
