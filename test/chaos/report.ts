import type { Fault } from './faults.ts';
import { titleOf, type Attempt, type LoadResult, type Write } from './load.ts';
import type { Arrival } from './webhooks.ts';

/** An entry in the database: an entry.created event committed (the ground truth). */
export interface Committed {
  id: string;
  /** Names the write's Idempotency-Key (load.ts, titleOf). */
  title: string;
  createdAt: number;
}

/** What the soak measured, before it is summed up. */
export interface SoakRecord {
  settings: Record<string, unknown>;
  startedAt: number;
  load: LoadResult;
  faults: Fault[];
  committed: Committed[];
  subscriptions: string[];
  arrivals: Arrival[];
  invalidSignatures: number;
}

/** Share of requests that got an answer below 500 (a network error or a timeout is a failure). */
export interface Availability {
  requests: number;
  ok: number;
  percent: number;
}

export interface SubscriptionFigures {
  id: string;
  received: number;
  unique: number;
  lost: number;
  /** Arrivals of an entry already received; each should carry the delivery id seen before. */
  duplicates: number;
  /** Duplicates under a delivery id not seen before for that entry: a receiver could not de-duplicate them (must be 0). */
  duplicatesWithNewId: number;
}

/** One fault with what it did; times in seconds from the soak's start, durations in ms (null: never within the run). */
export interface FaultFigures {
  atS: number;
  member: string;
  kind: Fault['kind'];
  /** From the strike to SIGCONT or the start again. */
  heldMs: number;
  /** From the end of the fault until the member answered again. */
  backMs: number;
  /** From the end of the fault until a write sent after it got its 201. */
  apiMs: number | null;
  /** From the end of the fault until, on every subscription, an entry committed after it had arrived. */
  webhooksMs: number | null;
  /** From the end of the fault until every entry committed during it had arrived everywhere (0 if before). */
  backlogMs: number | null;
  /** Requests from this fault's start until the next fault's (its aftermath included). */
  writes: Availability;
  reads: Availability;
  /** Writes begun in that span that were stored more than once. */
  storedTwice: number;
  error?: string;
}

/** A run of failed requests (each within 2 s of the one before), and the fault it followed. */
export interface Outage {
  fromS: number;
  toS: number;
  failed: number;
  /** Requests started in that span, failed or not. */
  requests: number;
  /** Failed requests by status (0: a network error or a timeout). */
  statuses: Record<string, number>;
  /** The longest a failed request waited for its answer (or its error). */
  slowestMs: number;
  /** The fault that began last before it, and how long before. */
  after: string | null;
}

export interface SoakReport {
  settings: Record<string, unknown>;
  startedAt: string;
  seconds: number;
  writes: { attempted: number; accepted: number; rejected: number; gaveUp: number; skipped: number; requests: number };
  /**
   * duringFaults: requests started between a fault's start and its member answering again;
   * outsidePostgresFaults: all but those from a Postgres fault's start until the next fault's.
   */
  availability: Record<
    'overall' | 'duringFaults' | 'outsideFaults' | 'outsidePostgresFaults',
    { writes: Availability; reads: Availability }
  >;
  events: {
    committed: number;
    /** Committed, though the client never saw a 201 for that write (the answer was lost; the retries gave up). */
    committedWithoutAnswer: number;
    /** Entries beyond the first of one write (one Idempotency-Key): a retry that wrote again (should be 0). */
    storedTwice: number;
    /** Answered 201, yet not in the database (must be 0). */
    acceptedMissing: number;
  };
  subscriptions: SubscriptionFigures[];
  invalidSignatures: number;
  /** Entry commit to its first verified arrival, over every subscription. */
  latencyMs: { p50: number; p99: number; max: number } | null;
  recovery: { memberBackMs: number; apiMs: number | null; webhooksMs: number | null; backlogMs: number | null };
  faults: FaultFigures[];
  outages: Outage[];
  lost: number;
  ok: boolean;
}

/**
 * Sums up a soak. `ok` is false when an event was lost, a signature failed, a 201 was not stored, or a
 * write was stored twice under one Idempotency-Key (docs/decisions-api.md, "How a key holds under every fault").
 */
