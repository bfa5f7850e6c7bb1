import { describe, expect, it } from 'vitest';
import { match } from '@cluster/platform/test-kit';
import { Counter, Histogram } from 'prom-client';
import { createFakeStores } from '../../fake-stores.ts';
import type { HttpSender, SendResult } from '../../sender/http-sender.ts';
import { failure, ORG, OTHER_ORG, testActor as actor, testSubscription } from '../../shared/test-fixtures.ts';
import { createWebhookSecretBox } from '../../shared/webhook-secret-box.ts';
import type { DeliveryRow } from '../deliveries/rows.ts';
import { createRecoveryService } from './service.ts';

const secrets = createWebhookSecretBox(['unit-test key']);
const NOW = new Date('2026-03-01T12:00:00Z');
const HOUR = 3_600_000;

function setup(answer: SendResult = { ok: true, responseCode: 200, responseBody: 'ok', error: null, durationMs: 4 }) {
  const stores = createFakeStores(() => NOW);
  const sub = testSubscription();
  sub.secretSealed = secrets.seal('whsec_dGVzdC1yZWNvdmVyeS1zZWNyZXQtdGVzdC1yZWNvdmVyeQ', sub.id);
  stores.subscriptions.rows.push(sub);
  const sent: string[] = [];
  const sender: HttpSender = {
    async send(url) {
      sent.push(url);
      return answer;
    },
    async close() {},
  };
  const counted: string[] = [];
  const gone: string[] = [];
  let requeued = 0;
  const recovery = createRecoveryService(stores, {
    sender,
    secrets,
    metrics: {
      deliveries: new Counter({ name: 'unit_deliveries', help: 'u', labelNames: ['outcome'] as const, registers: [] }),
      attemptDuration: new Histogram({ name: 'unit_duration', help: 'u', labelNames: ['outcome'] as const, registers: [] }),
    },
    countCall: async (org) => {
      counted.push(org);
    },
    retentionMs: 7 * 24 * HOUR,
    leaseMs: 60_000,
    onGone: async (id) => {
      gone.push(id);
      return true;
    },
    onRequeued: () => requeued++,
    clock: () => NOW,
  });
  /** A delivery of the subscription, created `hoursAgo`, with `over` (its status and schedule). */
  const delivery = (hoursAgo: number, over: Partial<DeliveryRow> = {}): DeliveryRow => {
    const row: DeliveryRow = {
      id: crypto.randomUUID(),
      organizationId: ORG,
      subscriptionId: sub.id,
      eventId: crypto.randomUUID(),
      eventName: 'entry.created',
      body: '{}',
      status: 'failed',
      attempts: 3,
      responseCode: 500,
      responseBody: 'no',
      error: 'HTTP 500',
      durationMs: 5,
      nextAttemptAt: null,
      firstAttemptAt: new Date(NOW.getTime() - hoursAgo * HOUR),
      lastAttemptAt: null,
      lockedUntil: null,
      leaseToken: null,
      test: false,
      createdAt: new Date(NOW.getTime() - hoursAgo * HOUR),
      updatedAt: NOW,
      traceparent: null,
      orderKey: null,
      orderSeq: null,
      ...over,
    };
    stores.deliveryQueue.rows.push(row);
    return row;
  };
  return { stores, sub, recovery, sent, counted, gone, delivery, requeued: () => requeued };
}

describe('redeliver', () => {
  it('sends a delivery again now as its next attempt, records it, audits it and counts the call', async () => {
    const { stores, sub, recovery, sent, counted, delivery } = setup();
    const d = delivery(1, { status: 'dead_letter' });
    const answer = await recovery.redeliver(actor(), sub.id, d.id);
    expect(sent).toEqual([sub.destinationUrl]);
    expect(counted).toEqual([ORG]);
    expect(answer).toMatchObject({ id: d.id, status: 'succeeded', attempts: 4 });
    expect(answer.attemptLog).toEqual([match.objectContaining({ attempt: 4, outcome: 'succeeded' })]);
    expect(stores.deliveryQueue.rows[0]).toMatchObject({ leaseToken: null, lockedUntil: null, nextAttemptAt: null });
    expect(stores.written.map((w) => w.rows[0]?.row)).toEqual([
      match.objectContaining({ entityType: 'webhook_delivery', action: 'redelivered', entityId: d.id }),
    ]);
  });

  it('keeps a scheduled retry where it was when the redelivery fails, and ends an unscheduled one failed', async () => {
    const { recovery, sub, delivery } = setup({
      ok: false,
      responseCode: 500,
      responseBody: 'no',
      error: 'HTTP 500',
      durationMs: 3,
    });
    const retry = new Date(NOW.getTime() + HOUR);
    const scheduled = delivery(1, { status: 'failed', nextAttemptAt: retry });
    const finished = delivery(2, { status: 'dead_letter' });
    expect(await recovery.redeliver(actor(), sub.id, scheduled.id)).toMatchObject({
      status: 'failed',
      nextAttemptAt: retry.toISOString(),
    });
    expect(await recovery.redeliver(actor(), sub.id, finished.id)).toMatchObject({ status: 'failed', nextAttemptAt: null });
  });

  it('disables the subscription when the receiver answers 410 Gone', async () => {
    const { recovery, sub, delivery, gone } = setup({
      ok: false,
      responseCode: 410,
      responseBody: '',
      error: 'HTTP 410',
      durationMs: 3,
    });
    await recovery.redeliver(actor(), sub.id, delivery(1).id);
    expect(gone).toEqual([sub.id]);
  });

  it('refuses an attempt in flight, a disabled subscription, and an unknown or foreign delivery, uncounted but the first', async () => {
    const { recovery, sub, delivery, counted, sent } = setup();
    const inFlight = delivery(1, { lockedUntil: new Date(NOW.getTime() + 60_000), leaseToken: crypto.randomUUID() });
    expect(await failure(recovery.redeliver(actor(), sub.id, inFlight.id))).toMatchObject({ reason: 'conflict' });
    expect(await failure(recovery.redeliver(actor(), sub.id, crypto.randomUUID()))).toMatchObject({ reason: 'not_found' });
    expect(await failure(recovery.redeliver(actor({ organizationId: OTHER_ORG }), sub.id, inFlight.id))).toMatchObject({
      reason: 'not_found',
    });
    sub.enabled = false;
    expect(await failure(recovery.redeliver(actor(), sub.id, delivery(1).id))).toMatchObject({ reason: 'conflict' });
    expect(counted).toEqual([ORG]);
    expect(sent).toEqual([]);
  });
});

