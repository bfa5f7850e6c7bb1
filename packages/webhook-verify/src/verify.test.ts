import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook, WebhookVerificationError as StandardError } from 'standardwebhooks';
import {
  WebhookVerificationError,
  constructEvent,
  generateSigningKeyPair,
  type WebhookEnvelope,
  isWebhookVerificationError,
  serviceSignature,
  sign,
  standardSignature,
  verify,
  type VerifyOptions,
} from './index.ts';

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const secret = newSecret();
const body = JSON.stringify({ id: 'd1', eventName: 'entry.created', payload: { title: 'Grüße, "quoted"' } });
const NOW = 1_795_347_000;
const at = (seconds: number): VerifyOptions => ({ now: () => seconds * 1000 });

/** The error `fn` throws, checked to be ours. */
function refusal(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return err as WebhookVerificationError;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('verify: Standard Webhooks (webhook-signature)', () => {
  it('accepts a signed delivery and returns its id, timestamp, event name and parsed body', () => {
    const headers = sign(body, secret, { id: 'd1', timestamp: NOW, eventName: 'entry.created' });
    const v = verify(body, headers, secret, at(NOW + 10));
    expect(v).toEqual({
      id: 'd1',
      timestamp: NOW,
      eventName: 'entry.created',
      scheme: 'standard',
      rawBody: body,
      payload: JSON.parse(body) as unknown,
    });
    // Bytes, a Fetch Headers object, and headers with other capitalisation verify the same.
    expect(verify(Buffer.from(body), new Headers(headers), secret, at(NOW)).id).toBe('d1');
    const shouting = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verify(new TextEncoder().encode(body), shouting, secret, at(NOW)).id).toBe('d1');
  });

  it('verifies any one of several space-separated signatures (a rotation grace period), and tries several secrets', () => {
    const older = newSecret();
    const headers = sign(body, [secret, older], { id: 'd2', timestamp: NOW });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verify(body, headers, secret, at(NOW)).id).toBe('d2');
    expect(verify(body, headers, older, at(NOW)).id).toBe('d2');
    // A receiver that holds both secrets while it switches.
    const single = sign(body, older, { id: 'd3', timestamp: NOW });
    expect(verify(body, single, [secret, older], at(NOW)).id).toBe('d3');
    expect(refusal(() => verify(body, headers, newSecret(), at(NOW))).code).toBe('invalid_signature');
    // Unknown versions in the list are ignored, not an error.
    const mixed = { ...single, 'webhook-signature': `v2,abc ${single['webhook-signature']}` };
    expect(verify(body, mixed, older, at(NOW)).id).toBe('d3');
  });

  it('refuses a changed body, id or timestamp (all three are signed)', () => {
    const headers = sign(body, secret, { id: 'd4', timestamp: NOW });
    expect(refusal(() => verify(`${body} `, headers, secret, at(NOW))).code).toBe('invalid_signature');
    expect(refusal(() => verify(body, { ...headers, 'webhook-id': 'd5' }, secret, at(NOW))).code).toBe('invalid_signature');
    const later = { ...headers, 'webhook-timestamp': String(NOW + 1) };
    expect(refusal(() => verify(body, later, secret, at(NOW))).code).toBe('invalid_signature');
  });

  it('refuses a timestamp outside the tolerance, in both directions, and honours toleranceSeconds', () => {
    const headers = sign(body, secret, { id: 'd6', timestamp: NOW });
    expect(verify(body, headers, secret, at(NOW + 300)).id).toBe('d6');
    expect(verify(body, headers, secret, at(NOW - 300)).id).toBe('d6');
    const old = refusal(() => verify(body, headers, secret, at(NOW + 301)));
    expect(old.code).toBe('timestamp_out_of_tolerance');
    expect(old.status).toBe(401);
    expect(refusal(() => verify(body, headers, secret, at(NOW - 301))).code).toBe('timestamp_out_of_tolerance');
    expect(refusal(() => verify(body, headers, secret, { ...at(NOW + 31), toleranceSeconds: 30 })).code).toBe(
      'timestamp_out_of_tolerance',
    );
    const garbled = { ...headers, 'webhook-timestamp': '17953e5' };
    expect(refusal(() => verify(body, garbled, secret, at(NOW))).code).toBe('invalid_timestamp');
  });

  it('names a missing header, refuses a bad secret and a body that is not JSON, with typed errors', () => {
    const headers = sign(body, secret, { id: 'd7', timestamp: NOW });
    const { 'webhook-id': _id, ...noId } = headers;
    const missing = refusal(() => verify(body, noId, secret, { ...at(NOW), scheme: 'standard' }));
    expect(missing).toMatchObject({ code: 'missing_header', message: 'the webhook-id header is missing' });
    expect(refusal(() => verify(body, headers, 'whsec_not*base64', at(NOW))).code).toBe('invalid_secret');
    expect(refusal(() => verify(body, headers, [], at(NOW))).code).toBe('invalid_secret');
    expect(refusal(() => verify(body, headers, '', at(NOW))).code).toBe('invalid_secret');
    const notJson = 'not json';
    const signed = sign(notJson, secret, { id: 'd8', timestamp: NOW });
    const bad = refusal(() => verify(notJson, signed, secret, at(NOW)));
    expect(bad).toMatchObject({ code: 'invalid_body', status: 400 });
    expect(isWebhookVerificationError(bad)).toBe(true);
    expect(isWebhookVerificationError(new Error('x'))).toBe(false);
    // A repeated header is ambiguous: treated as absent.
    const doubled = { ...headers, 'webhook-id': ['d7', 'd7'] };
    expect(refusal(() => verify(body, doubled, secret, { ...at(NOW), scheme: 'standard' })).code).toBe('missing_header');
  });
});

