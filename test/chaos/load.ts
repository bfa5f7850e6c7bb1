import { Agent, request } from 'undici';
import { sleep } from '../support/poll.ts';

/** One HTTP request of the load; `status` 0 is a network error or a timeout. Times are epoch ms. */
export interface Attempt {
  op: 'write' | 'read';
  startedAt: number;
  endedAt: number;
  status: number;
}

/** One entry create as the client saw it, over all its attempts under one Idempotency-Key. */
export interface Write {
  key: string;
  startedAt: number;
  endedAt: number;
  /** accepted: 201 (perhaps a replay); rejected: a 4xx it does not retry; gave_up: retries exhausted. */
  outcome: 'accepted' | 'rejected' | 'gave_up';
  entryId?: string;
}

export interface LoadOptions {
  baseUrl: string;
  apiKey: string;
  projectId: string;
  writesPerSecond: number;
  readsPerSecond: number;
  /** A request not answered within this is a failure (a frozen process answers nothing). */
  requestTimeoutMs: number;
  /** A prefix of every Idempotency-Key (keys are unique per run). */
  keyPrefix: string;
  /** Aborted (an interrupted soak): writes stop retrying at once. */
  signal?: AbortSignal;
}

export interface LoadResult {
  attempts: Attempt[];
  writes: Write[];
  /** Ticks skipped because too many writes were still in flight. */
  skipped: number;
}

/** Retries of one write: until it has been retried this long, or this often. */
const WRITE_GIVE_UP_MS = 90_000;
const WRITE_MAX_ATTEMPTS = 40;
/** Writes in flight (retrying) at most; a tick beyond is skipped and counted. */
const MAX_IN_FLIGHT = 1000;

/**
 * The soak's load: entry creates at a steady rate, each under its own Idempotency-Key and retried
 * with that key on a 5xx, a network error, 409 (the key's first try still running) or 429, with
 * capped backoff that honours Retry-After (bounded); and a stream of reads (an entry just written, a page of the project's
 * entries), never retried. Every HTTP request is recorded for the availability figures.
 */
export function startLoad(opts: LoadOptions) {
  const agent = new Agent({
    connections: 64,
    headersTimeout: opts.requestTimeoutMs,
    bodyTimeout: opts.requestTimeoutMs,
    connect: { timeout: opts.requestTimeoutMs },
  });
  const attempts: Attempt[] = [];
  const writes: Write[] = [];
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let skipped = 0;
  let lastEntryId: string | undefined;

  const call = async (op: Attempt['op'], method: 'GET' | 'POST', path: string, extra: { body?: string; key?: string } = {}) => {
    const startedAt = Date.now();
    let status = 0;
    let body: unknown;
    let retryAfterS = 0;
    try {
      const res = await request(`${opts.baseUrl}${path}`, {
        method,
        dispatcher: agent,
        headers: {
          authorization: `Bearer ${opts.apiKey}`,
          ...(extra.body ? { 'content-type': 'application/json' } : {}),
          ...(extra.key ? { 'idempotency-key': extra.key } : {}),
        },
        body: extra.body,
      });
      status = res.statusCode;
      retryAfterS = Number(res.headers['retry-after']) || 0;
      body = status === 201 ? await res.body.json() : await res.body.dump();
    } catch {
      // a network error or a timeout: recorded with the status read so far (0 before an answer)
    }
    attempts.push({ op, startedAt, endedAt: Date.now(), status });
    return { status, body, retryAfterS };
  };

  const write = async (n: number) => {
    const key = `${opts.keyPrefix}-${n}`;
    // The title names the key, so that the report can tell a write stored twice.
    const body = JSON.stringify({ type: 'bug_report', title: titleOf(key), description: 'Written under faults.' });
    const startedAt = Date.now();
    const done = (outcome: Write['outcome'], entryId?: string) => {
      writes.push({ key, startedAt, endedAt: Date.now(), outcome, entryId });
    };
    for (let attempt = 1; ; attempt++) {
      const res = await call('write', 'POST', `/projects/${opts.projectId}/entries`, { body, key });
      if (res.status === 201) {
        lastEntryId = (res.body as { id: string }).id;
        return done('accepted', lastEntryId);
      }
      if (!retryable(res.status)) return done('rejected');
      if (attempt >= WRITE_MAX_ATTEMPTS || Date.now() - startedAt > WRITE_GIVE_UP_MS || opts.signal?.aborted)
        return done('gave_up');
      // Capped exponential backoff, and never sooner than the answer's Retry-After asks.
      await sleep(Math.max(Math.min(200 * 2 ** attempt, 3000), Math.min(res.retryAfterS, 10) * 1000), opts.signal);
    }
  };

  const read = async (n: number) => {
    const path = n % 2 && lastEntryId ? `/entries/${lastEntryId}` : `/projects/${opts.projectId}/entries?limit=10`;
    await call('read', 'GET', path);
  };

  /** Calls `fn(n)` `perSecond` times a second, on a schedule (not after the previous call ended). */
  const paced = async (perSecond: number, fn: (n: number) => Promise<void>, bounded: boolean) => {
    if (perSecond <= 0) return;
    const started = Date.now();
    for (let n = 0; !stopped; n++) {
      await sleep(started + (n * 1000) / perSecond - Date.now());
      if (stopped) break;
      if (bounded && inFlight.size >= MAX_IN_FLIGHT) {
        skipped++;
        continue;
      }
      const p = fn(n).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  };

  const loops = Promise.all([paced(opts.writesPerSecond, write, true), paced(opts.readsPerSecond, read, false)]);
  return {
    /** Requests so far (the progress lines). */
    progress: () => ({
      attempts: attempts.length,
      writes: writes.length,
      accepted: writes.filter((w) => w.outcome === 'accepted').length,
    }),
    /** Stops starting requests, lets the writes in flight finish their retries (bounded), and returns the record. */
    async stop(): Promise<LoadResult> {
      stopped = true;
      await loops;
      while (inFlight.size) await Promise.all([...inFlight]);
      await agent.close();
      return { attempts, writes, skipped };
    },
  };
}

/** The title of the entry a write under `key` creates. */
export function titleOf(key: string): string {
  return `Chaos soak write ${key}`;
}

/** Answers after which the same write is tried again under the same key. */
function retryable(status: number): boolean {
  return status === 0 || status >= 500 || status === 409 || status === 429;
}
