/**
 * Remembers the delivery ids a receiver has processed, so a repeat (a retry after a lost
 * answer, or a captured request replayed within the tolerance) is answered without acting
 * again. Keep ids at least 25 hours: retries of one delivery last up to 24 hours.
 * Implement it over your database or Redis for several receiver processes.
 */
export interface ReplayGuard {
  /** Whether `id` was processed (and is still remembered). */
  has(id: string): boolean | Promise<boolean>;
  /** Records that `id` was processed; call it after your handler succeeded, so a failed attempt is retried. */
  remember(id: string): void | Promise<void>;
}

/** Options of the in-memory guard. */
export interface MemoryReplayGuardOptions {
  /** How long an id is remembered, in seconds (default 25 hours). */
  ttlSeconds?: number;
  /** Most ids kept; the oldest are forgotten first (default 100 000). */
  maxEntries?: number;
  /** This clock, in milliseconds (tests; default `Date.now`). */
  now?: () => number;
}

/** The in-memory ReplayGuard: synchronous, and it tells how many ids it holds. */
export interface MemoryReplayGuard extends ReplayGuard {
  has(id: string): boolean;
  remember(id: string): void;
  /** How many ids are remembered now. */
  size(): number;
}

/** Default memory of a replay guard: 25 hours. */
export const DEFAULT_REPLAY_TTL_SECONDS = 25 * 60 * 60;

/**
 * A ReplayGuard in this process's memory: right for one receiver process. Ids expire after
 * `ttlSeconds`; beyond `maxEntries` the oldest are dropped, so memory stays bounded.
 */
export function createMemoryReplayGuard(options: MemoryReplayGuardOptions = {}): MemoryReplayGuard {
  const ttlMs = (options.ttlSeconds ?? DEFAULT_REPLAY_TTL_SECONDS) * 1000;
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  // Insertion order is expiry order (one ttl for all), so expired ids are always at the front.
  const seen = new Map<string, number>();
  const prune = () => {
    const t = now();
    for (const [id, expires] of seen) {
      if (expires > t && seen.size <= maxEntries) break;
      seen.delete(id);
    }
  };
  return {
    has(id) {
      prune();
      return seen.has(id);
    },
    remember(id) {
      seen.delete(id);
      seen.set(id, now() + ttlMs);
      prune();
    },
    size() {
      prune();
      return seen.size;
    },
  };
}