describe('verify: X-Service-Signature (the spec header)', () => {
  it('accepts the HMAC of the raw body keyed with the secret string, and checks X-Service-Timestamp', () => {
    const headers = sign(body, secret, { id: 's1', timestamp: NOW, eventName: 'time.logged' });
    const onlyService = Object.fromEntries(Object.entries(headers).filter(([k]) => !k.startsWith('webhook-')));
    const v = verify(body, onlyService, secret, at(NOW));
    expect(v).toMatchObject({ id: 's1', timestamp: NOW, scheme: 'service', eventName: 'time.logged' });
    expect(headers['x-service-signature']).toBe(serviceSignature(secret, body));
    expect(headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(refusal(() => verify(`${body}\n`, onlyService, secret, at(NOW))).code).toBe('invalid_signature');
    expect(refusal(() => verify(body, onlyService, secret, at(NOW + 400))).code).toBe('timestamp_out_of_tolerance');
    // Forced: scheme service ignores a valid webhook-signature when X-Service-Signature is wrong.
    const wrong = { ...headers, 'x-service-signature': serviceSignature(newSecret(), body) };
    expect(verify(body, wrong, secret, at(NOW)).scheme).toBe('standard');
    expect(refusal(() => verify(body, wrong, secret, { ...at(NOW), scheme: 'service' })).code).toBe('invalid_signature');
  });

  it('scheme both: both signatures must verify and name the same delivery and time', () => {
    const headers = sign(body, secret, { id: 'b1', timestamp: NOW });
    expect(verify(body, headers, secret, { ...at(NOW), scheme: 'both' }).scheme).toBe('both');
    const otherId = { ...headers, 'x-service-delivery-id': 'b2' };
    expect(refusal(() => verify(body, otherId, secret, { ...at(NOW), scheme: 'both' })).code).toBe('header_mismatch');
    const { 'x-service-signature': _s, ...noService } = headers;
    expect(refusal(() => verify(body, noService, secret, { ...at(NOW), scheme: 'both' })).code).toBe('missing_header');
  });
});

describe('cross-checked with the standardwebhooks package', () => {
  it('reproduces the Standard Webhooks reference vector', () => {
    const vector = { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body: '{"test": 2432232314}' };
    const key = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
    expect(standardSignature(key, vector.id, vector.timestamp, vector.body)).toBe(expected);
    const headers = { 'webhook-id': vector.id, 'webhook-timestamp': String(vector.timestamp), 'webhook-signature': expected };
    expect(verify(vector.body, headers, key, at(vector.timestamp)).payload).toEqual({ test: 2432232314 });
  });

  it('what standardwebhooks signs, verify accepts (its secret format, its headers)', () => {
    for (let i = 0; i < 20; i++) {
      const s = newSecret();
      const id = `msg_${randomUUID()}`;
      const payload = JSON.stringify({ i, text: randomBytes(i * 7).toString('base64'), emoji: '✓' });
      const when = new Date();
      const signature = new Webhook(s).sign(id, when, payload);
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(when.getTime() / 1000)),
        'webhook-signature': signature,
      };
      expect(verify(payload, headers, s).id).toBe(id);
      expect(standardSignature(s, id, Math.floor(when.getTime() / 1000), payload)).toBe(signature);
      expect(refusal(() => verify(payload, headers, newSecret())).code).toBe('invalid_signature');
    }
  });

  it('what sign() produces, standardwebhooks verifies, including a multi-signature header; and both refuse the same forgeries', () => {
    const older = newSecret();
    const headers = sign(body, [secret, older], { id: randomUUID() });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(older).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow(StandardError);
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow(StandardError);
    const stale = sign(body, secret, { id: 'x', timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(() => new Webhook(secret).verify(body, stale)).toThrow(StandardError);
    expect(refusal(() => verify(body, stale, secret)).code).toBe('timestamp_out_of_tolerance');
  });
});

const event: WebhookEnvelope = {
  id: '8b6c2a5e-5d0b-4f0e-9a59-0b0f3f7c1a2d',
  eventName: 'entry.created',
  schemaVersion: 1,
  entityType: 'entry',
  entityId: 'e1',
  occurredAt: '2026-11-22T12:50:00.000Z',
  actorUserId: null,
  payload: { entryId: 'e1', title: 'Login fails' },
};
const eventBody = JSON.stringify(event);

describe('constructEvent', () => {
  it('verifies the signature and returns the envelope (HMAC secret or Ed25519 public key)', () => {
    expect(constructEvent(eventBody, sign(eventBody, secret, { id: event.id, eventName: event.eventName }), secret)).toEqual(
      event,
    );
    const pair = generateSigningKeyPair();
    expect(
      constructEvent(Buffer.from(eventBody), sign(eventBody, pair.privateKey, { id: event.id }), pair.publicKey).eventName,
    ).toBe('entry.created');
    type Mine = WebhookEnvelope & { eventName: 'entry.created'; payload: { title: string } };
    const typed = constructEvent<Mine>(eventBody, sign(eventBody, secret, { id: event.id }), secret);
    expect(typed.payload.title).toBe('Login fails');
  });

  it('throws a typed error for a bad signature, a body that is no envelope, or headers naming another event or delivery', () => {
    expect(
      refusal(() =>
        constructEvent(eventBody, sign(eventBody, `whsec_${randomBytes(24).toString('base64')}`, { id: event.id }), secret),
      ).code,
    ).toBe('invalid_signature');
    const notAnEvent = JSON.stringify({ id: event.id, hello: 'world' });
    const err = refusal(() => constructEvent(notAnEvent, sign(notAnEvent, secret, { id: event.id }), secret));
    expect([err.code, err.status, err.message]).toEqual([
      'invalid_body',
      400,
      "not a webhook event: the body's eventName is not a string",
    ]);
    const array = '[1]';
    expect(refusal(() => constructEvent(array, sign(array, secret, { id: 'x' }), secret)).code).toBe('invalid_body');
    expect(
      refusal(() => constructEvent(eventBody, sign(eventBody, secret, { id: event.id, eventName: 'entry.updated' }), secret))
        .code,
    ).toBe('header_mismatch');
    expect(refusal(() => constructEvent(eventBody, sign(eventBody, secret, { id: 'another-delivery' }), secret)).code).toBe(
      'header_mismatch',
    );
  });
});
