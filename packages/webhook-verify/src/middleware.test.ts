import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import Koa from 'koa';
import express from 'express';
import {
  createMemoryReplayGuard,
  expressWebhookVerifier,
  generateSigningKeyPair,
  koaWebhookVerifier,
  sign,
  type VerifiedWebhook,
} from './index.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const servers: http.Server[] = [];
afterAll(async () => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

/** Posts `body` signed with `key` (a fresh delivery id unless given). */
async function post(url: string, body: string, opts: { key?: string; id?: string; headers?: Record<string, string> } = {}) {
  const headers = {
    ...sign(body, opts.key ?? secret, { id: opts.id ?? randomBytes(8).toString('hex'), eventName: 'entry.created' }),
    ...opts.headers,
  };
  const res = await fetch(url, { method: 'POST', body, headers });
  return { status: res.status, text: await res.text() };
}

/** The same checks against either framework: `handled` lists what the app's handler saw. */
function behaves(name: string, start: (handled: VerifiedWebhook[], status: () => number) => Promise<string>) {
  describe(name, () => {
    let code = 200;
    const handled: VerifiedWebhook[] = [];
    const url = start(handled, () => code);

    it('hands a verified delivery and its parsed body to the handler', async () => {
      const body = JSON.stringify({ eventName: 'entry.created', payload: { n: 1 } });
      const res = await post(await url, body);
      expect(res).toEqual({ status: 200, text: 'handled entry.created' });
      expect(handled.at(-1)).toMatchObject({ eventName: 'entry.created', rawBody: body, payload: { payload: { n: 1 } } });
    });

    it('answers a forged, stale or unsigned delivery 401 with the reason, without calling the handler', async () => {
      const before = handled.length;
      const forged = await post(await url, '{"a":1}', { key: `whsec_${randomBytes(24).toString('base64')}` });
      expect(forged.status).toBe(401);
      expect(JSON.parse(forged.text)).toMatchObject({ error: 'invalid_signature' });
      const old = Math.floor(Date.now() / 1000) - 3600;
      const stale = await fetch(await url, {
        method: 'POST',
        body: '{}',
        headers: sign('{}', secret, { id: 'old', timestamp: old }),
      });
      expect(stale.status).toBe(401);
      expect(await stale.json()).toMatchObject({ error: 'timestamp_out_of_tolerance' });
      const unsigned = await fetch(await url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(unsigned.status).toBe(401);
      expect(await unsigned.json()).toMatchObject({ error: 'missing_header' });
      expect(handled.length).toBe(before);
    });

    it('with a replay guard: a repeat of a handled delivery id is answered 200 without the handler; a failed one is handled again', async () => {
      const body = '{"eventName":"entry.created"}';
      const first = await post(await url, body, { id: 'dup-1' });
      expect(first.status).toBe(200);
      const count = handled.length;
      const again = await post(await url, body, { id: 'dup-1' });
      expect(again.status).toBe(200);
      expect(JSON.parse(again.text)).toEqual({ duplicate: true, id: 'dup-1' });
      expect(handled.length).toBe(count);
      // The handler failed (500): the id is not remembered, so the retry runs the handler.
      code = 500;
      expect((await post(await url, body, { id: 'dup-2' })).status).toBe(500);
      code = 200;
      expect((await post(await url, body, { id: 'dup-2' })).status).toBe(200);
      expect(handled.filter((h) => h.id === 'dup-2')).toHaveLength(2);
    });

    it('answers a body over maxBodyBytes 413', async () => {
      const res = await post(await url, JSON.stringify({ big: 'x'.repeat(70_000) }));
      expect(res.status).toBe(413);
    });
  });
}

behaves('koaWebhookVerifier (Koa 3, no body parser)', async (handled, status) => {
  const app = new Koa();
  app.use(koaWebhookVerifier({ secret, replayGuard: createMemoryReplayGuard(), maxBodyBytes: 64 * 1024 }));
  app.use(async (ctx) => {
    const webhook = ctx.state.webhook as VerifiedWebhook;
    handled.push(webhook);
    expect((ctx.request as { body?: unknown }).body).toEqual(webhook.payload);
    ctx.status = status();
    ctx.body = `handled ${webhook.eventName}`;
  });
  const handle = app.callback();
  return listen((req, res) => void handle(req, res));
});

behaves('expressWebhookVerifier (Express 5, no body parser)', async (handled, status) => {
  const app = express();
  app.post(
    '/hook',
    expressWebhookVerifier({ secret, replayGuard: createMemoryReplayGuard(), maxBodyBytes: 64 * 1024 }),
    (req, res) => {
      const webhook = (req as { webhook?: VerifiedWebhook }).webhook!;
      handled.push(webhook);
      expect(req.body).toEqual(webhook.payload);
      res.status(status()).type('text/plain').send(`handled ${webhook.eventName}`);
    },
  );
  return listen(app);
});

describe('with a body parser before the verifier', () => {
  it('express.raw() keeps the bytes: verified', async () => {
    const app = express();
    app.post('/hook', express.raw({ type: 'application/json' }), expressWebhookVerifier({ secret }), (req, res) => {
      res.json({ id: (req as { webhook?: VerifiedWebhook }).webhook?.id, body: req.body });
    });
    const url = await listen(app);
    const res = await post(url, '{"x":1}', { id: 'raw-1' });
    expect(JSON.parse(res.text)).toEqual({ id: 'raw-1', body: { x: 1 } });
  });

  it('express.json() consumed the stream without the raw bytes: a setup error (500), never a pass', async () => {
    const app = express();
    app.post('/hook', express.json(), expressWebhookVerifier({ secret }), (_req, res) => {
      res.send('should not run');
    });
    const url = await listen(app);
    const res = await post(url, '{"x":1}');
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('should not run');
  });
});

describe('an ed25519 subscription: publicKey instead of secret', () => {
  it('verifies v1a deliveries with the whpk_ key (Koa and Express) and refuses another key’s', async () => {
    const pair = generateSigningKeyPair();
    const koa = new Koa();
    koa.use(koaWebhookVerifier({ publicKey: pair.publicKey }));
    koa.use((ctx) => {
      ctx.body = `koa ${(ctx.state.webhook as VerifiedWebhook).id}`;
    });
    const handle = koa.callback();
    const koaUrl = await listen((req, res) => void handle(req, res));
    const app = express();
    app.post('/hook', expressWebhookVerifier({ publicKey: [pair.publicKey] }), (req, res) => {
      res.type('text/plain').send(`express ${(req as { webhook?: VerifiedWebhook }).webhook!.id}`);
    });
    const expressUrl = await listen(app);
    for (const [url, name] of [
      [koaUrl, 'koa'],
      [expressUrl, 'express'],
    ]) {
      expect(await post(url, '{"a":1}', { key: pair.privateKey, id: 'ed-1' })).toEqual({ status: 200, text: `${name} ed-1` });
      const other = await post(url, '{"a":1}', { key: generateSigningKeyPair().privateKey });
      expect([other.status, (JSON.parse(other.text) as { error: string }).error]).toEqual([401, 'invalid_signature']);
    }
  });

  it('refuses to build without a secret or a public key', () => {
    expect(() => koaWebhookVerifier({})).toThrow(/secret.*publicKey/);
    expect(() => expressWebhookVerifier({ secret: [] })).toThrow(/secret.*publicKey/);
  });
});
