import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, reasonOf, TEST_ORG, testActor as actor, like } from '../../shared/test-kit.ts';
import { createAuditEventService } from './service.ts';

const ID = '60000000-0000-4000-8000-000000000001';
const rec = (over: Record<string, unknown> = {}) => ({
  entityType: 'webhook_subscription',
  action: 'created',
  entityId: 'w1',
  metadata: {},
  ...over,
});

describe('audit event rules (fake stores)', () => {
  it("records another service's audit event with the actor's fields, dated when it happened", async () => {
    const stores = createFakeStores();
    const audit = createAuditEventService(stores);
    await audit.record(
      actor(),
      'delivery',
      rec({ id: ID, occurredAt: '2025-01-01T00:00:00Z', entityName: 'hook', metadata: { url: 'https://x' } }),
    );
    expect(stores.written).toEqual([
      {
        rows: [
          {
            table: 'audit_events',
            ignoreConflict: true,
            row: like({
              id: ID,
              createdAt: '2025-01-01T00:00:00Z',
              organizationId: TEST_ORG,
              entityType: 'webhook_subscription',
              entityName: 'hook',
              actorId: 'u1',
              metadata: { actorType: 'api_key', apiKeyId: 'k1', requestId: 'r1', url: 'https://x', service: 'delivery' },
            }),
          },
        ],
        events: [],
      },
    ]);
  });

  it('records an event once per id: a retried forward adds nothing', async () => {
    const stores = createFakeStores();
    const audit = createAuditEventService(stores);
    await audit.record(actor(), 'delivery', rec({ id: ID }));
    await audit.record(actor(), 'delivery', rec({ id: ID, action: 'retried' }));
    await audit.record(actor(), 'delivery', rec());
    await audit.record(actor(), 'delivery', rec());
    const page = await audit.list(actor(), undefined, {}, { page: 1, pageSize: 25 });
    expect(page.total).toBe(3);
    expect(page.data.filter((e) => e.id === ID).map((e) => e.action)).toEqual(['created']);
    expect(stores.written.map((w) => w.rows[0].ignoreConflict)).toEqual([true, true, false, false]);
  });

  it('refuses (400) an id that is not a UUID and an occurredAt that is not a date, and records nothing', async () => {
    const stores = createFakeStores();
    const audit = createAuditEventService(stores);
    await expect(audit.record(actor(), 'delivery', rec({ id: 'w-1' }))).rejects.toMatchObject({
      reason: 'validation_error',
      details: { errors: [{ path: '/id', message: 'must be a UUID' }] },
    });
    await expect(audit.record(actor(), 'delivery', rec({ occurredAt: 'yesterday' }))).rejects.toMatchObject({
      reason: 'validation_error',
      details: {
        errors: [{ path: '/occurredAt', message: 'must be an RFC 3339 date-time' }],
      },
    });
    expect(stores.written).toEqual([]);
  });

  it('refuses (403) an entity type that is not of the calling service’s own writes, and names the service whatever the metadata says', async () => {
    const stores = createFakeStores();
    const audit = createAuditEventService(stores);
    expect(await reasonOf(audit.record(actor(), 'delivery', rec({ entityType: 'entry', action: 'approved' })))).toBe('forbidden');
    expect(await reasonOf(audit.record(actor(), 'evidence', rec()))).toBe('forbidden');
    expect(await reasonOf(audit.record(actor(), undefined, rec()))).toBe('forbidden');
    expect(stores.written).toEqual([]);
    await audit.record(actor(), 'evidence', rec({ entityType: 'evidence_key', metadata: { service: 'core' } }));
    expect(stores.written[0].rows[0].row).toMatchObject({ metadata: { service: 'evidence' } });
  });

  it("lists the organization's events, one project's (404/403 as for the project), a project key only its project's", async () => {
    const stores = createFakeStores();
    const audit = createAuditEventService(stores);
    const p1 = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
    const p2 = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
    const foreign = await stores.projects.insert({ organizationId: OTHER_ORG, clientId: OTHER_ORG, name: 'Site' });
    await audit.record(actor(), 'delivery', { ...rec(), projectId: p1.id });
    await audit.record(actor(), 'delivery', { ...rec({ action: 'deleted' }), projectId: p2.id });
    await audit.record(actor({ organizationId: OTHER_ORG }), 'delivery', { ...rec(), projectId: foreign.id });
    const all = await audit.list(actor(), undefined, {}, { page: 1, pageSize: 25 });
    expect(all.data.map((e) => e.action)).toEqual(['deleted', 'created']);
    expect(all.data[0]).not.toHaveProperty('organizationId');
    expect((await audit.list(actor(), p1.id, {}, { page: 1, pageSize: 25 })).total).toBe(1);
    expect((await audit.list(actor(), undefined, { action: 'deleted' }, { page: 1, pageSize: 25 })).total).toBe(1);
    const key = actor({ scope: 'project', scopedProjectId: p2.id });
    expect((await audit.list(key, undefined, {}, { page: 1, pageSize: 25 })).data.map((e) => e.action)).toEqual(['deleted']);
    expect(await reasonOf(audit.list(key, p1.id, {}, { page: 1, pageSize: 25 }))).toBe('scope_violation');
    expect(await reasonOf(audit.list(actor(), foreign.id, {}, { page: 1, pageSize: 25 }))).toBe('not_found');
  });
});