describe('recover', () => {
  it("queues again the window's failed and dead-lettered deliveries with a fresh retry period, and completes", async () => {
    const { stores, sub, recovery, delivery, requeued } = setup();
    const dead = delivery(3, { status: 'dead_letter' });
    const failed = delivery(2, { status: 'failed' });
    const retrying = delivery(2, { status: 'failed', nextAttemptAt: new Date(NOW.getTime() + HOUR) });
    const ok = delivery(2, { status: 'succeeded' });
    const test = delivery(2, { test: true });
    const outside = delivery(30, { status: 'dead_letter' });
    const started = await recovery.recover(actor(), sub.id, { since: new Date(NOW.getTime() - 24 * HOUR).toISOString() });
    expect(started).toMatchObject({ subscriptionId: sub.id, status: 'running', requeued: 0, until: NOW.toISOString() });
    expect(Object.keys(started).sort()).toEqual(
      ['completedAt', 'createdAt', 'id', 'requeued', 'since', 'status', 'subscriptionId', 'until'].sort(),
    );
    await expect.poll(async () => (await recovery.getRecovery(actor(), sub.id, started.id as string)).status).toBe('completed');
    expect(await recovery.getRecovery(actor(), sub.id, started.id as string)).toMatchObject({ requeued: 2 });
    const due = stores.deliveryQueue.rows.filter((r) => r.nextAttemptAt?.getTime() === NOW.getTime()).map((r) => r.id);
    expect(due.sort()).toEqual([dead.id, failed.id].sort());
    for (const r of [dead, failed]) expect(r.firstAttemptAt).toBeNull();
    expect([retrying, ok, test, outside].every((r) => r.nextAttemptAt?.getTime() !== NOW.getTime())).toBe(true);
    expect(requeued()).toBe(1);
    expect(stores.written.map((w) => w.rows[0]?.row)).toEqual([
      match.objectContaining({ action: 'recovery_started', entityId: sub.id }),
    ]);
  });

  it('refuses a window that is empty, malformed, or older than the retention period', async () => {
    const { sub, recovery, counted } = setup();
    const iso = (hours: number) => new Date(NOW.getTime() + hours * HOUR).toISOString();
    expect(await failure(recovery.recover(actor(), sub.id, { since: iso(-1), until: iso(-2) }))).toMatchObject({
      reason: 'validation_error',
    });
    expect(await failure(recovery.recover(actor(), sub.id, { since: 'yesterday' }))).toMatchObject({
      reason: 'validation_error',
    });
    expect(await failure(recovery.recover(actor(), sub.id, { since: iso(-8 * 24) }))).toMatchObject({
      reason: 'validation_error',
    });
    sub.enabled = false;
    expect(await failure(recovery.recover(actor(), sub.id, { since: iso(-1) }))).toMatchObject({ reason: 'conflict' });
    expect(counted).toEqual([]);
  });

  it('finds a recovery only in its subscription and organization', async () => {
    const { sub, recovery } = setup();
    const started = await recovery.recover(actor(), sub.id, { since: new Date(NOW.getTime() - HOUR).toISOString() });
    expect(await failure(recovery.getRecovery(actor({ organizationId: OTHER_ORG }), sub.id, started.id as string))).toMatchObject(
      {
        reason: 'not_found',
      },
    );
    expect(await failure(recovery.getRecovery(actor(), sub.id, crypto.randomUUID()))).toMatchObject({ reason: 'not_found' });
  });

  it('resumes the running recoveries a stopped replica left, from their cursor', async () => {
    const { stores, sub, recovery, delivery } = setup();
    const first = delivery(3, { status: 'dead_letter' });
    const second = delivery(2, { status: 'dead_letter' });
    stores.recovery.rows.push({
      id: crypto.randomUUID(),
      organizationId: ORG,
      subscriptionId: sub.id,
      since: new Date(NOW.getTime() - 24 * HOUR),
      until: NOW,
      status: 'running',
      requeued: 1,
      cursorCreatedAt: first.createdAt,
      cursorId: first.id,
      createdAt: new Date(NOW.getTime() - HOUR),
      updatedAt: new Date(NOW.getTime() - HOUR),
      completedAt: null,
    });
    expect(await recovery.resumeStale()).toBe(1);
    await expect.poll(() => stores.recovery.rows[0].status).toBe('completed');
    expect(stores.recovery.rows[0].requeued).toBe(2);
    expect(second.nextAttemptAt).toEqual(NOW);
    expect(first.nextAttemptAt).toBeNull();
    await recovery.stop();
  });
});
