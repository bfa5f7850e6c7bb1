import { DEFAULT_PERMISSIONS } from '@cluster/contracts';
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { createClient } from '@connectrpc/connect';
import { rawPublicKey, signingKeyFromSeed } from '@cluster/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeliveryConfig, startDelivery } from '@cluster/delivery';
import { WebhookService } from '@cluster/proto';
import { verify } from '@cluster/webhook-verify';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { distArgs, run, runUntilExit } from './support/processes.ts';
import { jsonOf, transportAs } from './support/service-calls.ts';
import { createReceivers, verifyServiceSignature, verifyStandardSignature, type Receiver } from './support/receiver.ts';

// A key rotation as an operator runs it (docs/runbook.md, "Rotate a sealing key"), against real
// services: what was sealed under the old key, or before key ids existed, keeps working (an ed25519
// subscription's private key too: it is sealed and re-sealed like the HMAC secrets).
const ROOT = path.resolve(import.meta.dirname, '..');
const A = randomBytes(32).toString('base64');
const B = randomBytes(32).toString('base64');

let c: TestCluster;
let org: SeededOrg;
const receivers = createReceivers();
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  // No delivery service of the cluster's own: each step starts one with its keyring, as a rolled deployment would.
  c = await startTestCluster({ withoutDelivery: true, env: { WEBHOOK_POLL_MS: '100' } });
  org = await c.seedOrg('Key Rotation Org');
});
afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {});
  await receivers.closeAll();
  await c?.stop();
});

/** A delivery service on the cluster's database and topics with WEBHOOK_SECRET_KEY = `keys`; stop() shuts it down. */
async function deliveryWith(keys: string[]) {
  const replica = await startDelivery({
    ...readDeliveryConfig(),
    secretKeys: keys,
    port: 0,
    databaseUrl: c.databaseUrl,
    kafkaBrokers: c.brokers,
    topicPrefix: c.topicPrefix,
    coreUrl: `http://127.0.0.1:${c.ports.core}`,
  });
  let stopped = false;
  const stop = async () => {
    if (!stopped) await replica.shutdown.run('test');
    stopped = true;
  };
  cleanup.push(stop);
  const webhooks = createClient(WebhookService, transportAs('gateway', 'delivery', `http://127.0.0.1:${replica.port}`));
  const subscribe = async (url: string, signatureScheme = 'hmac-sha256') => {
    // The seeded admin key's grants: the delivery service enforces the route's rule (write:webhook) itself.
    const permissions = [...DEFAULT_PERMISSIONS.admin];
    const actor = {
      apiKeyId: org.keyId,
      organizationId: org.orgId,
      userId: org.adminId,
      role: 'admin',
      scope: 'organization',
      permissions,
    };
    const created = await webhooks.createWebhook({
      actor,
      body: { destinationUrl: url, eventNames: ['api_key.created'], signatureScheme },
    });
    const webhook = jsonOf(created.resource);
    // An ed25519 subscription has no secret: its receiver verifies with the public key.
    return { id: webhook.id as string, secret: (webhook.hmacSecret ?? webhook.publicKey) as string, actor };
  };
  /** Rotates a subscription's secret with a grace period: the replaced one keeps signing beside the new one. */
  const rotate = async (sub: Awaited<ReturnType<typeof subscribe>>) => {
    const rotated = await webhooks.rotateWebhookSecret({ actor: sub.actor, id: sub.id, body: { gracePeriodSeconds: 3600 } });
    return { id: sub.id, secret: jsonOf(rotated.resource).hmacSecret as string, previous: sub.secret };
  };
  return { subscribe, rotate, stop };
}

/** A value as the delivery service sealed signing secrets before key ids (`v1:iv:tag:ct`, same derivation). */
function sealedBeforeKeyIds(material: string, secret: string, subscriptionId: string): string {
  const key = Buffer.from(hkdfSync('sha256', material, 'cluster.delivery', 'webhook-secret-at-rest:v1', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(subscriptionId));
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
}

async function sql<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const db = new pg.Client({ connectionString: c.databaseUrl });
  await db.connect();
  try {
    return (await db.query(text, values)).rows as T[];
  } finally {
    await db.end();
  }
}

