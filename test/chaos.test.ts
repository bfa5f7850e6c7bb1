import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PlannedFault } from './chaos/faults.ts';
import type { SoakReport } from './chaos/report.ts';
import { runSoak } from './chaos/soak.ts';

// The short chaos soak of `npm test` (the full one is `npm run chaos`, bench/README.md): the same
// code, for 100 s, with fixed faults so that every run covers a freeze and a kill of a service, a
// kill of Kafka and a freeze of Postgres. About three minutes on this machine, start and stop included.
const PLAN: PlannedFault[] = [
  { member: 'delivery-1', kind: 'freeze', holdMs: 8000 },
  { member: 'core-1', kind: 'kill' },
  { member: 'kafka', kind: 'kill' },
  { member: 'postgres', kind: 'freeze', holdMs: 6000 },
  { member: 'gateway-1', kind: 'kill' },
];

const dir = mkdtempSync(path.join(os.tmpdir(), 'chaos-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('chaos soak (short)', () => {
  it('loses no webhook and keeps the API answering while members are frozen and killed', async () => {
    const reportPath = path.join(dir, 'chaos-report.json');
    const report = await runSoak({
      durationS: 100,
      writesPerSecond: 10,
      readsPerSecond: 5,
      faultIntervalS: [15, 18],
      freezeS: [5, 8],
      plan: PLAN,
      subscriptions: 3,
      gateways: 2,
      drainS: 120,
      requestTimeoutMs: 10_000,
      seed: 26,
      reportPath,
      log: (line) => console.log(`[chaos] ${line}`),
    });
    expect(JSON.parse(readFileSync(reportPath, 'utf8')) as SoakReport).toEqual(report);

    // The plan in order; the last fault falls off when the ones before took long to come back.
    const struck = report.faults.map((f) => `${f.kind} ${f.member}`);
    expect(struck.length).toBeGreaterThanOrEqual(4);
    expect(struck).toEqual(PLAN.slice(0, struck.length).map((f) => `${f.kind} ${f.member}`));
    expect(report.events.committed).toBeGreaterThan(500);
    expect(report.lost).toBe(0);
    for (const s of report.subscriptions) expect(s.duplicatesWithNewId).toBe(0);
    expect(report.invalidSignatures).toBe(0);
    expect(report.events.acceptedMissing).toBe(0);
    // Every write retried under its Idempotency-Key through the faults happened once (issue 35).
    expect(report.events.storedTwice).toBe(0);
    // Writes are retried under their Idempotency-Key: every one ends stored.
    expect(report.writes.accepted).toBe(report.writes.attempted);
    // Outside a Postgres fault, a dependency's failure is the replicas' or the outbox's to absorb.
    expect(report.availability.outsidePostgresFaults.writes.percent).toBeGreaterThanOrEqual(95);
    expect(report.ok).toBe(true);
  }, 480_000);
});
