/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Reads every 100 ms until `done` accepts the value or `timeoutMs` passes, and returns the last value
 * read either way: the caller asserts on it, so a timeout fails with what was last seen.
 */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await sleep(100);
  }
}