const sealedOf = async (id: string) =>
  (await sql<{ s: string }>('SELECT "secretSealed" AS s FROM delivery.subscriptions WHERE id = $1', [id]))[0].s;
const previousSealedOf = async (id: string) =>
  (await sql<{ s: string }>('SELECT "previousSecretSealed" AS s FROM delivery.subscriptions WHERE id = $1', [id]))[0].s;

/** Mints a key (api_key.created), then waits for each receiver's next request and checks both signatures. */
async function expectSignedDelivery(subs: { receiver: Receiver; secret: string }[]) {
  const next = subs.map(({ receiver }) => receiver.received.length + 1);
  await c.admin.createKey({ user: org.adminId, scope: 'organization' });
  for (const [i, { receiver, secret }] of subs.entries()) {
    const got = (await receiver.waitFor(next[i], undefined, 30_000))[next[i] - 1];
    if (secret.startsWith('whpk_')) {
      // ed25519: its private key was sealed like a secret; the v1a signature verifies with the public key.
      expect(verify(got.rawBody, got.headers, secret).id).toBe(got.headers['webhook-id']);
      continue;
    }
    expect(verifyServiceSignature(secret, got)).toBe(true);
    expect(verifyStandardSignature(secret, got)).toBe(true);
  }
}

describe('rotating WEBHOOK_SECRET_KEY', () => {
  it('secrets sealed under key A, or before key ids, still sign after a restart with "B,A"; re-sealed, with "B" alone', async () => {
    const [r1, r2, r3, r4] = [await receivers.start(), await receivers.start(), await receivers.start(), await receivers.start()];

    // Before: WEBHOOK_SECRET_KEY=A. One subscription sealed now, one as stored before key ids.
    const before = await deliveryWith([A]);
    const current = await before.subscribe(r1.url);
    const legacy = await before.subscribe(r2.url);
    const ed = await before.subscribe(r4.url, 'ed25519');
    // Rotated under A: its replaced secret, sealed under A too, signs beside the new one for an hour.
    const r5 = await receivers.start();
    const graced = await before.rotate(await before.subscribe(r5.url));
    await sql('UPDATE delivery.subscriptions SET "secretSealed" = $1 WHERE id = $2', [
      sealedBeforeKeyIds(A, legacy.secret, legacy.id),
      legacy.id,
    ]);
    expect(await sealedOf(current.id)).toMatch(/^v2:[0-9a-f]{12}:/);
    expect(await sealedOf(ed.id)).toMatch(/^v2:[0-9a-f]{12}:/);
    await expectSignedDelivery([
      { receiver: r1, secret: current.secret },
      { receiver: r2, secret: legacy.secret },
      { receiver: r4, secret: ed.secret },
      { receiver: r5, secret: graced.secret },
    ]);
    await before.stop();

    // Rolled with WEBHOOK_SECRET_KEY=B,A: old values open, new ones are sealed under B.
    const rotated = await deliveryWith([B, A]);
    const fresh = await rotated.subscribe(r3.url);
    const keyIdOf = (sealed: string) => sealed.split(':')[1];
    expect(keyIdOf(await sealedOf(fresh.id))).not.toBe(keyIdOf(await sealedOf(current.id)));
    await expectSignedDelivery([
      { receiver: r1, secret: current.secret },
      { receiver: r2, secret: legacy.secret },
      { receiver: r3, secret: fresh.secret },
      { receiver: r4, secret: ed.secret },
      { receiver: r5, secret: graced.secret },
    ]);

    // Re-sealed under B (the runbook's command, the built file the image carries), A can leave the keyring.
    const { stdout } = await run(process.execPath, distArgs('delivery', 'reseal-secrets'), {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: c.databaseUrl, WEBHOOK_SECRET_KEY: `${B},${A}`, LOG_LEVEL: 'silent' },
    });
    // Five values: four current secrets and the replaced one still in its grace period.
    expect(JSON.parse(stdout)).toMatchObject({ resealed: 5, unopenable: [] });
    const bId = keyIdOf(await sealedOf(fresh.id));
    for (const id of [current.id, legacy.id, ed.id, graced.id]) expect(keyIdOf(await sealedOf(id))).toBe(bId);
    expect(keyIdOf(await previousSealedOf(graced.id))).toBe(bId);
    await rotated.stop();

    // With B alone, the rotated subscription still signs with both: a receiver not yet moved to the
    // new secret keeps verifying.
    await deliveryWith([B]);
    await expectSignedDelivery([
      { receiver: r1, secret: current.secret },
      { receiver: r2, secret: legacy.secret },
      { receiver: r3, secret: fresh.secret },
      { receiver: r4, secret: ed.secret },
      { receiver: r5, secret: graced.secret },
    ]);
    const last = r5.received[r5.received.length - 1];
    expect(String(last.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(last.rawBody, last.headers, graced.previous).id).toBe(last.headers['webhook-id']);
  });
});

