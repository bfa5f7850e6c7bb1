import { createPublicKey, randomUUID, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { match } from '@cluster/platform/test-kit';
import { createFakeStores, type FakeStores } from '../../fake-stores.ts';
import { failure, ORG, OTHER_ORG, testActor as actor, testSubscription } from '../../shared/test-fixtures.ts';
import { asymmetricSignature } from '@cluster/webhook-verify';
import { createWebhookSecretBox } from '../../shared/webhook-secret-box.ts';
import { openReceiver } from '../../sender/receiver.ts';
import { createSubscriptionService } from './service.ts';

const secrets = createWebhookSecretBox(['unit-test key']);

function service(stores: FakeStores, refused: Record<string, string> = {}) {
  let audited = 0;
  const subscriptions = createSubscriptionService(stores, {
    secrets,
    checkDestination: async (url) => refused[url],
    audited: () => void audited++,
  });
  return { subscriptions, audited: () => audited };
}

const body = { destinationUrl: 'https://hooks.example.com/in', eventNames: ['entry.created', 'entry.updated', 'entry.created'] };

describe('subscription rules (fake stores)', () => {
  it('keeps rateLimit and maxInFlight, with a row of throttle state only while one is set, and refuses them out of bounds', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const created = await subscriptions.create(actor(), { ...body, rateLimit: 10 });
    expect(created).toMatchObject({ rateLimit: 10, maxInFlight: null, pausedUntil: null });
    const id = created.id as string;
    expect(stores.subscriptions.throttled.has(id)).toBe(true);
    expect(await subscriptions.update(actor(), id, { rateLimit: null, maxInFlight: 3 })).toMatchObject({
      rateLimit: null,
      maxInFlight: 3,
    });
    expect(stores.subscriptions.throttled.has(id)).toBe(true);
    await subscriptions.update(actor(), id, { maxInFlight: null });
    expect(stores.subscriptions.throttled.has(id)).toBe(false);
    const plain = await subscriptions.create(actor(), body);
    expect(stores.subscriptions.throttled.has(plain.id as string)).toBe(false);
    for (const bad of [
      { rateLimit: 0 },
      { rateLimit: 10_001 },
      { rateLimit: 1.5 },
      { maxInFlight: 1001 },
      { maxInFlight: '2' },
    ]) {
      const err = await failure(subscriptions.create(actor(), { ...body, ...(bad as object) }));
      expect(err).toMatchObject({ reason: 'validation_error' });
      expect(JSON.stringify(err)).toContain(`/${Object.keys(bad)[0]}`);
    }
  });

  it('seals custom headers and receiver auth, shows them masked, and keeps the part a PATCH does not name', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const created = await subscriptions.create(actor(), {
      ...body,
      headers: { 'X-Api-Key': 'key-0123456789abcdef' },
      auth: { type: 'bearer', token: 'short' },
    });
    expect(created).toMatchObject({ headers: { 'X-Api-Key': '****cdef' }, auth: { type: 'bearer', token: '****' } });
    const [row] = stores.subscriptions.rows;
    expect(JSON.stringify(row)).not.toContain('key-0123456789abcdef');
    expect(openReceiver(secrets, row.id, row.receiverSealed)).toEqual({
      headers: { 'X-Api-Key': 'key-0123456789abcdef' },
      auth: { type: 'bearer', token: 'short' },
    });
    const patched = await subscriptions.update(actor(), row.id, { headers: { 'X-Other': 'v' } });
    expect(patched).toMatchObject({ headers: { 'X-Other': '****' }, auth: { type: 'bearer', token: '****' } });
    expect(openReceiver(secrets, row.id, stores.subscriptions.rows[0].receiverSealed).auth).toEqual({
      type: 'bearer',
      token: 'short',
    });
    const cleared = await subscriptions.update(actor(), row.id, { headers: null, auth: null });
    expect(cleared).toMatchObject({ headers: {}, auth: null });
    expect(stores.subscriptions.rows[0].receiverSealed).toBeNull();
  });

  it('refuses an OAuth2 token URL that the destinations’ SSRF guard refuses, and mtls without a platform certificate', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores, { 'http://169.254.169.254/token': 'points to a metadata address' });
    const oauth2 = await failure(
      subscriptions.create(actor(), {
        ...body,
        auth: { type: 'oauth2', tokenUrl: 'http://169.254.169.254/token', clientId: 'c', clientSecret: 's' },
      }),
    );
    expect(oauth2).toMatchObject({
      reason: 'validation_error',
      details: { errors: [{ path: '/auth/tokenUrl', message: 'points to a metadata address' }] },
    });
    const mtls = await failure(subscriptions.create(actor(), { ...body, auth: { type: 'mtls' } }));
    expect(mtls).toMatchObject({ details: { errors: [{ path: '/auth/certificate' }] } });
    expect(stores.subscriptions.rows).toHaveLength(0);
  });

  it('creates a subscription with a sealed secret, answers the secret once, and writes its audit record and event in one write', async () => {
    const stores = createFakeStores();
    const { subscriptions, audited } = service(stores);
    const created = await subscriptions.create(actor(), { ...body, description: 'CRM' });
    expect(created).toMatchObject({
      destinationUrl: body.destinationUrl,
      eventNames: ['entry.created', 'entry.updated'],
      enabled: true,
      description: 'CRM',
    });
    expect(created.hmacSecret as string).toMatch(/^whsec_/);
    expect(created).toMatchObject({ signatureScheme: 'hmac-sha256', publicKey: null });
    expect(Object.keys(created)).not.toContain('secretSealed');
    const [row] = stores.subscriptions.rows;
    expect(row.destinationOrigin).toBe('https://hooks.example.com:443');
    expect(secrets.open(row.secretSealed, row.id)).toBe(created.hmacSecret);
    // Read back, the secret is gone.
    expect(await subscriptions.get(actor(), row.id)).not.toHaveProperty('hmacSecret');

    expect(stores.written).toHaveLength(1);
    const [write] = stores.written;
    expect(write.rows).toEqual([
      {
        table: 'delivery.audit_outbox',
        row: match.objectContaining({
          entityType: 'webhook_subscription',
          action: 'created',
          entityId: row.id,
          actor: match.objectContaining({ organizationId: ORG, userId: 'u1' }),
          metadata: {
            destinationUrl: body.destinationUrl,
            destinationType: 'http',
            eventNames: ['entry.created', 'entry.updated'],
            signatureScheme: 'hmac-sha256',
          },
        }),
      },
    ]);
    expect(write.events).toEqual([
      match.objectContaining({
        eventName: 'webhook.subscription.created',
        entityType: 'webhook_subscription',
        entityId: row.id,
        organizationId: ORG,
        actorUserId: 'u1',
        projectId: null,
        payload: {
          subscriptionId: row.id,
          destinationUrl: body.destinationUrl,
          eventNames: ['entry.created', 'entry.updated'],
          enabled: true,
          description: 'CRM',
        },
      }),
    ]);
    expect(JSON.stringify(write)).not.toContain(created.hmacSecret as string);
    expect(audited()).toBe(1);
  });

  it('refuses unknown event names with the spec body and refused destinations as a validation error, writing nothing', async () => {
    const stores = createFakeStores();
    const { subscriptions, audited } = service(stores, { 'http://10.0.0.1/x': 'points to a private address' });
    const unknown = await failure(
      subscriptions.create(actor(), { ...body, eventNames: ['entry.created', 'nope', 'nope', 'x.y'] }),
    );
    expect(unknown).toMatchObject({ reason: 'unknown_event_names', details: { invalid: ['nope', 'x.y'] } });
    const refused = await failure(subscriptions.create(actor(), { ...body, destinationUrl: 'http://10.0.0.1/x' }));
    expect(refused).toMatchObject({ reason: 'validation_error' });
    expect(JSON.stringify(refused)).toContain('points to a private address');
    expect(stores.subscriptions.rows).toEqual([]);
    expect(stores.written).toEqual([]);
    expect(audited()).toBe(0);
  });

  it('accepts wildcards (`entry.*`, `*`) and refuses malformed ones or ones matching no event, pointing at each', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const created = await subscriptions.create(actor(), { ...body, eventNames: ['entry.*', '*', 'entry.created', 'entry.*'] });
    expect(created.eventNames).toEqual(['entry.*', '*', 'entry.created']);
    const bad = await failure(
      subscriptions.create(actor(), {
        ...body,
        eventNames: ['entry.*', 'nope.*', 'entry*', 'release.created.*', 'also-unknown'],
      }),
    );
    expect(bad).toMatchObject({
      reason: 'validation_error',
      details: {
        errors: [
          { path: '/eventNames/1', message: 'matches no event name' },
          { path: '/eventNames/2', message: expect.stringContaining('wildcard') as string },
          { path: '/eventNames/3', message: 'matches no event name' },
        ],
      },
    });
    const patched = await failure(subscriptions.update(actor(), created.id as string, { eventNames: ['*.created'] }));
    expect(patched).toMatchObject({ reason: 'validation_error', details: { errors: [{ path: '/eventNames/0' }] } });
    expect(stores.subscriptions.rows).toHaveLength(1);
  });

  it('saves a filter, answers it, replaces it on PATCH and clears it with null or {}; keeps it when a PATCH omits it', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const filter = { payload: { status: { $in: ['done', 'closed'] } }, $not: { actorUserId: null } };
    const created = await subscriptions.create(actor(), { ...body, filter });
    expect(created.filter).toEqual(filter);
    const id = created.id as string;
    expect(stores.subscriptions.rows[0].filter).toEqual(filter);
    expect((await subscriptions.update(actor(), id, { description: 'x' })).filter).toEqual(filter);
    const other = { eventName: { $startsWith: 'entry.' } };
    expect((await subscriptions.update(actor(), id, { filter: other })).filter).toEqual(other);
    expect((await subscriptions.update(actor(), id, { filter: null })).filter).toBeNull();
    await subscriptions.update(actor(), id, { filter: other });
    expect((await subscriptions.update(actor(), id, { filter: {} })).filter).toBeNull();
    expect(stores.subscriptions.rows[0].filter).toBeNull();
    expect((await subscriptions.create(actor(), { ...body, filter: {} })).filter).toBeNull();
    expect((await subscriptions.create(actor(), body)).filter).toBeNull();
  });

  it('refuses a bad filter with a validation_error pointing at each bad part, on create and PATCH, writing nothing', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const bad = await failure(
      subscriptions.create(actor(), {
        ...body,
        filter: { payload: { status: { $regex: 'x' }, amount: { $gt: [1] }, tags: { $in: 5 } }, $or: [] },
      }),
    );
    expect(bad).toMatchObject({
      reason: 'validation_error',
      details: {
        errors: [
          { path: '/filter/payload/status/$regex', message: expect.stringContaining('unknown operator $regex') as string },
          { path: '/filter/payload/amount/$gt', message: 'must be a number or a string, not an array' },
          { path: '/filter/payload/tags/$in', message: expect.stringContaining('must be a list') as string },
          { path: '/filter/$or', message: 'must not be empty' },
        ],
      },
    });
    expect(stores.subscriptions.rows).toHaveLength(0);
    const created = await subscriptions.create(actor(), body);
    let deep: Record<string, unknown> = { z: 1 };
    for (let i = 0; i < 9; i++) deep = { a: deep };
    const tooDeep = await failure(subscriptions.update(actor(), created.id as string, { filter: deep }));
    expect(tooDeep).toMatchObject({
      reason: 'validation_error',
      details: { errors: [{ path: '/filter/a/a/a/a/a/a/a/a/a', message: 'nests deeper than 8 levels' }] },
    });
    const tooBig = await failure(
      subscriptions.update(actor(), created.id as string, { filter: { payload: { title: 'x'.repeat(5000) } } }),
    );
    expect(tooBig).toMatchObject({
      details: { errors: [{ path: '/filter', message: expect.stringContaining('bytes') as string }] },
    });
    expect(stores.subscriptions.rows[0].filter).toBeNull();
  });

  it('updates only supplied fields, audits the field names, emits no event, and stops scheduled retries when disabled', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const { id } = await subscriptions.create(actor(), body);
    await stores.deliveryQueue.insertMany([
      {
        id: '10000000-0000-4000-8000-000000000001',
        organizationId: ORG,
        subscriptionId: id as string,
        eventId: null,
        eventName: 'entry.created',
        body: '{}',
      },
    ]);
    const moved = await subscriptions.update(actor(), id as string, { destinationUrl: 'http://hooks.example.com:8080/b' });
    expect(moved).toMatchObject({
      destinationUrl: 'http://hooks.example.com:8080/b',
      enabled: true,
      eventNames: ['entry.created', 'entry.updated'],
    });
    expect(stores.subscriptions.rows[0].destinationOrigin).toBe('http://hooks.example.com:8080');
    expect(stores.deliveryQueue.rows[0].nextAttemptAt).not.toBeNull();

    await subscriptions.update(actor(), id as string, { enabled: false });
    expect(stores.deliveryQueue.rows[0]).toMatchObject({
      nextAttemptAt: null,
      status: 'failed',
      error: 'retries stopped: subscription disabled',
    });
    const [, first, second] = stores.written;
    expect(first.rows[0].row).toMatchObject({ action: 'updated', metadata: { fields: ['destinationUrl'] } });
    expect(second.rows[0].row).toMatchObject({ action: 'updated', metadata: { fields: ['enabled'] } });
    expect([first.events, second.events]).toEqual([[], []]);
  });

  it('rotates the secret: the new one opens, the old one is gone, and only an audit record is written', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const created = await subscriptions.create(actor(), body);
    const rotated = await subscriptions.rotateSecret(actor(), created.id as string);
    expect(rotated.hmacSecret).not.toBe(created.hmacSecret);
    const [row] = stores.subscriptions.rows;
    expect(secrets.open(row.secretSealed, row.id)).toBe(rotated.hmacSecret);
    const last = stores.written.at(-1)!;
    expect(last.rows[0].row).toMatchObject({ action: 'secret_rotated', entityId: row.id, metadata: {} });
    expect(last.events).toEqual([]);
  });

  it('ed25519: seals a whsk_ private key, answers only its whpk_ public key, and rotates to a new pair with the old one in grace', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const created = await subscriptions.create(actor(), { ...body, signatureScheme: 'ed25519' });
    expect(created).toMatchObject({ signatureScheme: 'ed25519', publicKey: match.stringMatching(/^whpk_[A-Za-z0-9+/]{43}=$/) });
    expect(created).not.toHaveProperty('hmacSecret');
    const [row] = stores.subscriptions.rows;
    const privateKey = secrets.open(row.secretSealed, row.id);
    expect(privateKey).toMatch(/^whsk_[A-Za-z0-9+/]{86}==$/);
    // The sealed key is the pair of the public key: its last 32 bytes are the public key, and it signs what that verifies.
    const raw = Buffer.from(privateKey.slice(5), 'base64');
    expect(`whpk_${raw.subarray(32).toString('base64')}`).toBe(created.publicKey);
    const signed = Buffer.from('id.1.{}');
    const signature = Buffer.from(asymmetricSignature(privateKey, 'id', 1, '{}').slice(4), 'base64');
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: raw.subarray(32).toString('base64url') },
      format: 'jwk',
    });
    expect(verify(null, signed, publicKey, signature)).toBe(true);
    expect(JSON.stringify(stores.written)).not.toContain('whsk_');
    expect(await subscriptions.get(actor(), row.id)).toMatchObject({ publicKey: created.publicKey });

    const rotated = await subscriptions.rotateSecret(actor(), row.id);
    expect(rotated).not.toHaveProperty('hmacSecret');
    expect(rotated.publicKey).toMatch(/^whpk_/);
    expect(rotated.publicKey).not.toBe(created.publicKey);
    const [after] = stores.subscriptions.rows;
    expect(secrets.open(after.previousSecretSealed!, row.id)).toBe(privateKey);
    expect(after.previousSecretUntil!.getTime()).toBeGreaterThan(Date.now());
    expect(secrets.open(after.secretSealed, row.id).slice(5)).not.toBe(privateKey.slice(5));
    expect(JSON.stringify([created, rotated, stores.written])).not.toContain('whsk_');
  });

  it('deletes softly, stops retries, emits webhook.subscription.deleted, and then answers 404', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const { id } = await subscriptions.create(actor(), body);
    await subscriptions.remove(actor(), id as string);
    expect(stores.subscriptions.rows[0]).toMatchObject({ enabled: false, deletedAt: match.any(Date) });
    const last = stores.written.at(-1)!;
    expect(last.events.map((e) => e.eventName)).toEqual(['webhook.subscription.deleted']);
    expect(last.rows[0].row).toMatchObject({ action: 'deleted', metadata: {} });
    expect(await failure(subscriptions.get(actor(), id as string))).toMatchObject({ reason: 'not_found' });
    expect((await subscriptions.list(actor(), {}, { page: 1, pageSize: 25 })).total).toBe(0);
  });

  it("hides another organization's subscriptions (404, nothing written) and filters lists by enabled", async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const foreign = await subscriptions.create(actor({ organizationId: OTHER_ORG }), body);
    const on = await subscriptions.create(actor(), body);
    const off = await subscriptions.create(actor(), { ...body, enabled: false });
    const writes = stores.written.length;
    for (const p of [
      subscriptions.get(actor(), foreign.id as string),
      subscriptions.update(actor(), foreign.id as string, { enabled: false }),
      subscriptions.rotateSecret(actor(), foreign.id as string),
      subscriptions.remove(actor(), foreign.id as string),
      subscriptions.get(actor(), 'not-a-uuid'),
    ])
      expect(await failure(p)).toMatchObject({ reason: 'not_found' });
    expect(stores.written).toHaveLength(writes);
    const all = await subscriptions.list(actor(), {}, { page: 1, pageSize: 25 });
    expect(all.data.map((s) => s.id).sort()).toEqual([on.id, off.id].sort());
    const disabled = await subscriptions.list(actor(), { enabled: false }, { page: 1, pageSize: 25 });
    expect(disabled).toMatchObject({ total: 1, data: [match.objectContaining({ id: off.id, enabled: false })] });
  });
});

