/**
 * The idle wait of a polling loop. `sleep(ms)` ends early on `wake()` or `stop()`;
 * a `wake()` that comes while the loop is busy makes its next `sleep` return at
 * once, so a notification that arrives between two looks for work is not lost.
 */
export interface Waker {
  sleep(ms: number): Promise<void>;
  wake(): void;
  /** Forgets wake-ups so far: call right before looking for work, which will see their cause. */
  clear(): void;
  /** Ends the current sleep, and makes every later one return at once (the loop is stopping). */
  stop(): void;
}

export function createWaker(): Waker {
  let pending = false;
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  return {
    sleep(ms) {
      return new Promise<void>((resolve) => {
        if (pending || stopped) return resolve();
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wakeUp = undefined;
          resolve();
        }
        wakeUp = done;
      });
    },
    wake() {
      pending = true;
      wakeUp?.();
    },
    clear() {
      pending = false;
    },
    stop() {
      stopped = true;
      wakeUp?.();
    },
  };
}
