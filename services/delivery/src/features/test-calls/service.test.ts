import { describe, expect, it } from 'vitest';
import { match } from '@cluster/platform/test-kit';
import type { DomainError } from '@cluster/platform';
import { Counter, Histogram } from 'prom-client';
import { createFakeStores, type FakeStores } from '../../fake-stores.ts';
import type { HttpSender, SendResult } from '../../sender/http-sender.ts';
import { serviceSignature } from '@cluster/webhook-verify';
import { EVENT_EXAMPLES, type WebhookEnvelope } from '@cluster/contracts';
import { failure, OTHER_ORG, testActor as actor, testSubscription } from '../../shared/test-fixtures.ts';
import { createWebhookSecretBox } from '../../shared/webhook-secret-box.ts';
import { createTestCallService } from './service.ts';

const secrets = createWebhookSecretBox(['unit-test key']);
const SECRET = 'whsec_dGVzdC1jYWxsLXNlY3JldC10ZXN0LWNhbGwtc2VjcmV0';

/** An HttpSender that answers `answer` and keeps what it was asked to send. */
function recordingSender(answer: SendResult) {
  const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
  const sender: HttpSender = {
    async send(url, headers, body) {
      sent.push({ url, headers, body });
      return answer;
    },
    async close() {},
  };
  return { sender, sent };
}

function setup(
  answer: SendResult = { ok: true, responseCode: 200, responseBody: 'ok', error: null, durationMs: 4 },
  clock = { t: new Date('2026-03-01T12:00:00Z') },
) {
  const stores: FakeStores = createFakeStores();
  const sub = testSubscription({ eventNames: ['entry.created', 'entry.updated'] });
  sub.secretSealed = secrets.seal(SECRET, sub.id);
  stores.subscriptions.rows.push(sub);
  const { sender, sent } = recordingSender(answer);
  let audited = 0;
  const metrics = {
    deliveries: new Counter({ name: 'unit_deliveries', help: 'unit', labelNames: ['outcome'] as const, registers: [] }),
    attemptDuration: new Histogram({
      name: 'unit_attempt_duration',
      help: 'unit',
      labelNames: ['outcome'] as const,
      registers: [],
    }),
  };
  const calls = createTestCallService(stores, {
    sender,
    secrets,
    metrics,
    limitPerHour: 3,
    clock: () => clock.t,
    audited: () => void audited++,
  });
  return { stores, sub, sent, calls, clock, audited: () => audited, metrics };
}

