import { afterAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { createDb } from '@cluster/db';
import { commitWrite } from '@cluster/outbox';
import { createEventLog, dropDatabase, freshDatabaseUrl, requireEnv } from '../support/cluster.ts';
import { exited, freePort, spawnService, waitForHttp } from '../support/processes.ts';

const TOTAL = 3000;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const f of cleanups.reverse()) await f().catch(() => {});
});

describe('outbox relay under kill -9', () => {
  it('loses nothing when the core is killed mid-stream and restarted', async () => {
    const { brokers } = requireEnv();
    const databaseUrl = freshDatabaseUrl('fault');
    const prefix = `f${randomBytes(4).toString('hex')}.`;
    const port = await freePort();
    const env = {
      DATABASE_URL: databaseUrl,
      KAFKA_BROKERS: brokers.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      CORE_PORT: String(port),
    };
    cleanups.push(() => dropDatabase(databaseUrl));

    // First start migrates the schema and creates the topics; stop it so the backlog builds up.
    let core = spawnService('core', env);
    await waitForHttp(`http://127.0.0.1:${port}/readyz`);
    core.kill('SIGTERM');
    await exited(core);

    // Outbox rows carry logical topic names; the restarted core's relay adds its prefix.
    const db = createDb(databaseUrl, { schema: 'core', poolMax: 2 });
    cleanups.push(() => db.destroy());
    const [org] = await db('organizations').insert({ name: 'fault' }).returning('id');
    const ids: string[] = [];
    for (let i = 0; i < TOTAL; i += 500) {
      await db.transaction(async (trx) => {
        const batch = Array.from({ length: 500 }, () => {
          const entityId = randomUUID();
          ids.push(entityId);
          return {
            eventName: 'project.updated',
            entityType: 'project',
            entityId,
            organizationId: org.id,
            actorUserId: null,
            payload: { n: ids.length },
          };
        });
        await commitWrite(trx, 'core', { rows: [], events: batch });
      });
    }

    const log = await createEventLog(brokers, `${prefix}cluster.domain-events.v1`);
    cleanups.push(() => log.stop());
    core = spawnService('core', env);
    await log.waitFor(() => true, 400, 60000);
    core.kill('SIGKILL');
    await exited(core);
    const atKill = log.all().length;
    const [{ count: left }] = await db('outbox').count({ count: '*' });

    core = spawnService('core', env);
    cleanups.push(async () => {
      core.kill('SIGTERM');
      await exited(core);
    });
    // Republished rows make duplicates, so wait for every distinct event, not a message count.
    const deadline = Date.now() + 90_000;
    while (new Set(log.all().map((e) => e.entityId)).size < TOTAL && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    await waitForHttp(`http://127.0.0.1:${port}/readyz`);
    const seen = log.all().map((e) => e.entityId);
    const unique = new Set(seen);
    const lost = ids.filter((id) => !unique.has(id));
    const [{ count: remaining }] = await db('outbox').count({ count: '*' });
    console.log(
      `outbox relay fault: ${TOTAL} events, ${atKill} seen at kill -9 (${left} rows left), ${unique.size} unique delivered, ${seen.length - unique.size} duplicates, ${lost.length} lost`,
    );
    expect(Number(left)).toBeGreaterThan(0);
    expect(lost).toEqual([]);
    expect(Number(remaining)).toBe(0);
  }, 240_000);
});
