import { deadLetterMessage } from './events.ts';
import type { AttemptRecord, AttemptStore } from './store.ts';

/** Records finished attempts, batching the hot path. */
export interface AttemptRecorder {
  /** Resolves true once recorded, false when the lease was lost. Rejects when the database failed. */
  record(item: AttemptRecord): Promise<boolean>;
}

/**
 * Group commit for attempts: while one batch is being written, the next ones
 * queue, and are written together as soon as it is done. A lone attempt is
 * written at once. Under load (the last batch carried more than one attempt) the
 * next batch lingers `lingerMs` to gather more, so each round trip carries up to
 * `maxBatch` attempts rather than the few that finished during one write: the
 * statement's fixed cost (a round trip, a commit) then falls on many rows. The
 * attempt has already reached its receiver; lingering only holds its lease a
 * little longer. Dead letters take the single-row path, with their message for
 * the dead-letter topic.
 */
export function createAttemptRecorder(
  store: Pick<AttemptStore, 'recordAttempt' | 'recordAttempts'>,
  maxBatch = 200,
  lingerMs = 5,
): AttemptRecorder {
  type Waiting = { item: AttemptRecord; resolve: (kept: boolean) => void; reject: (err: unknown) => void };
  let queue: Waiting[] = [];
  let writing = false;
  let loaded = false;

  const flush = async (): Promise<void> => {
    if (writing || !queue.length) return;
    writing = true;
    if (loaded && lingerMs > 0 && queue.length < maxBatch) await new Promise((r) => setTimeout(r, lingerMs));
    const batch = queue.slice(0, maxBatch);
    loaded = batch.length > 1;
    queue = queue.slice(batch.length);
    try {
      const kept = await store.recordAttempts(batch.map((w) => w.item));
      for (const w of batch) w.resolve(kept.has(w.item.delivery.id));
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      writing = false;
      void flush();
    }
  };

  return {
    record(item) {
      if (item.decision.kind === 'dead_letter') return store.recordAttempt({ ...item, deadLetter: deadLetterMessage(item) });
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        void flush();
      });
    },
  };
}
