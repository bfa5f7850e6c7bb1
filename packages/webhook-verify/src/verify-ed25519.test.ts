import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import {
  WebhookVerificationError,
  asymmetricSignature,
  generateSigningKeyPair,
  publicKeyOf,
  sign,
  verify,
  type VerifyOptions,
} from './index.ts';

// The asymmetric Standard Webhooks scheme (`v1a`, Ed25519), cross-checked with an independent
// implementation (@noble/curves) over the specification's signed content `id.timestamp.body`.
const body = JSON.stringify({ id: 'd1', eventName: 'entry.created', payload: { title: 'Grüße, "quoted"' } });
const NOW = 1_795_347_000;
const at = (seconds: number): VerifyOptions => ({ now: () => seconds * 1000 });
const pair = generateSigningKeyPair();
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function refusal(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return err as WebhookVerificationError;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('verify: v1a (Ed25519) with whpk_ public keys', () => {
  it('keys: whsk_ is base64 of the 64-byte secret key (seed, public key), whpk_ of the 32-byte public key', () => {
    expect(pair.privateKey).toMatch(/^whsk_[A-Za-z0-9+/]{86}==$/);
    expect(pair.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    const raw = Buffer.from(pair.privateKey.slice(5), 'base64');
    expect(b64(ed25519.getPublicKey(raw.subarray(0, 32)))).toBe(pair.publicKey.slice(5));
    expect(publicKeyOf(pair.privateKey)).toBe(pair.publicKey);
    // The bare 32-byte seed is read too.
    expect(publicKeyOf(`whsk_${b64(raw.subarray(0, 32))}`)).toBe(pair.publicKey);
  });

  it('accepts a v1a delivery, with no X-Service-Signature, and returns it like a v1 one', () => {
    const headers = sign(body, pair.privateKey, { id: 'd1', timestamp: NOW, eventName: 'entry.created' });
    expect(headers).not.toHaveProperty('x-service-signature');
    expect(headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verify(body, headers, pair.publicKey, at(NOW + 10))).toEqual({
      id: 'd1',
      timestamp: NOW,
      eventName: 'entry.created',
      scheme: 'standard',
      rawBody: body,
      payload: JSON.parse(body) as unknown,
    });
    expect(verify(Buffer.from(body), new Headers(headers), [pair.publicKey], at(NOW)).id).toBe('d1');
  });

  it('agrees with @noble/curves both ways over id.timestamp.body', () => {
    const content = new TextEncoder().encode(`d2.${NOW}.${body}`);
    const ours = asymmetricSignature(pair.privateKey, 'd2', NOW, body);
    const publicRaw = Buffer.from(pair.publicKey.slice(5), 'base64');
    expect(ed25519.verify(Buffer.from(ours.slice(4), 'base64'), content, publicRaw)).toBe(true);
    // Ed25519 is deterministic: noble signs the same bytes with the same seed.
    const seed = Buffer.from(pair.privateKey.slice(5), 'base64').subarray(0, 32);
    expect(`v1a,${b64(ed25519.sign(content, seed))}`).toBe(ours);
    // A key and signature made by noble alone verify here.
    const noble = ed25519.keygen();
    const headers = {
      'webhook-id': 'd3',
      'webhook-timestamp': String(NOW),
      'webhook-signature': `v1a,${b64(ed25519.sign(new TextEncoder().encode(`d3.${NOW}.${body}`), noble.secretKey))}`,
    };
    expect(verify(body, headers, `whpk_${b64(noble.publicKey)}`, at(NOW)).id).toBe('d3');
  });

  it('refuses a tampered body, id or timestamp, a wrong public key, and a stale delivery, with the v1 error codes', () => {
    const headers = sign(body, pair.privateKey, { id: 'd4', timestamp: NOW });
    expect(refusal(() => verify(body.replace('Grüße', 'Gruss'), headers, pair.publicKey, at(NOW))).code).toBe(
      'invalid_signature',
    );
    expect(refusal(() => verify(body, { ...headers, 'webhook-id': 'd5' }, pair.publicKey, at(NOW))).code).toBe(
      'invalid_signature',
    );
    const later = { ...headers, 'webhook-timestamp': String(NOW + 1) };
    expect(refusal(() => verify(body, later, pair.publicKey, at(NOW))).code).toBe('invalid_signature');
    const wrong = generateSigningKeyPair().publicKey;
    const e = refusal(() => verify(body, headers, wrong, at(NOW)));
    expect([e.code, e.status]).toEqual(['invalid_signature', 401]);
    expect(refusal(() => verify(body, headers, pair.publicKey, at(NOW + 301))).code).toBe('timestamp_out_of_tolerance');
    expect(verify(body, headers, pair.publicKey, { ...at(NOW + 301), toleranceSeconds: 600 }).id).toBe('d4');
    // A v1 (HMAC) signature is no v1a one: a public key does not accept it, nor a garbled v1a entry.
    const hmac = sign(body, `whsec_${randomBytes(24).toString('base64')}`, { id: 'd4', timestamp: NOW });
    expect(refusal(() => verify(body, hmac, pair.publicKey, at(NOW))).code).toBe('invalid_signature');
    const garbled = { ...headers, 'webhook-signature': 'v1a,AAAA v1a,!!! v1a' };
    expect(refusal(() => verify(body, garbled, pair.publicKey, at(NOW))).code).toBe('invalid_signature');
  });

  it('rotation: any one of several v1a signatures under any one of several public keys verifies', () => {
    const next = generateSigningKeyPair();
    const both = sign(body, [next.privateKey, pair.privateKey], { id: 'd6', timestamp: NOW });
    expect(both['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verify(body, both, pair.publicKey, at(NOW)).id).toBe('d6');
    expect(verify(body, both, next.publicKey, at(NOW)).id).toBe('d6');
    const onlyNext = sign(body, next.privateKey, { id: 'd7', timestamp: NOW });
    expect(refusal(() => verify(body, onlyNext, pair.publicKey, at(NOW))).code).toBe('invalid_signature');
    expect(verify(body, onlyNext, [pair.publicKey, next.publicKey], at(NOW)).id).toBe('d7');
    // A receiver moving from HMAC to Ed25519 may hold both kinds at once.
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    expect(verify(body, sign(body, secret, { id: 'd8', timestamp: NOW }), [secret, next.publicKey], at(NOW)).id).toBe('d8');
    expect(verify(body, onlyNext, [secret, next.publicKey], at(NOW)).id).toBe('d7');
  });

  it('refuses bad keys: a malformed whpk_, a whsk_ private key on the receiver, X-Service-Signature with public keys only', () => {
    const headers = sign(body, pair.privateKey, { id: 'd9', timestamp: NOW });
    for (const key of ['whpk_', 'whpk_abc', `whpk_${b64(randomBytes(31))}`, `whpk_${b64(randomBytes(33))}`]) {
      const e = refusal(() => verify(body, headers, key, at(NOW)));
      expect([e.code, e.status], key).toEqual(['invalid_secret', 400]);
    }
    const priv = refusal(() => verify(body, headers, pair.privateKey, at(NOW)));
    expect(priv.code).toBe('invalid_secret');
    expect(priv.message).not.toContain(pair.privateKey.slice(5));
    expect(refusal(() => verify(body, headers, pair.publicKey, { ...at(NOW), scheme: 'service' })).code).toBe('invalid_secret');
    expect(refusal(() => verify(body, headers, pair.publicKey, { ...at(NOW), scheme: 'both' })).code).toBe('invalid_secret');
    // auto with public keys only reads webhook-signature, and names it when it is missing.
    const { 'webhook-signature': _, ...unsigned } = headers;
    expect(refusal(() => verify(body, unsigned, pair.publicKey, at(NOW))).code).toBe('missing_header');
  });
});
