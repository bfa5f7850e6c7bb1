import { describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE, EVENT_EXAMPLES, freshEventExample, webhookEventSchema } from '@cluster/contracts';
import { catalogueAjv } from './support/catalogue.ts';

// Every event of the catalogue has an example (packages/contracts/src/event-examples.ts): what
// POST /webhooks/:id/test and `cluster trigger` send. Each is checked here against the body's JSON
// Schema (the envelope with the event's payload schema, webhookEventSchema: the OpenAPI document's
// `webhooks`), by Ajv, and so is the fresh copy a test call sends.
const ajv = catalogueAjv();
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('event examples', () => {
  it.each(EVENT_CATALOGUE.map((e) => [e.name, e] as const))('%s: the example is a valid body of its event', (name, entry) => {
    const example = EVENT_EXAMPLES.get(name);
    const validate = ajv.compile(webhookEventSchema(entry));
    expect(validate(example) ? [] : validate.errors, name).toEqual([]);
    // Realistic: no generic filler left in the example.
    expect(JSON.stringify(example), name).not.toMatch(/"example /);
  });

  it('a fresh copy has new ids (one per entity, so entityId stays the payload id), the caller organization and actor, and now', () => {
    const now = new Date('2027-01-02T03:04:05.000Z');
    const ctx = { deliveryId: 'd-1', organizationId: '11111111-1111-4111-8111-111111111111', actorUserId: null, now };
    const a = freshEventExample('entry.status_changed', ctx);
    const b = freshEventExample('entry.status_changed', ctx);
    const ex = EVENT_EXAMPLES.get('entry.status_changed');
    expect(a).toMatchObject({ id: 'd-1', eventName: 'entry.status_changed', occurredAt: now.toISOString(), actorUserId: null });
    expect(a?.entityId).toMatch(uuid);
    expect(a?.entityId).toBe(a?.payload.entryId);
    expect([a?.entityId === b?.entityId, a?.entityId === ex?.entityId]).toEqual([false, false]);
    expect(a?.payload).toMatchObject({ occurredAt: now.toISOString(), previousStatus: 'open', newStatus: 'in_progress' });
    const time = freshEventExample('time.logged', { ...ctx, payload: {} });
    expect(time?.payload).toMatchObject({ organizationId: ctx.organizationId, workDate: '2027-01-02' });
    expect(freshEventExample('entry.craeted', ctx)).toBeUndefined();
    for (const e of EVENT_CATALOGUE) {
      const fresh = freshEventExample(e.name, { ...ctx, actorUserId: '22222222-2222-4222-8222-222222222222' });
      const validate = ajv.compile(webhookEventSchema(e));
      expect(validate({ ...fresh, id: '33333333-3333-4333-8333-333333333333' }) ? [] : validate.errors, e.name).toEqual([]);
    }
  });
});
