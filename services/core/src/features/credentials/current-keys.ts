import type { KeyForAuth } from './store.ts';

/**
 * The current rows of keys, read for concurrent calls together: every call waits for the next read
 * that starts after it arrived, and one read (one statement) answers every key waiting for it. A read
 * already running when a call arrives never answers it, so a call that starts after a revoke (or a
 * role change) has committed is checked against a snapshot that has it, as if it ran its own query.
 * At most one read runs at a time per process; under load, one statement checks the keys of every
 * call that arrived while the last one ran, instead of one statement per call (bench/README.md).
 */
export function createCurrentKeys(
  readMany: (ids: string[]) => Promise<KeyForAuth[]>,
): (id: string) => Promise<KeyForAuth | undefined> {
  type Waiter = { resolve: (row: KeyForAuth | undefined) => void; reject: (err: unknown) => void };
  let waiting = new Map<string, Waiter[]>();
  let reading = false;

  const readAll = async (): Promise<void> => {
    reading = true;
    try {
      while (waiting.size) {
        const batch = waiting;
        waiting = new Map();
        try {
          const rows = new Map((await readMany([...batch.keys()])).map((r) => [r.id, r]));
          for (const [id, waiters] of batch) for (const w of waiters) w.resolve(rows.get(id));
        } catch (err) {
          for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
        }
      }
    } finally {
      reading = false;
    }
  };

  return (id) =>
    new Promise((resolve, reject) => {
      const waiters = waiting.get(id);
      if (waiters) waiters.push({ resolve, reject });
      else waiting.set(id, [{ resolve, reject }]);
      if (!reading) void readAll();
    });
}