export function summarise(r: SoakRecord): SoakReport {
  const firsts = firstArrivals(r);
  const createdAt = new Map(r.committed.map((c) => [c.id, c.createdAt]));
  const subscriptions = r.subscriptions.map((id, i) => subscriptionFigures(id, i, r, firsts[i]));
  const accepted = r.load.writes.filter((w) => w.outcome === 'accepted');
  const acceptedTitles = new Set(accepted.map((w) => titleOf(w.key)));
  const stored = new Map<string, number>();
  for (const c of r.committed) stored.set(c.title, (stored.get(c.title) ?? 0) + 1);
  const storedTwice = r.load.writes.filter((w) => (stored.get(titleOf(w.key)) ?? 0) > 1);
  const faults = epochs(r.faults).map((e) => faultFigures(e, r, firsts, storedTwice));
  const latencies = firsts
    .flatMap((m) => [...m].map(([entry, a]) => a.arrivedAt - (createdAt.get(entry) ?? a.arrivedAt)))
    .sort((a, b) => a - b);
  const lost = subscriptions.reduce((n, s) => n + s.lost, 0);
  const acceptedMissing = accepted.filter((w) => !createdAt.has(w.entryId!)).length;
  const during = (a: Attempt) => r.faults.some((f) => a.startedAt >= f.startedAt && a.startedAt <= f.backAt);
  const postgresEpochs = epochs(r.faults).filter(({ fault }) => fault.member === 'postgres');
  const afterPostgres = (a: Attempt) => postgresEpochs.some((e) => a.startedAt >= e.from && a.startedAt < e.to);
  const byOp = (keep: (a: Attempt) => boolean) => ({
    writes: availability(r.load.attempts.filter((a) => a.op === 'write' && keep(a))),
    reads: availability(r.load.attempts.filter((a) => a.op === 'read' && keep(a))),
  });
  const lastEnd = [...r.load.attempts.map((a) => a.endedAt), ...r.arrivals.map((a) => a.arrivedAt)].reduce(
    (m, t) => Math.max(m, t),
    r.startedAt,
  );
  return {
    settings: r.settings,
    startedAt: new Date(r.startedAt).toISOString(),
    seconds: Math.round((lastEnd - r.startedAt) / 1000),
    writes: {
      attempted: r.load.writes.length,
      accepted: accepted.length,
      rejected: r.load.writes.filter((w) => w.outcome === 'rejected').length,
      gaveUp: r.load.writes.filter((w) => w.outcome === 'gave_up').length,
      skipped: r.load.skipped,
      requests: r.load.attempts.filter((a) => a.op === 'write').length,
    },
    availability: {
      overall: byOp(() => true),
      duringFaults: byOp(during),
      outsideFaults: byOp((a) => !during(a)),
      outsidePostgresFaults: byOp((a) => !afterPostgres(a)),
    },
    events: {
      committed: r.committed.length,
      committedWithoutAnswer: [...stored.keys()].filter((t) => !acceptedTitles.has(t)).length,
      storedTwice: r.committed.length - stored.size,
      acceptedMissing,
    },
    subscriptions,
    invalidSignatures: r.invalidSignatures,
    latencyMs: latencies.length
      ? { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] }
      : null,
    recovery: {
      memberBackMs: Math.max(0, ...faults.map((f) => f.backMs)),
      apiMs: longest(faults.map((f) => f.apiMs)),
      webhooksMs: longest(faults.map((f) => f.webhooksMs)),
      backlogMs: longest(faults.map((f) => f.backlogMs)),
    },
    faults,
    outages: outages(r),
    lost,
    ok:
      lost === 0 &&
      r.invalidSignatures === 0 &&
      acceptedMissing === 0 &&
      r.committed.length === stored.size &&
      r.committed.length > 0,
  };
}

/** Per subscription: each entry's first verified arrival. */
function firstArrivals(r: SoakRecord): Map<string, Arrival>[] {
  const firsts = r.subscriptions.map(() => new Map<string, Arrival>());
  for (const a of r.arrivals) if (!firsts[a.subscription].has(a.entryId)) firsts[a.subscription].set(a.entryId, a);
  return firsts;
}

