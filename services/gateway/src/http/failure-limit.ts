import { DomainError, fromConnectError } from '@cluster/platform';
import type { GatewayContext } from './context.ts';
import type { RateLimiter } from './rate-limit.ts';

/** How a caller proves itself (an API key, a code-host signature), as the failure limit sees it before any check. */
export interface Proof {
  /** A hash naming the proof: once refused, it is refused again without a check while its address is over. */
  id?: string;
  /** False when the proof cannot succeed (a key not of our shape, no signature): no check is spent on it when over. */
  wellFormed: boolean;
}

export interface FailureLimitOptions {
  /** Failed authentications per client address (AUTH_FAILURE_LIMIT_PER_MINUTE). */
  failures: RateLimiter;
  /** Checks for over-limit addresses running at once on this replica. */
  checks?: number;
  /** Checks for over-limit addresses that may wait for one of those; more are refused. */
  waiting?: number;
  /** Refused proofs this replica remembers (the oldest are forgotten first). */
  remembered?: number;
  /** Told how each attempt of an over-limit address ended (a metric). */
  onOverLimit?: (outcome: OverLimitOutcome) => void;
  clock?: () => number;
}

/**
 * What became of an attempt from an over-limit address: refused without a check (malformed or
 * remembered), refused after one, refused because every check slot and place in line was taken,
 * or let through (it authenticated).
 */
export type OverLimitOutcome = 'refused_unchecked' | 'refused_checked' | 'refused_busy' | 'passed';

const WINDOW_MS = 60_000;

/**
 * The per-address limit on failed authentications, for every way a caller proves itself. Failures
 * (401s) are counted per client address; once an address is over its limit, its failed attempts
 * answer 429 rate_limit with Retry-After instead of 401, but a proof that succeeds always goes
 * through: behind a NAT or a balancer, one hostile client must not lock out everyone sharing its
 * address.
 *
 * What a flood from an over-limit address costs, and its bounds:
 * - a malformed proof, or one this replica refused in the last minute: no check at all (a peek at
 *   the address's count, a hash, a map lookup), 429;
 * - a proof never seen (an attacker rotating random keys): one real check, since that is what lets
 *   a valid key through. These checks share `checks` (4) slots per replica, whatever the address,
 *   with `waiting` (256) more queued in order: the core spends at most 4 concurrent lookups per
 *   replica on over-limit addresses, however fast they send, and a valid key waits its turn.
 *   A per-address cap on checks would not do: an attacker who exceeds it locks everyone out again.
 *   Only with more than `checks + waiting` unanswered checks pending on a replica (a volumetric
 *   flood, for the ingress's connection limits) is a new one refused unchecked, with 429.
 * Addresses under their limit are checked as before, without the slots.
 */
export function createFailureLimit(opts: FailureLimitOptions) {
  const { failures, checks = 4, waiting = 256, remembered = 10_000, onOverLimit = () => {}, clock = Date.now } = opts;
  const refused = createRecentSet(remembered, WINDOW_MS, clock);
  const slots = createSlots(checks, waiting);

  /** Runs `attempt`; a 401 counts against the address and its proof is remembered. Backend errors come out as DomainErrors. */
  async function counted<T>(address: string, proof: Proof, attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (err) {
      const known = fromConnectError(err);
      if (known?.status === 401) {
        if (proof.id) refused.add(proof.id);
        await failures.hit(address);
      }
      throw known ?? err;
    }
  }

  /** Runs `attempt` (the check of `proof`) under the limit of the request's client address. */
  return async function limitFailures<T>(ctx: GatewayContext, proof: Proof, attempt: () => Promise<T>): Promise<T> {
    const address = `auth-failures:${ctx.ip}`;
    const gate = await failures.peek(address);
    if (gate.allowed) return counted(address, proof, attempt);
    const overLimit = (outcome: OverLimitOutcome) => {
      onOverLimit(outcome);
      return new DomainError('rate_limit', 'too many failed authentications from this address', { retryAfter: gate.retryAfter });
    };
    if (!proof.wellFormed || (proof.id && refused.has(proof.id))) throw overLimit('refused_unchecked');
    try {
      const passed = await slots.run(
        () => counted(address, proof, attempt),
        () => overLimit('refused_busy'),
      );
      onOverLimit('passed');
      return passed;
    } catch (err) {
      throw err instanceof DomainError && err.status === 401 ? overLimit('refused_checked') : err;
    }
  };
}
export type FailureLimit = ReturnType<typeof createFailureLimit>;

/** At most `size` tasks at once and `waiting` more queued in order; beyond that, `full()` is thrown. */
function createSlots(size: number, waiting: number) {
  let busy = 0;
  const queue: (() => void)[] = [];
  return {
    async run<T>(task: () => Promise<T>, full: () => Error): Promise<T> {
      if (busy < size) busy++;
      else if (queue.length < waiting) await new Promise<void>((resolve) => queue.push(resolve));
      else throw full();
      try {
        return await task();
      } finally {
        // The slot passes straight to the next in line, if any.
        const next = queue.shift();
        if (next) next();
        else busy--;
      }
    },
  };
}

/** Ids remembered for `ttlMs`, at most `max` of them (a Map keeps insertion order: the oldest go first). */
function createRecentSet(max: number, ttlMs: number, clock: () => number) {
  const until = new Map<string, number>();
  return {
    has(id: string): boolean {
      const t = until.get(id);
      if (t === undefined) return false;
      if (t > clock()) return true;
      until.delete(id);
      return false;
    },
    add(id: string): void {
      until.delete(id);
      until.set(id, clock() + ttlMs);
      if (until.size > max) until.delete(until.keys().next().value!);
    },
  };
}
