import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { match } from '@cluster/platform/test-kit';
import { generateSigningKeyPair } from '@cluster/webhook-verify';
import { createWebhookSecretBox } from '../shared/webhook-secret-box.ts';
import { attemptDelivery } from './attempt-delivery.ts';
import type { HttpSender } from './http-sender.ts';

// attemptDelivery signs with the subscription's key of either kind; a key it cannot use is a failed
// attempt (data the delivery loop records), never an exception that would stop the loop.
const box = createWebhookSecretBox(['unit-test key']);
const SUB = '7c0e3e38-5a3c-4f8e-9d7a-3f1f1f1f1f1f';

function recordingSender() {
  const sent: Record<string, string>[] = [];
  const sender: HttpSender = {
    async send(_url, headers) {
      sent.push(headers);
      return { ok: true, responseCode: 200, responseBody: 'ok', error: null, durationMs: 1 };
    },
    async close() {},
  };
  return { sender, sent };
}

const delivery = (secretSealed: string, previousSecretSealed: string | null = null) => ({
  id: 'd1',
  eventName: 'entry.created',
  body: '{"a":1}',
  destinationUrl: 'https://r.example.com/in',
  subscriptionId: SUB,
  secretSealed,
  previousSecretSealed,
  previousSecretUntil: previousSecretSealed ? new Date(Date.now() + 60_000) : null,
});

const publicKeyObject = (whpk: string) =>
  createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(whpk.slice(5), 'base64').toString('base64url') },
    format: 'jwk',
  });

describe('attemptDelivery with ed25519 keys', () => {
  it('signs v1a with the current key and the one in its grace period', async () => {
    const [now, before] = [generateSigningKeyPair(), generateSigningKeyPair()];
    const { sender, sent } = recordingSender();
    const { result } = await attemptDelivery(
      delivery(box.seal(now.privateKey, SUB), box.seal(before.privateKey, SUB)),
      sender,
      box,
    );
    expect(result.ok).toBe(true);
    const [headers] = sent;
    expect(headers).not.toHaveProperty('x-service-signature');
    const content = Buffer.from(`d1.${headers['webhook-timestamp']}.{"a":1}`);
    const [a, b] = headers['webhook-signature'].split(' ').map((s) => Buffer.from(s.slice(4), 'base64'));
    expect(verify(null, content, publicKeyObject(now.publicKey), a)).toBe(true);
    expect(verify(null, content, publicKeyObject(before.publicKey), b)).toBe(true);
  });

  it('fails the attempt, sending nothing, when the current key does not parse; leaves out a previous one that does not', async () => {
    const { sender, sent } = recordingSender();
    const bad = await attemptDelivery(delivery(box.seal('whsk_AAAA', SUB)), sender, box);
    expect(bad.result).toMatchObject({ ok: false, responseCode: null, error: match.stringMatching(/malformed/) });
    expect(sent).toHaveLength(0);
    const good = generateSigningKeyPair();
    const { result } = await attemptDelivery(delivery(box.seal(good.privateKey, SUB), box.seal('whsk_AAAA', SUB)), sender, box);
    expect(result.ok).toBe(true);
    expect(sent[0]['webhook-signature'].split(' ')).toHaveLength(1);
    expect(JSON.stringify([bad, sent])).not.toContain(good.privateKey.slice(5));
  });
});
