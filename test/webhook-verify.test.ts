import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign, verify } from '@cluster/webhook-verify';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { startReceiver, type Received, type Receiver } from './support/receiver.ts';

// docs/examples/webhook-receiver.mjs, which verifies with @cluster/webhook-verify (its built
// dist, as a user of the published package runs it), against real deliveries of the cluster:
// a delivery the cluster signed is captured by a recording receiver, then posted to the
// example as it arrived, again (a retry or a replay), changed, and re-signed too late.

let c: TestCluster;
let org: SeededOrg;
let recorder: Receiver;
let example: ChildProcess;
let exampleUrl: string;
let out = '';
let secret: string;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
}

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Verify Org');
  recorder = await startReceiver();
  const sub = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: recorder.url, eventNames: ['entry.created'] });
  expect(sub.status).toBe(201);
  secret = sub.body.hmacSecret as string;
  const port = await freePort();
  exampleUrl = `http://127.0.0.1:${port}/hook`;
  const script = path.resolve(import.meta.dirname, '..', 'docs', 'examples', 'webhook-receiver.mjs');
  example = spawn(process.execPath, [script], { env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) } });
  example.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  for (let i = 0; i < 100 && !out.includes('listening'); i++) await sleep(50);
  expect(out).toContain('listening');
});
afterAll(async () => {
  example?.kill();
  await recorder?.close();
  await c?.stop();
});

/** Waits until the example has printed `text` (its stdout arrives apart from its HTTP answers). */
async function printed(text: string): Promise<string> {
  for (let i = 0; i < 100 && !out.includes(text); i++) await sleep(20);
  return out;
}

/** Posts a recorded delivery to the example receiver, with its headers (optionally changed). */
async function replay(r: Received, change: { body?: string; headers?: Record<string, string> } = {}) {
  const headers = Object.fromEntries(
    Object.entries(r.headers).filter(
      ([k, v]) => typeof v === 'string' && (k.startsWith('x-service-') || k.startsWith('webhook-')),
    ),
  ) as Record<string, string>;
  const res = await fetch(exampleUrl, {
    method: 'POST',
    body: change.body ?? r.rawBody,
    headers: { 'content-type': 'application/json', ...headers, ...change.headers },
  });
  return { status: res.status, text: await res.text() };
}

describe('the docs example receiver, with @cluster/webhook-verify, on a real delivery', () => {
  it('verifies it, answers its repeat without acting again, and refuses it changed or re-signed too late', async () => {
    const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
      type: 'bug_report',
      title: 'Verified by the example',
      description: 'd',
    });
    const [delivery] = await recorder.waitFor(1);
    const deliveryId = delivery.headers['webhook-id'] as string;
    // The package agrees with the cluster's signing (both schemes, same delivery and time).
    expect(verify(delivery.rawBody, delivery.headers, secret, { scheme: 'both' })).toMatchObject({
      id: deliveryId,
      eventName: 'entry.created',
      payload: { entityId: entry.body.id },
    });

    expect(await replay(delivery)).toEqual({ status: 200, text: 'ok' });
    expect(await printed(`verified entry.created ${deliveryId}`)).toContain(
      `verified entry.created ${deliveryId} entity=entry/${entry.body.id}`,
    );
    // The same delivery again (a retry, or a replay within the tolerance): 200, not acted on.
    expect(await replay(delivery)).toEqual({ status: 200, text: 'already processed' });
    expect(await printed(`duplicate ${deliveryId}`)).toContain(`duplicate ${deliveryId}`);
    expect(out.split(`verified entry.created ${deliveryId}`)).toHaveLength(2);

    // A changed body keeps the signature of the original: refused.
    const changed = await replay(delivery, { body: delivery.rawBody.replace('Verified', 'Forged') });
    expect(changed).toEqual({ status: 401, text: 'invalid_signature' });
    // A fresh timestamp under the captured signature: refused (webhook-signature binds it).
    const now = String(Math.floor(Date.now() / 1000) + 1);
    const retimed = await replay(delivery, { headers: { 'webhook-timestamp': now, 'x-service-timestamp': now } });
    expect(retimed).toEqual({ status: 401, text: 'invalid_signature' });
    // Correctly signed, but 10 minutes old: refused by the 5-minute tolerance.
    const old = sign('{"eventName":"entry.created"}', secret, { id: 'late', timestamp: Math.floor(Date.now() / 1000) - 600 });
    const late = await fetch(exampleUrl, { method: 'POST', body: '{"eventName":"entry.created"}', headers: old });
    expect([late.status, await late.text()]).toEqual([401, 'timestamp_out_of_tolerance']);
    expect(await printed('rejected: timestamp_out_of_tolerance')).toContain('rejected: timestamp_out_of_tolerance');
  });
});
