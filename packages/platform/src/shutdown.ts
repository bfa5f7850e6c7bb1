import type { Logger } from './logger.ts';

type Step = { name: string; run: () => Promise<void> | void };

/**
 * Graceful shutdown as ordered phases: not ready -> stop intake -> drain in
 * flight -> close clients and pools. A hard deadline ends the process if a
 * phase hangs.
 */
export interface Shutdown {
  add(phase: 'not_ready' | 'stop_intake' | 'drain' | 'close', name: string, run: Step['run']): void;
  run(reason: string): Promise<void>;
  /** Installs SIGTERM/SIGINT handlers that run the phases and exit. */
  installSignalHandlers(): void;
  /**
   * A failure the running service cannot recover from (a start-up step that cannot succeed without a
   * change of configuration): logged, the phases run, and the process exits 1 so that its
   * supervisor shows the failure instead of a pod that serves half its job.
   */
  fail(err: unknown): Promise<never>;
}

const PHASES = ['not_ready', 'stop_intake', 'drain', 'close'] as const;

/** `deadlineMs`: the service's SHUTDOWN_DEADLINE_MS. */
export function createShutdown(logger: Logger, deadlineMs: number): Shutdown {
  const steps = new Map<string, Step[]>(PHASES.map((p) => [p, []]));
  let running: Promise<void> | undefined;

  const run = (reason: string): Promise<void> => {
    running ??= (async () => {
      logger.info({ reason }, 'shutting down');
      for (const phase of PHASES) {
        for (const step of steps.get(phase) ?? []) {
          try {
            await step.run();
          } catch (err) {
            logger.warn({ err, step: step.name, phase }, 'shutdown step failed');
          }
        }
      }
      logger.info('shutdown complete');
    })();
    return running;
  };

  const exitAfter = (reason: string, code: number) => {
    const timer = setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    void run(reason).then(() => process.exit(code));
  };

  return {
    add(phase, name, fn) {
      steps.get(phase)!.push({ name, run: fn });
    },
    run,
    installSignalHandlers() {
      process.once('SIGTERM', () => exitAfter('SIGTERM', 0));
      process.once('SIGINT', () => exitAfter('SIGINT', 0));
    },
    fail(err) {
      logger.fatal({ err }, err instanceof Error ? err.message : String(err));
      exitAfter('fatal error', 1);
      return new Promise<never>(() => {});
    },
  };
}
