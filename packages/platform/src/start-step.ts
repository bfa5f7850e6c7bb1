import type { Logger } from './logger.ts';

/** A start-up step that may finish after the service is up (startStep). */
export interface StartStep {
  /**
   * Resolves true once the step has succeeded, false when it was stopped first; rejects when it
   * failed in a way retrying cannot fix (`fatal`) after the start went on without it.
   */
  done: Promise<boolean>;
  /** Stops retrying (shutdown). */
  stop(): void;
}

/**
 * Runs a start-up step on a dependency the service can serve without (Kafka: docs/runbook.md,
 * "When a dependency fails"): waits for it up to `waitMs`, so with the dependency up a start
 * behaves as if the step were awaited; when it has not succeeded by then the start goes on, and
 * the step is tried again (backoff up to `maxBackoffMs`) until it succeeds or `stop()`.
 * A failure `fatal` names a reason for (wrong credentials, a certificate that does not verify,
 * topics missing that this process may not create) ends the step at once: within the wait the
 * start fails with it; after the wait `done` rejects with it (the caller stops the process).
 */
export async function startStep(
  what: string,
  step: () => Promise<void>,
  opts: { logger: Logger; waitMs: number; maxBackoffMs?: number; fatal?: (err: unknown) => string | undefined },
): Promise<StartStep> {
  const { logger, maxBackoffMs = 10_000 } = opts;
  let stopped = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const done = (async () => {
    for (let attempt = 1, backoff = 1000; !stopped; attempt++, backoff = Math.min(backoff * 2, maxBackoffMs)) {
      try {
        await step();
        if (attempt > 1) logger.info({ attempt }, `${what}: done`);
        return true;
      } catch (err) {
        const reason = opts.fatal?.(err);
        if (reason) throw new Error(`${what} failed: ${reason}`, { cause: err });
        logger.warn({ err, attempt, retryInMs: backoff }, `${what} failed; the service runs without it and tries again`);
      }
      await pause(backoff);
    }
    return false;
  })();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, opts.waitMs)))]);
  clearTimeout(timer);
  return {
    done,
    stop() {
      stopped = true;
      wake?.();
    },
  };
}
