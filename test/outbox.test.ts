import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Knex } from '@cluster/db';
import { commitWrite } from '@cluster/outbox';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

let c: TestCluster;
let org: SeededOrg;
let db: Knex;

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Outbox Org');
  db = createDb(c.databaseUrl, { schema: 'core', poolMax: 2 });
});
afterAll(async () => {
  await db?.destroy();
  await c?.stop();
});

describe('transactional outbox', () => {
  it('a created project yields exactly one event on Kafka, with the envelope fields', async () => {
    const res = await c.api(org.key, 'POST', '/projects', { name: 'evented', description: '' });
    const id = res.body.id;
    await c.events.waitFor((e) => e.entityId === id);
    const events = await c.events.settle((e) => e.entityId === id);
    expect(events).toHaveLength(1);
    const [e] = events;
    expect(e).toMatchObject({
      eventName: 'project.created',
      schemaVersion: 1,
      entityType: 'project',
      entityId: id,
      actorUserId: org.adminId,
      organizationId: org.orgId,
      projectId: id,
      payload: { projectId: id, name: 'evented', status: 'active', occurredAt: e.occurredAt },
    });
    expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(e.occurredAt).toISOString()).toBe(e.occurredAt);
    const [{ count }] = await db('outbox').count({ count: '*' });
    expect(Number(count)).toBe(0);
  });

  it("stores logical topic names, so a writer without the services' topic prefix (an admin CLI) does not block the relay", async () => {
    const prefix = process.env.KAFKA_TOPIC_PREFIX;
    const entityId = crypto.randomUUID();
    delete process.env.KAFKA_TOPIC_PREFIX;
    try {
      await db.transaction((trx) =>
        commitWrite(trx, 'core', {
          rows: [],
          events: [
            {
              eventName: 'project.updated',
              entityType: 'project',
              entityId,
              organizationId: org.orgId,
              projectId: org.projectId,
              actorUserId: null,
              payload: { projectId: org.projectId, changedFields: [] },
            },
          ],
        }),
      );
      // The relay publishes it while this process's environment has no prefix: the relay read
      // its prefix when it was made (it once read it at every publish, and this test raced it).
      await c.flushOutbox();
    } finally {
      if (prefix !== undefined) process.env.KAFKA_TOPIC_PREFIX = prefix;
    }
    // Published by the core's relay to the cluster's (prefixed) topic, and nothing stays behind.
    await c.events.waitFor((e) => e.entityId === entityId);
    await c.flushOutbox();
    const [{ count }] = await db('outbox').count({ count: '*' });
    expect(Number(count)).toBe(0);
  });

  it('publishes a backlog of large events, even more than a Kafka request holds, and a comment as large as a request body', async () => {
    // Three ~700 KB events of one entity (one partition) in one commit: one relay batch, 2.1 MB.
    const entityId = crypto.randomUUID();
    const big = 'x'.repeat(700_000);
    await db.transaction((trx) =>
      commitWrite(trx, 'core', {
        rows: [],
        events: [0, 1, 2].map((i) => ({
          eventName: 'entry.commented',
          entityType: 'entry',
          entityId,
          organizationId: org.orgId,
          projectId: org.projectId,
          actorUserId: null,
          payload: { entryId: entityId, body: `${i}${big}` },
        })),
      }),
    );
    const got = await c.events.waitFor((e) => e.entityId === entityId, 3, 30_000);
    expect(got.map((e) => (e.payload as { body: string }).body.slice(0, 1))).toEqual(['0', '1', '2']);

    // The largest comment the gateway accepts (1 MiB body) becomes an event over Kafka's 1 MB default.
    const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
      type: 'feedback',
      title: 'long',
      description: 'd',
    });
    const content = 'y'.repeat(1_048_000);
    const comment = await c.api(org.key, 'POST', `/entries/${entry.body.id}/comments`, { content });
    expect(comment.status).toBe(201);
    const [commented] = await c.events.waitFor(
      (e) => e.eventName === 'entry.commented' && e.entityId === entry.body.id,
      1,
      30_000,
    );
    expect((commented.payload as { body: string }).body).toHaveLength(content.length);
  });

  it('a failed transaction yields no event', async () => {
    const marker = `rolled-back-${Date.now()}`;
    await expect(
      db.transaction(async (trx) => {
        await trx('projects').insert({ organizationId: org.orgId, clientId: org.orgId, name: marker, description: '' });
        await commitWrite(trx, 'core', {
          rows: [],
          events: [
            {
              eventName: 'project.created',
              entityType: 'project',
              entityId: marker,
              organizationId: org.orgId,
              actorUserId: null,
              payload: {},
            },
          ],
        });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    // A committed event after it proves the relay ran past the point where the rolled-back one would be.
    const after = await c.api(org.key, 'POST', '/projects', { name: 'after', description: '' });
    await c.events.waitFor((e) => e.entityId === after.body.id);
    expect(c.events.all().filter((e) => e.entityId === marker)).toHaveLength(0);
    expect(await db('projects').where({ name: marker })).toHaveLength(0);
  });

  it('publishes events of one entity in commit order, keyed by entity id', async () => {
    const p = (await c.api(org.key, 'POST', '/projects', { name: 'ordered', description: '' })).body;
    for (let i = 0; i < 5; i++) await c.api(org.key, 'PATCH', `/projects/${p.id}`, { name: `ordered ${i}` });
    const events = await c.events.waitFor((e) => e.entityId === p.id, 6);
    expect(events.map((e) => e.eventName)).toEqual(['project.created', ...Array(5).fill('project.updated')]);
    expect(events.slice(1).map((e) => e.payload.name)).toEqual([0, 1, 2, 3, 4].map((i) => `ordered ${i}`));
  });
});
