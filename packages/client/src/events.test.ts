import { describe, expect, it } from 'vitest';
import type { EventName, WebhookEvent } from './events.ts';

// The type checks are the test: `npm run typecheck` fails when a @ts-expect-error line compiles.
describe('typed webhook events', () => {
  it('names only the vocabulary, and narrows the payload by eventName', () => {
    const names: EventName[] = ['entry.created', 'webhook.test'];
    // @ts-expect-error: a misspelt name is no EventName
    const misspelt: EventName = 'entry.craeted';
    const event = JSON.parse(
      '{"id":"8b6c2a5e-5d0b-4f0e-9a59-0b0f3f7c1a2d","eventName":"entry.created","schemaVersion":1,"entityType":"entry","entityId":"e1","occurredAt":"2026-11-22T12:50:00.000Z","actorUserId":null,"payload":{"entryId":"e1","projectId":"p1","title":"Login fails","type":"bug_report","status":"open","occurredAt":"2026-11-22T12:50:00.000Z"}}',
    ) as WebhookEvent;
    let title: string | undefined;
    if (event.eventName === 'entry.created') {
      title = event.payload.title;
      // @ts-expect-error: entry.created's payload has no subscriptionId
      void event.payload.subscriptionId;
    }
    // @ts-expect-error: an event name outside the vocabulary cannot be compared
    void (event.eventName === 'entry.craeted');
    const test: WebhookEvent<'webhook.test'>['payload'] = { test: true, subscriptionId: 's1', occurredAt: 'now' };
    expect(title).toBe('Login fails');
    expect([names, misspelt, test.test]).toEqual([['entry.created', 'webhook.test'], 'entry.craeted', true]);
  });
});

describe('constructEvent', () => {
  it('verifies a delivery and returns the event, narrowed by eventName', async () => {
    const { constructEvent } = await import('./events.ts');
    const { sign } = await import('@cluster/webhook-verify');
    const secret = 'whsec_' + Buffer.from('a-secret-of-twenty-four!').toString('base64');
    const body = JSON.stringify({
      id: '8b6c2a5e-5d0b-4f0e-9a59-0b0f3f7c1a2d',
      eventName: 'entry.status_changed',
      schemaVersion: 1,
      entityType: 'entry',
      entityId: 'e1',
      occurredAt: '2026-11-22T12:50:00.000Z',
      actorUserId: null,
      payload: {
        entryId: 'e1',
        projectId: 'p1',
        title: 'Login fails',
        type: 'bug_report',
        status: 'done',
        previousStatus: 'open',
        newStatus: 'done',
      },
    });
    const event = constructEvent(body, sign(body, secret, { id: '8b6c2a5e-5d0b-4f0e-9a59-0b0f3f7c1a2d' }), secret);
    let moved = '';
    if (event.eventName === 'entry.status_changed') moved = `${event.payload.previousStatus} -> ${event.payload.newStatus}`;
    // @ts-expect-error: a misspelt name cannot be compared with the union's
    void (event.eventName === 'entry.status_chnaged');
    expect(moved).toBe('open -> done');
    let refused: unknown;
    try {
      constructEvent(body, sign(body, secret, { id: '8b6c2a5e-5d0b-4f0e-9a59-0b0f3f7c1a2d' }), 'whsec_b3RoZXI=');
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({ name: 'WebhookVerificationError', code: 'invalid_signature' });
  });
});