describe('a listening CLI’s temporary subscription', () => {
  it('is listed only with temporary=true, and refuses PATCH, DELETE and rotation (409): its stream owns it', async () => {
    const stores = createFakeStores();
    const { subscriptions } = service(stores);
    const lasting = (await subscriptions.create(actor(), body)) as { id: string };
    const listener = testSubscription({
      id: randomUUID(),
      temporary: true,
      destinationUrl: 'listen:r1',
      listenExpiresAt: new Date(),
    });
    stores.subscriptions.rows.push(listener);
    const page = { page: 1, pageSize: 25 };
    expect((await subscriptions.list(actor(), {}, page)).data.map((s) => s.id)).toEqual([lasting.id]);
    expect(await subscriptions.list(actor(), { temporary: true }, page)).toMatchObject({
      total: 1,
      data: [match.objectContaining({ id: listener.id, temporary: true })],
    });
    for (const write of [
      subscriptions.update(actor(), listener.id, { enabled: false }),
      subscriptions.remove(actor(), listener.id),
      subscriptions.rotateSecret(actor(), listener.id),
    ])
      expect(await failure(write)).toMatchObject({ reason: 'conflict' });
    expect(await subscriptions.get(actor(), listener.id)).toMatchObject({ id: listener.id, temporary: true });
  });
});