describe('production keys', () => {
  // Valid service-token keys, so that the sealing keys are what a start is refused for.
  const seed = randomBytes(32);
  const serviceKeys = {
    SERVICE_SIGNING_KEY: seed.toString('base64'),
    SERVICE_PUBLIC_KEYS: `gateway:${rawPublicKey(signingKeyFromSeed(seed)).toString('base64')}`,
  };

  /** Runs a service's main.ts outside development (CLUSTER_ENV unset, NODE_ENV=production) and `env`; its exit code and stderr (killed after 30 s). */
  function refusal(service: 'core' | 'delivery' | 'gateway', env: Record<string, string>) {
    return runUntilExit(service, {
      CLUSTER_ENV: '',
      NODE_ENV: 'production',
      WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'false',
      DATABASE_URL: c.databaseUrl,
      DATABASE_ALLOW_PLAINTEXT: 'true', // the local server has no TLS; these runs are about the keys
      ...serviceKeys,
      ...env,
    });
  }

  it('a service refuses plaintext Postgres outside development unless DATABASE_ALLOW_PLAINTEXT=true (issue 38)', async () => {
    const sealing = {
      CODEHOST_SECRET_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    };
    const [core, delivery, allowed] = await Promise.all([
      refusal('core', { ...sealing, DATABASE_ALLOW_PLAINTEXT: '' }),
      refusal('delivery', { ...sealing, DATABASE_ALLOW_PLAINTEXT: 'false' }),
      // Allowed, the start goes past the check and stops at the next missing setting of this run.
      refusal('core', { ...sealing, CODEHOST_SECRET_KEY: '' }),
    ]);
    for (const refused of [core, delivery]) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'ConfigError: DATABASE_URL connects to Postgres without TLS (sslmode=disable, the default when unset), refused unless CLUSTER_ENV=development',
      );
    }
    expect(allowed.stderr).not.toContain('without TLS');
    expect(allowed.stderr).toContain('CODEHOST_SECRET_KEY is required');
  });

  it('a service refuses to start with a missing, placeholder or short key, naming the variable', async () => {
    const [missing, placeholder, short, codehost] = await Promise.all([
      refusal('delivery', { WEBHOOK_SECRET_KEY: '' }),
      refusal('delivery', { WEBHOOK_SECRET_KEY: 'CHANGE_ME_32_BYTES_BASE64' }),
      refusal('delivery', { WEBHOOK_SECRET_KEY: randomBytes(16).toString('base64') }),
      refusal('core', { CODEHOST_SECRET_KEY: '' }),
    ]);
    expect(codehost.code).toBe(1);
    expect(codehost.stderr).toContain('ConfigError: CODEHOST_SECRET_KEY is required unless CLUSTER_ENV=development');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ConfigError: WEBHOOK_SECRET_KEY is required unless CLUSTER_ENV=development');
    expect(placeholder.code).toBe(1);
    expect(placeholder.stderr).toContain('ConfigError: WEBHOOK_SECRET_KEY is a placeholder');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('ConfigError: WEBHOOK_SECRET_KEY decodes to 16 bytes, not 32');
  });
});
