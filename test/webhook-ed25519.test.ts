import { spawn } from 'node:child_process';
import path from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWebhookVerificationError, verify } from '@cluster/webhook-verify';
import { readDeliveryConfig } from '@cluster/delivery';
import { DEV_SECRET_KEY_MATERIAL } from '../services/delivery/src/config.ts';
import { createWebhookSecretBox } from '../services/delivery/src/shared/webhook-secret-box.ts';
import { startTestCluster, type ApiResponse, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { createReceivers, type Received, type Receiver } from './support/receiver.ts';
import { until } from './support/poll.ts';

// An ed25519 subscription end to end (docs/signature-schemes.md): the API shows only the whpk_ public
// key, the service seals the whsk_ private key, and every delivery (events, test calls, rotation's grace
// period) carries Standard Webhooks `v1a` signatures that verify with the public key through
// @cluster/webhook-verify and through an independent Ed25519 implementation (@noble/curves) over
// the specification's signed content, `id.timestamp.body`.
const receivers = createReceivers();
let c: TestCluster;
let org: SeededOrg;
let receiver: Receiver;
let hookId: string;
let firstPublicKey: string;
/** Every answer of the API in this file: none may hold a private key. */
const answers: ApiResponse[] = [];
const api = async (method: string, path: string, body?: unknown) => {
  const res = await c.api(org.key, method, path, body);
  answers.push(res);
  return res;
};

const WHPK = /^whpk_[A-Za-z0-9+/]{43}=$/;
const raw = (whpk: string) => Buffer.from(whpk.slice('whpk_'.length), 'base64');

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Ed25519 Org');
  receiver = await receivers.start();
}, 120_000);
afterAll(async () => {
  await receivers.closeAll();
  await c?.stop();
});

/** Makes an entry and returns the delivery its entry.created caused. */
async function nextDelivery(title: string): Promise<Received> {
  const entry = await api('POST', `/projects/${org.projectId}/entries`, { title, description: '-', type: 'feedback' });
  expect(entry.status).toBe(201);
  const [got] = await receiver.waitFor(1, (r) => (r.body as { entityId?: string }).entityId === entry.body.id);
  return got;
}

/** The v1a signatures of a delivery, decoded. */
const v1aOf = (r: Received) =>
  String(r.headers['webhook-signature'])
    .split(' ')
    .map((s) => {
      expect(s).toMatch(/^v1a,/);
      return Buffer.from(s.slice(4), 'base64');
    });

/** Verified by @noble/curves alone: any v1a signature of the header over id.timestamp.body under `whpk`. */
function nobleVerifies(r: Received, whpk: string, body = r.rawBody): boolean {
  const content = new TextEncoder().encode(
    `${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${body}`,
  );
  return v1aOf(r).some((sig) => ed25519.verify(sig, content, raw(whpk)));
}

/** Verified by @cluster/webhook-verify with the public key (its error code otherwise). */
function packageVerifies(r: Received, whpk: string | string[], body = r.rawBody): true | string {
  try {
    verify(body, r.headers, whpk);
    return true;
  } catch (err) {
    if (isWebhookVerificationError(err)) return err.code;
    throw err;
  }
}

