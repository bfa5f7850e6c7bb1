// GitHub does not promise the order of deliveries, and a signed body can be replayed: a pull
// request or a CI run moves only forward by the payload's own order, never by arrival.

/** Where a state stands in the payload's own order. */
export interface Position {
  /** A workflow run's run_attempt (a re-run keeps the run's id); 1 for everything else. */
  attempt: number;
  /** The payload's time of the state (`updated_at`, ...); null when it gave none. */
  at: Date | string | null;
  /** How far along the state is, for two states of one second (GitHub's times are in seconds). */
  progress: number;
}

const millis = (at: Date | string | null) => (at === null ? -Infinity : new Date(at).getTime());

/**
 * Whether `incoming` comes strictly after `stored`, by attempt, then time, then progress: only then
 * does a delivery change the stored state. An equal position is a repeat and changes nothing.
 */
export function isAfter(incoming: Position, stored: Position): boolean {
  const a = [incoming.attempt, millis(incoming.at), incoming.progress];
  const b = [stored.attempt, millis(stored.at), stored.progress];
  const i = a.findIndex((v, k) => v !== b[k]);
  return i !== -1 && a[i] > b[i];
}

/** A pull request's place: its `updated_at` (`at`), then open < closed < merged. */
export function pullRequestPosition(pr: { state: string; merged: boolean }, at: Date | string | null): Position {
  return { attempt: 1, at, progress: pr.merged ? 2 : pr.state === 'closed' ? 1 : 0 };
}

/** A CI run's place: its attempt, its time (`at`), then queued (and other waiting states) < in_progress < completed. */
export function ciRunPosition(run: { status: string; attempt: number }, at: Date | string | null): Position {
  return { attempt: run.attempt, at, progress: run.status === 'completed' ? 2 : run.status === 'in_progress' ? 1 : 0 };
}
