import { sleep } from '../support/poll.ts';
import type { FaultKind, Member } from './cluster.ts';

/** One fault as it happened; times are epoch milliseconds. */
export interface Fault {
  member: string;
  kind: FaultKind;
  /** SIGSTOP or SIGKILL sent (a fast stop begun). */
  startedAt: number;
  /** SIGCONT sent, or the start again begun: the fault itself is over. */
  endedAt: number;
  /** The member answered again (its /readyz, its port, a query). */
  backAt: number;
  /** Why it did not come back at the first try, when it did not. */
  error?: string;
}

/** A fault the caller fixes in advance (tests), instead of a random one. */
export interface PlannedFault {
  member: string;
  kind: FaultKind;
  /** For a freeze: how long it stays frozen. */
  holdMs?: number;
}

export interface FaultOptions {
  /** Time between one fault's start and the next one's, drawn from [min, max]. */
  intervalMs: [number, number];
  /** How long a freeze lasts, drawn from [min, max]. */
  holdMs: [number, number];
  /** No fault starts after this time (epoch ms). */
  lastStartBefore: number;
  /** The faults in order; without it, a random member (each once per round of all) and a random kind. */
  plan?: PlannedFault[];
  random: () => number;
  signal?: AbortSignal;
  log: (line: string) => void;
  /** Called with each fault once its member is back (a progress line). */
  onFault?: (fault: Fault) => void;
}

/** How long a member may take to answer again before the soak gives up on it. */
const BACK_MS = 120_000;

/**
 * The fault scheduler: one fault at a time, each `intervalMs` after the one before began, and never
 * before the member struck last is back. Resolves with the faults once the next would start after
 * `lastStartBefore` (or `signal` aborts, which ends a freeze in progress at once); throws when a member does not come
 * back after two starts.
 */
export async function runFaults(members: Member[], opts: FaultOptions): Promise<Fault[]> {
  const faults: Fault[] = [];
  const draw = ([min, max]: [number, number]) => min + opts.random() * (max - min);
  const byName = new Map(members.map((m) => [m.name, m]));
  const pick = shuffledRounds(members, opts.random);
  let nextAt = Date.now() + draw(opts.intervalMs);
  for (let i = 0; !opts.plan || i < opts.plan.length; i++) {
    if (nextAt >= opts.lastStartBefore) break;
    await sleep(nextAt - Date.now(), opts.signal);
    if (opts.signal?.aborted) break;
    const planned = opts.plan?.[i];
    const member = planned ? byName.get(planned.member) : pick();
    if (!member) throw new Error(`chaos plan: no member ${planned?.member}`);
    const kind = planned?.kind ?? member.kinds[Math.floor(opts.random() * member.kinds.length)];
    const fault = await strike(member, kind, planned?.holdMs ?? draw(opts.holdMs), opts);
    faults.push(fault);
    opts.onFault?.(fault);
    nextAt = Math.max(fault.startedAt + draw(opts.intervalMs), Date.now());
  }
  return faults;
}

/**
 * Members in random order, each once per round: a 10-minute soak (about 23 faults) strikes every
 * member two or three times, where independent draws would leave one out now and then.
 */
function shuffledRounds<T>(items: T[], random: () => number): () => T {
  let round: T[] = [];
  return () => {
    if (!round.length) {
      round = [...items];
      for (let i = round.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [round[i], round[j]] = [round[j], round[i]];
      }
    }
    return round.pop()!;
  };
}

async function strike(member: Member, kind: FaultKind, holdMs: number, opts: FaultOptions): Promise<Fault> {
  opts.log(`fault: ${kind} ${member.name}${kind === 'freeze' ? ` for ${(holdMs / 1000).toFixed(1)} s` : ''}`);
  const startedAt = Date.now();
  let endedAt: number;
  let error: string | undefined;
  // Once the soak is interrupted, nothing waits for the member: the clean-up stops it either way.
  const interrupted = () => opts.signal?.aborted === true;
  if (kind === 'freeze') {
    member.freeze();
    await sleep(holdMs, opts.signal);
    member.thaw();
    endedAt = Date.now();
    if (!interrupted()) await member.back(BACK_MS);
  } else {
    await member.kill(kind);
    endedAt = Date.now();
    if (!interrupted()) error = await startAgain(member, opts.log);
  }
  return { member: member.name, kind, startedAt, endedAt, backAt: Date.now(), error };
}

/**
 * Starts a killed member. A start that fails (it did not answer in time) is recorded and tried once
 * more: a member that stays down ends the soak, since every later figure would measure that instead.
 */
async function startAgain(member: Member, log: (line: string) => void): Promise<string | undefined> {
  try {
    await member.start();
    return undefined;
  } catch (err) {
    log(`${member.name} did not come back: ${(err as Error).message}; starting it again`);
    await member.start();
    return (err as Error).message;
  }
}