describe('an ed25519 subscription', () => {
  it('is created with signatureScheme ed25519: create, get and list show its whpk_ public key, never a secret', async () => {
    const created = await api('POST', '/webhooks', {
      destinationUrl: receiver.url,
      eventNames: ['entry.created'],
      signatureScheme: 'ed25519',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ signatureScheme: 'ed25519', publicKey: expect.stringMatching(WHPK) });
    expect(created.body).not.toHaveProperty('hmacSecret');
    hookId = created.body.id as string;
    firstPublicKey = created.body.publicKey as string;
    expect((await api('GET', `/webhooks/${hookId}`)).body).toMatchObject({
      signatureScheme: 'ed25519',
      publicKey: firstPublicKey,
    });
    const listed = await api('GET', '/webhooks');
    expect(listed.body.data).toEqual([expect.objectContaining({ id: hookId, publicKey: firstPublicKey })]);
    // The default is unchanged: hmac-sha256, with its secret and no public key.
    const hmac = await api('POST', '/webhooks', {
      destinationUrl: 'https://example.com/h',
      eventNames: ['entry.status_changed'],
    });
    expect(hmac.body).toMatchObject({
      signatureScheme: 'hmac-sha256',
      publicKey: null,
      hmacSecret: expect.stringMatching(/^whsec_/),
    });
    expect((await api('DELETE', `/webhooks/${hmac.body.id}`)).status).toBe(204);
  });

  it('keeps the private key sealed at rest: the row holds no whsk_ key, and what it seals is the pair of the public key', async () => {
    const db = new pg.Client({ connectionString: c.databaseUrl });
    await db.connect();
    const { rows } = await db.query('SELECT * FROM delivery.subscriptions WHERE id = $1', [hookId]);
    await db.end();
    const [row] = rows as { secretSealed: string; signatureScheme: string; publicKey: string }[];
    expect(row).toMatchObject({ signatureScheme: 'ed25519', publicKey: firstPublicKey });
    expect(row.secretSealed).toMatch(/^v2:[0-9a-f]{12}:/);
    expect(JSON.stringify(row)).not.toContain('whsk_');
    // Opened with the cluster's sealing key (the delivery service's keyring), it is the whsk_ key whose public half was shown.
    const box = createWebhookSecretBox(readDeliveryConfig().secretKeys ?? [DEV_SECRET_KEY_MATERIAL]);
    const privateKey = box.open(row.secretSealed, hookId);
    expect(privateKey).toMatch(/^whsk_/);
    const secretKey = Buffer.from(privateKey.slice(5), 'base64');
    expect(JSON.stringify(row)).not.toContain(secretKey.toString('base64'));
    expect(JSON.stringify(row)).not.toContain(secretKey.subarray(0, 32).toString('base64').slice(0, 40));
    expect(Buffer.from(ed25519.getPublicKey(secretKey.subarray(0, 32))).equals(raw(firstPublicKey))).toBe(true);
  });

  it('signs its deliveries v1a: they verify with the public key (webhook-verify and @noble/curves); a tampered body or a wrong key fails', async () => {
    const got = await nextDelivery('signed with ed25519');
    expect(got.headers['x-service-signature']).toBeUndefined(); // an HMAC needs a shared secret: there is none
    expect(got.headers['webhook-id']).toBe(got.headers['x-service-delivery-id']);
    expect(v1aOf(got)).toHaveLength(1);
    expect(verify(got.rawBody, got.headers, firstPublicKey)).toMatchObject({
      id: got.headers['webhook-id'],
      eventName: 'entry.created',
      scheme: 'standard',
    });
    expect(nobleVerifies(got, firstPublicKey)).toBe(true);

    const tampered = got.rawBody.replace('signed with ed25519', 'signed with ed25518');
    expect(tampered).not.toBe(got.rawBody);
    expect(nobleVerifies(got, firstPublicKey, tampered)).toBe(false);
    expect(packageVerifies(got, firstPublicKey, tampered)).toBe('invalid_signature');
    const wrong = `whpk_${Buffer.from(ed25519.getPublicKey(ed25519.utils.randomSecretKey())).toString('base64')}`;
    expect(nobleVerifies(got, wrong)).toBe(false);
    expect(packageVerifies(got, wrong)).toBe('invalid_signature');
  });

  it('signs the test call v1a too', async () => {
    const before = receiver.received.length;
    const tested = await api('POST', `/webhooks/${hookId}/test`);
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ subscriptionId: hookId, eventName: 'webhook.test', deliveryId: expect.any(String) });
    expect(tested.body).not.toHaveProperty('deliveryError');
    const [got] = await receiver.waitFor(1, (r) => r.headers['webhook-id'] === tested.body.deliveryId);
    expect(receiver.received.length).toBeGreaterThan(before);
    expect(packageVerifies(got, firstPublicKey)).toBe(true);
    expect(nobleVerifies(got, firstPublicKey)).toBe(true);
  });

  it('signs a redelivery v1a too, with the same delivery id', async () => {
    const got = await nextDelivery('sent twice');
    const deliveryId = String(got.headers['webhook-id']);
    const again = await api('POST', `/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const copies = await receiver.waitFor(2, (r) => r.headers['webhook-id'] === deliveryId);
    expect(copies[1].rawBody).toBe(got.rawBody);
    expect(packageVerifies(copies[1], firstPublicKey)).toBe(true);
    expect(nobleVerifies(copies[1], firstPublicKey)).toBe(true);
  });

  it('verifies with the docs example receiver given WEBHOOK_PUBLIC_KEY (and refuses a tampered copy)', async () => {
    const got = await nextDelivery('to the example');
    const script = path.resolve(import.meta.dirname, '..', 'docs', 'examples', 'webhook-receiver.mjs');
    const example = spawn(process.execPath, [script], {
      env: { ...process.env, WEBHOOK_SECRET: '', WEBHOOK_PUBLIC_KEY: firstPublicKey, PORT: '0' },
    });
    try {
      let out = '';
      example.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const listening = await until(
        async () => /listening on (\d+)/.exec(out),
        (m) => m !== null,
        10_000,
      );
      expect(listening).not.toBeNull();
      const url = `http://127.0.0.1:${listening![1]}/hook`;
      const headers = Object.fromEntries(
        Object.entries(got.headers).filter(([k, v]) => typeof v === 'string' && k.startsWith('webhook-')),
      ) as Record<string, string>;
      const post = async (body: string) => {
        const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
        return [res.status, await res.text()];
      };
      expect(await post(got.rawBody)).toEqual([200, 'ok']);
      expect(await post(got.rawBody.replace('to the example', 'to the exampl3'))).toEqual([401, 'invalid_signature']);
    } finally {
      example.kill();
    }
  });

  it('refuses an unknown scheme, and a change of scheme on update, with validation_error and a pointer', async () => {
    const bad = await api('POST', '/webhooks', {
      destinationUrl: receiver.url,
      eventNames: ['entry.created'],
      signatureScheme: 'rsa',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe('validation_error');
    expect(JSON.stringify(bad.body.details)).toContain('/signatureScheme');
    const patch = await api('PATCH', `/webhooks/${hookId}`, { signatureScheme: 'hmac-sha256' });
    expect(patch.status).toBe(400);
    expect(patch.body.reason).toBe('validation_error');
    expect(JSON.stringify(patch.body.details)).toContain('signatureScheme');
    expect((await api('GET', `/webhooks/${hookId}`)).body).toMatchObject({
      signatureScheme: 'ed25519',
      publicKey: firstPublicKey,
    });
  });

  it('rotates to a new key pair: during the grace period both keys verify; after it only the new one', async () => {
    const rotated = await api('POST', `/webhooks/${hookId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).not.toHaveProperty('hmacSecret');
    const secondPublicKey = rotated.body.publicKey as string;
    expect(secondPublicKey).toMatch(WHPK);
    expect(secondPublicKey).not.toBe(firstPublicKey);
    expect((await api('GET', `/webhooks/${hookId}`)).body.publicKey).toBe(secondPublicKey);

    const inGrace = await nextDelivery('inside the grace period');
    expect(v1aOf(inGrace)).toHaveLength(2);
    for (const key of [firstPublicKey, secondPublicKey]) {
      expect(packageVerifies(inGrace, key), key).toBe(true);
      expect(nobleVerifies(inGrace, key), key).toBe(true);
    }
    // A receiver that trusts both keys while it switches.
    expect(packageVerifies(inGrace, [firstPublicKey, secondPublicKey])).toBe(true);

    // A second rotation with a one-second grace period: once it is over, only the newest key signs.
    const third = await api('POST', `/webhooks/${hookId}/rotate-secret`, { gracePeriodSeconds: 1 });
    const thirdPublicKey = third.body.publicKey as string;
    const graceEnds = Date.now() + 1000;
    await until(
      async () => Date.now(),
      (now) => now > graceEnds + 200,
      5000,
    );
    const after = await nextDelivery('after the grace period');
    expect(v1aOf(after)).toHaveLength(1);
    expect(packageVerifies(after, thirdPublicKey)).toBe(true);
    expect(nobleVerifies(after, thirdPublicKey)).toBe(true);
    for (const old of [firstPublicKey, secondPublicKey]) {
      expect(packageVerifies(after, old), old).toBe('invalid_signature');
      expect(nobleVerifies(after, old), old).toBe(false);
    }
  });

  it('never shows the private key: no answer, delivery record, audit event or domain event holds whsk_', async () => {
    const deliveries = await api('GET', `/webhooks/${hookId}/deliveries`);
    expect(deliveries.body.total).toBeGreaterThanOrEqual(4);
    await api('GET', `/webhooks/${hookId}/deliveries/${deliveries.body.data[0].id}`);
    const audit = await until(
      () => api('GET', '/audit-events?entityType=webhook_subscription'),
      (res) => (res.body.data as { action: string }[]).filter((e) => e.action === 'secret_rotated').length >= 2,
    );
    expect(
      (audit.body.data as { action: string; entityId: string; metadata: Record<string, unknown> }[]).find(
        (e) => e.action === 'created' && e.entityId === hookId,
      )?.metadata,
    ).toMatchObject({ signatureScheme: 'ed25519' });
    await c.events.waitFor((e) => e.entityId === hookId && e.eventName === 'webhook.subscription.created');
    expect(answers.length).toBeGreaterThan(15);
    for (const res of answers) expect(JSON.stringify(res.body) ?? '').not.toContain('whsk_');
    expect(JSON.stringify(c.events.all())).not.toContain('whsk_');
    for (const r of receiver.received) expect(JSON.stringify(r)).not.toContain('whsk_');
  });
});