function subscriptionFigures(id: string, index: number, r: SoakRecord, first: Map<string, Arrival>): SubscriptionFigures {
  const mine = r.arrivals.filter((a) => a.subscription === index);
  const duplicates = mine.filter((a) => first.get(a.entryId) !== a);
  return {
    id,
    received: mine.length,
    unique: first.size,
    lost: r.committed.filter((c) => !first.has(c.id)).length,
    duplicates: duplicates.length,
    duplicatesWithNewId: duplicates.filter((a) => first.get(a.entryId)!.deliveryId !== a.deliveryId).length,
  };
}

/** Each fault with the span it owns: from its start until the next fault's (the last: until the end). */
function epochs(faults: Fault[]): { fault: Fault; from: number; to: number }[] {
  return faults.map((fault, i) => ({ fault, from: fault.startedAt, to: faults[i + 1]?.startedAt ?? Infinity }));
}

function faultFigures(
  epoch: ReturnType<typeof epochs>[number],
  r: SoakRecord,
  firsts: Map<string, Arrival>[],
  storedTwice: Write[],
): FaultFigures {
  const f = epoch.fault;
  const window = (a: Attempt) => a.startedAt >= epoch.from && a.startedAt < epoch.to;
  const writeAfter = r.load.attempts.find((a) => a.op === 'write' && a.status === 201 && a.startedAt >= f.endedAt);
  // Webhooks flow again once an entry committed after the fault has reached every subscription.
  const after = r.committed.filter((c) => c.createdAt >= f.endedAt);
  const flowing = firsts.map((m) => Math.min(...after.map((c) => m.get(c.id)?.arrivedAt ?? Infinity)));
  // The fault's backlog: the entries committed while it lasted, delivered everywhere.
  const during = r.committed.filter((c) => c.createdAt >= f.startedAt && c.createdAt < f.endedAt);
  const delivered = firsts.map((m) => Math.max(f.endedAt, ...during.map((c) => m.get(c.id)?.arrivedAt ?? Infinity)));
  const since = (t: number) => (Number.isFinite(t) ? Math.max(0, t - f.endedAt) : null);
  return {
    atS: Math.round((f.startedAt - r.startedAt) / 1000),
    member: f.member,
    kind: f.kind,
    heldMs: f.endedAt - f.startedAt,
    backMs: f.backAt - f.endedAt,
    apiMs: writeAfter ? writeAfter.endedAt - f.endedAt : null,
    webhooksMs: since(Math.max(...flowing)),
    backlogMs: since(Math.max(...delivered)),
    writes: availability(r.load.attempts.filter((a) => a.op === 'write' && window(a))),
    reads: availability(r.load.attempts.filter((a) => a.op === 'read' && window(a))),
    storedTwice: storedTwice.filter((w) => w.startedAt >= epoch.from && w.startedAt < epoch.to).length,
    ...(f.error ? { error: f.error } : {}),
  };
}

/** Runs of failed requests: what a user of the API saw, and after which fault. */
function outages(r: SoakRecord): Outage[] {
  const failed = r.load.attempts.filter((a) => !succeeded(a)).sort((a, b) => a.startedAt - b.startedAt);
  const runs: Attempt[][] = [];
  for (const a of failed) {
    const run = runs[runs.length - 1];
    if (run && a.startedAt - run[run.length - 1].startedAt <= OUTAGE_GAP_MS) run.push(a);
    else runs.push([a]);
  }
  const at = (t: number) => round((t - r.startedAt) / 1000, 1);
  return runs.map((run) => {
    const from = run[0].startedAt;
    const to = run[run.length - 1].startedAt;
    const statuses: Record<string, number> = {};
    for (const a of run) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    // A request sent just before a freeze fails because of it: the fault that began before the first failure ended.
    const fault = r.faults.filter((f) => f.startedAt <= run[0].endedAt).pop();
    return {
      fromS: at(from),
      toS: at(to),
      failed: run.length,
      requests: r.load.attempts.filter((a) => a.startedAt >= from && a.startedAt <= to).length,
      statuses,
      slowestMs: Math.max(...run.map((a) => a.endedAt - a.startedAt)),
      after: fault ? `${fault.kind} ${fault.member} (${at(fault.startedAt)} s)` : null,
    };
  });
}

/** Failed requests further apart than this belong to separate outages. */
const OUTAGE_GAP_MS = 2000;

