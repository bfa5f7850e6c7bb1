import { createWaker } from './waker.ts';

/** A loop that works through a queue in batches (the outbox relay, the audit forwarder). */
export interface BatchLoop {
  start(): void;
  /** Something was queued: look now rather than after the idle wait. */
  wake(): void;
  /** Finishes the batch in flight, then ends the loop. */
  stop(): Promise<void>;
}

/**
 * Runs `step` (one batch; it resolves with how many items it handled) over and
 * over: again at once while batches come back full (`batchSize`), after `idleMs`
 * or a `wake()` when not, and after a doubling backoff (from `backoff.initialMs`
 * up to `backoff.maxMs`) while it throws. `onError` hears each failure with the
 * count of failures in a row, to log it or to start afresh. A wake-up that comes
 * while a batch runs is kept, so nothing queued meanwhile waits the idle time.
 *
 * `lingerMs` (default 0) spaces the batches that are not full: a wake-up sooner
 * than that after the last batch began waits out the rest, so what is queued
 * meanwhile goes in one batch (Kafka's linger.ms, for the outbox relay;
 * bench/README.md, "Kafka client and broker cost"). A wake-up after a quiet spell
 * goes at once, and full batches follow each other without a pause.
 */
export function createBatchLoop(opts: {
  step: () => Promise<number>;
  batchSize: number;
  idleMs: number;
  backoff: { initialMs: number; maxMs: number };
  lingerMs?: number;
  onError: (err: unknown, consecutiveFailures: number) => void | Promise<void>;
}): BatchLoop {
  const waker = createWaker();
  let stopping = false;
  let loop: Promise<void> | undefined;
  const run = async () => {
    let backoff = opts.backoff.initialMs;
    let failures = 0;
    const lingerMs = opts.lingerMs ?? 0;
    while (!stopping) {
      try {
        waker.clear();
        const began = performance.now();
        const n = await opts.step();
        backoff = opts.backoff.initialMs;
        failures = 0;
        if (n >= opts.batchSize) continue;
        await waker.sleep(opts.idleMs);
        const rest = began + lingerMs - performance.now();
        if (rest > 0 && !stopping) await new Promise((r) => setTimeout(r, rest));
      } catch (err) {
        failures++;
        await opts.onError(err, failures);
        await waker.sleep(backoff);
        backoff = Math.min(backoff * 2, opts.backoff.maxMs);
      }
    }
  };
  return {
    start() {
      loop ??= run();
    },
    wake: () => waker.wake(),
    async stop() {
      stopping = true;
      waker.stop();
      await loop;
    },
  };
}