describe('test calls (fake stores)', () => {
  it('answers whether a named event passes the filter, and sends nothing when it does not; webhook.test ignores the filter', async () => {
    const { stores, sub, sent, calls } = setup();
    // entry.updated's catalogue example has a title; no title holds "nope".
    sub.filter = { eventName: 'entry.updated', payload: { title: { $in: 'nope' } } };
    const kept = await calls.fire(actor(), sub.id, { eventName: 'entry.updated' });
    expect(kept).toEqual({
      deliveryId: null,
      subscriptionId: sub.id,
      eventName: 'entry.updated',
      firedAt: '2026-03-01T12:00:00.000Z',
      filterMatched: false,
      deliveryError: 'the event does not match the subscription’s filter; nothing was sent',
    });
    expect(sent).toHaveLength(0);
    expect(stores.deliveryQueue.rows).toHaveLength(0);
    sub.filter = { eventName: 'entry.updated', payload: { title: { $exist: true } } };
    const passed = await calls.fire(actor(), sub.id, { eventName: 'entry.updated' });
    expect(passed).toMatchObject({ deliveryId: match.any(String), filterMatched: true });
    expect(sent).toHaveLength(1);
    // The connectivity check goes out whatever the filter says, and answers no filterMatched.
    const plain = await calls.fire(actor(), sub.id, {});
    expect(plain).not.toHaveProperty('filterMatched');
    expect(plain.deliveryId).toEqual(match.any(String));
    expect(sent).toHaveLength(2);
    expect(EVENT_EXAMPLES.get('entry.updated')?.payload).toHaveProperty('title');
  });

  it('sends a signed synthetic delivery, records it with its attempt, and audits the call', async () => {
    const { stores, sub, sent, calls, audited, metrics } = setup();
    const answer = await calls.fire(actor(), sub.id, { eventName: 'entry.updated' });
    expect(answer).toEqual({
      deliveryId: match.any(String),
      subscriptionId: sub.id,
      eventName: 'entry.updated',
      firedAt: '2026-03-01T12:00:00.000Z',
      filterMatched: true,
    });
    const [post] = sent;
    expect(post.url).toBe(sub.destinationUrl);
    // The catalogue's example of entry.updated, with a fresh entry id, the caller and the call's time.
    const body = JSON.parse(post.body) as WebhookEnvelope;
    expect(body).toEqual({
      id: answer.deliveryId,
      eventName: 'entry.updated',
      schemaVersion: 1,
      entityType: 'entry',
      entityId: match.stringMatching(/^[0-9a-f-]{36}$/),
      occurredAt: '2026-03-01T12:00:00.000Z',
      actorUserId: 'u1',
      payload: {
        ...EVENT_EXAMPLES.get('entry.updated')?.payload,
        entryId: body.entityId,
        projectId: match.stringMatching(/^[0-9a-f-]{36}$/),
        occurredAt: '2026-03-01T12:00:00.000Z',
      },
    });
    expect(body.payload.projectId).not.toBe(EVENT_EXAMPLES.get('entry.updated')?.payload.projectId);
    expect(post.headers['x-service-signature']).toBe(serviceSignature(SECRET, post.body));
    expect(stores.deliveryQueue.rows).toEqual([
      match.objectContaining({ id: answer.deliveryId, test: true, status: 'succeeded', attempts: 1, nextAttemptAt: null }),
    ]);
    expect(stores.written).toEqual([
      {
        rows: [
          {
            table: 'delivery.audit_outbox',
            row: match.objectContaining({ action: 'tested', entityId: sub.id, metadata: { eventName: 'entry.updated' } }),
          },
        ],
        events: [],
      },
    ]);
    expect(audited()).toBe(1);
    expect((await metrics.deliveries.get()).values).toEqual([
      match.objectContaining({ labels: { outcome: 'succeeded' }, value: 1 }),
    ]);
  });

  it('answers a failed send with deliveryError and schedules no retry', async () => {
    const { stores, sub, calls } = setup({
      ok: false,
      responseCode: null,
      responseBody: null,
      error: 'ECONNREFUSED: connect',
      durationMs: 1,
    });
    const answer = await calls.fire(actor(), sub.id, {});
    expect(answer).toMatchObject({ eventName: 'webhook.test', deliveryError: 'ECONNREFUSED: connect' });
    expect(stores.deliveryQueue.rows[0]).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null });
  });

  it('allows limitPerHour calls per organization over a rolling hour, then 429 with retryAfter; 404s are not counted', async () => {
    const { sub, calls, clock, sent } = setup();
    const foreign = actor({ organizationId: OTHER_ORG });
    expect(await failure(calls.fire(foreign, sub.id, {}))).toMatchObject({ reason: 'not_found' });
    for (let i = 0; i < 3; i++) {
      await calls.fire(actor(), sub.id, {});
      clock.t = new Date(clock.t.getTime() + 10 * 60_000);
    }
    // 30 minutes after the first call: it frees a slot in 30 minutes.
    expect(await failure(calls.fire(actor(), sub.id, {}))).toMatchObject({ reason: 'rate_limit', details: { retryAfter: 1800 } });
    clock.t = new Date(clock.t.getTime() + 30 * 60_000);
    await calls.fire(actor(), sub.id, {});
    expect(sent).toHaveLength(4);
  });

  it("counts a call with a name outside the subscription's list (400), and sends nothing for a disabled subscription", async () => {
    const { stores, sub, calls, sent } = setup();
    expect(await failure(calls.fire(actor(), sub.id, { eventName: 'release.created' }))).toMatchObject({
      reason: 'validation_error',
    });
    expect(stores.testCalls.calls).toHaveLength(1);
    sub.enabled = false;
    const answer = await calls.fire(actor(), sub.id, {});
    expect(answer).toMatchObject({ deliveryId: null, deliveryError: 'the subscription is disabled; nothing was sent' });
    expect(sent).toEqual([]);
    expect(stores.deliveryQueue.rows).toEqual([]);
    expect(stores.testCalls.calls).toHaveLength(2);
  });

  it('takes payload fields of the caller for a named event: sent, and met by the filter, in place of the example’s', async () => {
    const { sub, sent, calls, stores } = setup();
    sub.filter = { payload: { type: 'bug_report' } };
    // The example's type is not security: the filter keeps it back; the caller's own value passes it.
    expect(await calls.fire(actor(), sub.id, { eventName: 'entry.updated' })).toMatchObject({ filterMatched: false });
    const mine = await calls.fire(actor(), sub.id, {
      eventName: 'entry.updated',
      payload: { type: 'bug_report', title: 'Mine' },
    });
    expect(mine).toMatchObject({ deliveryId: match.any(String), filterMatched: true });
    const body = JSON.parse(sent[0].body) as WebhookEnvelope;
    expect(body.payload).toMatchObject({
      type: 'bug_report',
      title: 'Mine',
      changedFields: EVENT_EXAMPLES.get('entry.updated')?.payload.changedFields,
    });
    // A payload the event could never carry: 400 with pointers into the body, counted, nothing sent.
    const bad = await failure(
      calls.fire(actor(), sub.id, { eventName: 'entry.updated', payload: { type: 'nonsense', title: 7 } }),
    );
    expect(bad).toMatchObject({ reason: 'validation_error' });
    const paths = ((bad as DomainError).details?.errors as { path: string }[]).map((e) => e.path);
    expect(paths.sort()).toEqual(['/payload/title', '/payload/type']);
    expect(sent).toHaveLength(1);
    expect(stores.testCalls.calls).toHaveLength(3);
    // Without a name (webhook.test, whose payload is fixed), fields are refused.
    const other = setup();
    const fixed = await failure(other.calls.fire(actor(), other.sub.id, { payload: { test: false } }));
    expect(fixed).toMatchObject({ reason: 'validation_error', details: { errors: [{ path: '/payload' }] } });
    expect(other.sent).toHaveLength(0);
  });
});