const succeeded = (a: Attempt) => a.status >= 100 && a.status < 500;

function availability(attempts: Attempt[]): Availability {
  const ok = attempts.filter(succeeded).length;
  return { requests: attempts.length, ok, percent: attempts.length ? round((100 * ok) / attempts.length, 2) : 100 };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function longest(values: (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length ? Math.max(...known) : null;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
const seconds = (ms: number | null) => (ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`);
const share = (a: Availability) => `${a.percent.toFixed(2)}% of ${a.requests}`;

/** The report as the lines `npm run chaos` prints (the fault list as a markdown table). */
export function formatReport(rep: SoakReport): string {
  const { writes: w, events: e } = rep;
  const lines = [
    `== chaos soak: ${rep.seconds} s from ${rep.startedAt}, ${rep.faults.length} faults; settings ${JSON.stringify(rep.settings)}`,
    `writes: ${w.attempted} attempted, ${w.accepted} accepted (201), ${w.rejected} rejected (4xx), ${w.gaveUp} gave up after retries, ${w.skipped} skipped; ${w.requests} write requests`,
    'API availability (answers below 500; network errors and timeouts count as failures):',
  ];
  for (const [name, a] of Object.entries(rep.availability))
    lines.push(`  ${name.padEnd(22)} writes ${share(a.writes).padEnd(20)} reads ${share(a.reads)}`);
  lines.push(
    `events committed (entries in the database): ${e.committed}; writes stored twice (a retry under the same Idempotency-Key wrote again): ${e.storedTwice}; committed without a 201 seen by the client: ${e.committedWithoutAnswer}; 201 but not stored: ${e.acceptedMissing}`,
    'webhooks per subscription (a duplicate must carry the delivery id already seen for that entry):',
  );
  for (const s of rep.subscriptions)
    lines.push(
      `  ${s.id}: received ${s.received}, unique ${s.unique}, lost ${s.lost}, duplicates ${s.duplicates} (with a new delivery id: ${s.duplicatesWithNewId})`,
    );
  const l = rep.latencyMs;
  const r = rep.recovery;
  lines.push(
    `signatures: ${rep.invalidSignatures ? `${rep.invalidSignatures} did NOT verify` : 'every arrival verified'}`,
    `commit to arrival: ${l ? `p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms` : 'nothing arrived'}`,
    `longest recovery: member back ${seconds(r.memberBackMs)}, API writes ${seconds(r.apiMs)}, webhooks flowing ${seconds(r.webhooksMs)}, fault's backlog delivered ${seconds(r.backlogMs)}`,
    '',
    'faults (held: until SIGCONT or the start again; back: until it answered; API: until a write sent after it got its 201;',
    'webhooks: until an entry written after it reached every subscription; backlog: until those written during it had;',
    'writes and reads ok, and writes stored twice: from the fault until the next):',
    '',
    '| at s | member | fault | held s | back s | API s | webhooks s | backlog s | writes ok | reads ok | stored twice |',
    '|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const f of rep.faults)
    lines.push(
      `| ${f.atS} | ${f.member} | ${f.kind}${f.error ? ' (restarted twice)' : ''} | ${(f.heldMs / 1000).toFixed(1)} | ${(f.backMs / 1000).toFixed(1)} | ${seconds(f.apiMs).replace(' s', '')} | ${seconds(f.webhooksMs).replace(' s', '')} | ${seconds(f.backlogMs).replace(' s', '')} | ${f.writes.percent}% of ${f.writes.requests} | ${f.reads.percent}% of ${f.reads.requests} | ${f.storedTwice} |`,
    );
  lines.push('', `runs of failed requests (each within ${OUTAGE_GAP_MS / 1000} s of the one before):`);
  if (!rep.outages.length) lines.push('  none');
  for (const o of rep.outages)
    lines.push(
      `  ${o.fromS}-${o.toS} s: ${o.failed} of ${o.requests} requests failed ${JSON.stringify(o.statuses)} (slowest answer ${o.slowestMs} ms), after ${o.after ?? 'no fault'}`,
    );
  lines.push('', `lost: ${rep.lost} -> ${rep.ok ? 'OK' : 'FAILED'}`);
  return lines.join('\n');
}
