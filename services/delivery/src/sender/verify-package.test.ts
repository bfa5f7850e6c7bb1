import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { isWebhookVerificationError, verify, type VerifiedWebhook } from '@cluster/webhook-verify';
import { createWebhookSecretBox, newSigningSecret } from '../shared/webhook-secret-box.ts';
import { attemptDelivery } from './attempt-delivery.ts';
import { createHttpSender, type HttpSender } from './http-sender.ts';

// What receivers verify is what the delivery service really sends: the sender's own code path
// (attemptDelivery: unseal the secret, sign the exact bytes, POST them with undici) to a real
// HTTP receiver that checks the request with @cluster/webhook-verify and with the Standard
// Webhooks reference library.

interface Arrival {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

let server: http.Server;
let url: string;
let sender: HttpSender;
const arrivals: Arrival[] = [];
const box = createWebhookSecretBox(['test key material']);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrivals.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  sender = createHttpSender({
    timeoutMs: 5000,
    allowPrivate: true,
    production: false,
    maxResponseBytes: 4096,
    connectionsPerOrigin: 2,
  });
});
afterAll(async () => {
  await sender.close();
  await new Promise((r) => server.close(r));
});

/** Sends one delivery through the real sender path; returns its secret and what arrived. */
async function deliver(body: string) {
  const secret = newSigningSecret();
  const subscriptionId = randomUUID();
  const id = randomUUID();
  const d = {
    id,
    eventName: 'entry.created',
    body,
    destinationUrl: url,
    secretSealed: box.seal(secret, subscriptionId),
    subscriptionId,
  };
  const { result } = await attemptDelivery(d, sender, box);
  expect(result.ok).toBe(true);
  return { secret, id, arrival: arrivals.at(-1)! };
}

describe('signatures of the real sender, verified by @cluster/webhook-verify and standardwebhooks', () => {
  it('every scheme verifies, with the delivery id, timestamp and event name of the attempt', async () => {
    const envelope = { id: 'x', eventName: 'entry.created', payload: { title: 'Grüße ✓', n: 1 } };
    const body = JSON.stringify(envelope);
    const { secret, id, arrival } = await deliver(body);
    const checks: VerifiedWebhook[] = (['auto', 'standard', 'service', 'both'] as const).map((scheme) =>
      verify(arrival.raw, arrival.headers, secret, { scheme }),
    );
    for (const v of checks) {
      expect(v).toMatchObject({ id, eventName: 'entry.created', rawBody: body, payload: envelope });
      expect(Math.abs(v.timestamp - Date.now() / 1000)).toBeLessThan(10);
    }
    expect(checks.map((c) => c.scheme)).toEqual(['standard', 'standard', 'service', 'both']);
    expect(new Webhook(secret).verify(arrival.raw, arrival.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it('another subscription secret verifies neither scheme, and a changed byte fails both libraries', async () => {
    const { secret, arrival } = await deliver('{"a":1}');
    const other = newSigningSecret();
    for (const scheme of ['standard', 'service'] as const) {
      try {
        verify(arrival.raw, arrival.headers, other, { scheme });
        expect.unreachable('a foreign secret verified');
      } catch (err) {
        expect(isWebhookVerificationError(err) && err.code).toBe('invalid_signature');
      }
    }
    expect(() => new Webhook(other).verify(arrival.raw, arrival.headers as Record<string, string>)).toThrow();
    const tampered = Buffer.from('{"a":2}');
    expect(() => verify(tampered, arrival.headers, secret)).toThrow('no webhook-signature matches the secret');
    expect(() => new Webhook(secret).verify(tampered, arrival.headers as Record<string, string>)).toThrow();
  });
});
