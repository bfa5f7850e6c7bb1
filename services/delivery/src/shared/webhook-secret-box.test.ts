import { createHmac, createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withOpenCache } from '@cluster/platform';
import { generateSigningKeyPair, serviceSignature, standardSignature } from '@cluster/webhook-verify';
import { createWebhookSecretBox as createSecretBox, newSigningSecret } from './webhook-secret-box.ts';
import { deliveryHeaders } from '../sender/signing.ts';

describe('secret box', () => {
  it('round-trips, hides the plaintext, and binds a ciphertext to its subscription and key', () => {
    const box = createSecretBox(['a key']);
    const secret = newSigningSecret();
    const sealed = box.seal(secret, 'sub-1');
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, 'sub-1')).toBe(secret);
    expect(box.seal(secret, 'sub-1')).not.toBe(sealed); // fresh IV each time
    expect(() => box.open(sealed, 'sub-2')).toThrow();
    expect(() => createSecretBox(['another key']).open(sealed, 'sub-1')).toThrow();
  });

  it('caches opened secrets without changing what opens', () => {
    const cached = withOpenCache(createSecretBox(['a key']), 2);
    const sealed = cached.seal('s1', 'sub-1');
    expect(cached.open(sealed, 'sub-1')).toBe('s1');
    expect(cached.open(sealed, 'sub-1')).toBe('s1');
    expect(() => cached.open(sealed, 'sub-2')).toThrow();
    const rotated = cached.seal('s2', 'sub-1');
    expect(cached.open(rotated, 'sub-1')).toBe('s2');
  });
});

describe('signatures', () => {
  it('signs the raw body as the spec says and the Standard Webhooks way beside it', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"id":"msg_p5jXN8AQM9LWM0D4loKWxJek","eventName":"x"}';
    expect(serviceSignature(secret, body)).toBe(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    // The Standard Webhooks reference vector (id msg_p5jXN8AQM9LWM0D4loKWxJek, timestamp 1614265330).
    expect(standardSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    const h = deliveryHeaders({ secret, deliveryId: 'd1', eventName: 'entry.created', body, timestamp: 1700000000 });
    expect(Object.keys(h).sort()).toEqual([
      'content-type',
      'user-agent',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-service-delivery-id',
      'x-service-event',
      'x-service-signature',
      'x-service-timestamp',
    ]);
    expect(h).toMatchObject({
      'x-service-delivery-id': 'd1',
      'webhook-id': 'd1',
      'x-service-timestamp': '1700000000',
      'user-agent': 'Service-Outbound-Webhook/1.0',
    });
  });
});

describe('ed25519 signatures (Standard Webhooks v1a)', () => {
  const publicKeyOf = (whpk: string) =>
    createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(whpk.slice(5), 'base64').toString('base64url') },
      format: 'jwk',
    });
  const verifies = (whpk: string, content: string, v1a: string) =>
    verify(null, Buffer.from(content), publicKeyOf(whpk), Buffer.from(v1a.slice(4), 'base64'));

  it('makes whsk_/whpk_ pairs: 64-byte secret key (seed, public key) and 32-byte public key, fresh each time', () => {
    const a = generateSigningKeyPair();
    const b = generateSigningKeyPair();
    expect(a.privateKey).toMatch(/^whsk_[A-Za-z0-9+/]{86}==$/);
    expect(a.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.privateKey.slice(5), 'base64').subarray(32).toString('base64')).toBe(a.publicKey.slice(5));
    expect(b.publicKey).not.toBe(a.publicKey);
  });

  it('signs id.timestamp.body with v1a, sends no X-Service-Signature, and adds the previous key during a grace period', () => {
    const current = generateSigningKeyPair();
    const previous = generateSigningKeyPair();
    const body = '{"eventName":"entry.created"}';
    const h = deliveryHeaders({
      secret: current.privateKey,
      previousSecret: previous.privateKey,
      deliveryId: 'd1',
      eventName: 'entry.created',
      body,
      timestamp: 1700000000,
    });
    expect(h).not.toHaveProperty('x-service-signature');
    const [now, before] = h['webhook-signature'].split(' ');
    expect(now).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    const content = `d1.1700000000.${body}`;
    expect(verifies(current.publicKey, content, now)).toBe(true);
    expect(verifies(previous.publicKey, content, before)).toBe(true);
    expect(verifies(current.publicKey, content, before)).toBe(false);
    expect(verifies(current.publicKey, content.replace('created', 'deleted'), now)).toBe(false);
    // Ed25519 is deterministic: the same content signs the same.
    expect(
      deliveryHeaders({ secret: current.privateKey, deliveryId: 'd1', eventName: 'x', body, timestamp: 1700000000 })[
        'webhook-signature'
      ],
    ).toBe(now);
  });
});
