import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBinary, create } from '@bufbuild/protobuf';
import { Code, createClient } from '@connectrpc/connect';
import { ActorSchema, AuthService, AuthenticateRequestSchema, WebhookService } from '@cluster/proto';
import { requestContext } from './context.ts';
import { createLogger } from './logger.ts';
import { createMetrics } from './metrics.ts';
import { createRpcTransport } from './rpc.ts';
import { createServiceServer } from './server.ts';
import { createTokenSigner, createTokenVerifier, devServiceKeys, requestDigest } from './service-auth.ts';

// A backend's server as the services run it: the cluster's calls on the short path, through the token check.
const sign = createTokenSigner(devServiceKeys('gateway'));
const server = createServiceServer({
  service: 'test',
  trust: { verify: createTokenVerifier(devServiceKeys('core')), policyOf: () => ({ callers: ['gateway'] }) },
  logger: createLogger('test', 'silent'),
  metrics: createMetrics('test'),
  ready: async () => ({ ready: true, checks: { database: true } }),
  routes: (r) =>
    r.service(AuthService, {
      authenticate: (req) => ({ apiEnabled: true, actor: { apiKeyId: req.key, organizationId: 'org' } }),
    }),
});
let baseUrl = '';
beforeAll(async () => {
  baseUrl = `http://127.0.0.1:${await server.listen(0, '127.0.0.1')}`;
});
afterAll(() => server.close());

/** The digest of an Authenticate call of `key` (requestDigest), as the cluster's transport signs it. */
const digestOf = (key: string) =>
  requestDigest({
    method: AuthService.method.authenticate,
    message: create(AuthenticateRequestSchema, { key }),
    header: new Headers(),
  });

/**
 * One raw Connect call of Authenticate for key `k` with a gateway token (for `method`, null: naming
 * none; signed for the call of `signedFor`, null: bound to no request): its status and Connection header.
 */
async function rawCall(
  method: string | null = `${AuthService.typeName}/Authenticate`,
  signedFor: string | null = 'k',
): Promise<{ status: number; connection: string | null }> {
  const res = await fetch(`${baseUrl}/${AuthService.typeName}/Authenticate`, {
    method: 'POST',
    headers: {
      'content-type': 'application/proto',
      authorization: `Bearer ${await sign('core', undefined, method ?? undefined, signedFor === null ? undefined : digestOf(signedFor))}`,
    },
    body: toBinary(AuthenticateRequestSchema, create(AuthenticateRequestSchema, { key: 'k' })),
  });
  await res.arrayBuffer();
  return { status: res.status, connection: res.headers.get('connection') };
}

describe('the service server', () => {
  it('answers the cluster transport only with a service token of an allowed caller', async () => {
    const client = createClient(AuthService, createRpcTransport(baseUrl, { sign, audience: 'core' }));
    expect(await client.authenticate({ key: 'k1' })).toMatchObject({ apiEnabled: true, actor: { apiKeyId: 'k1' } });
    const stranger = createTokenSigner(devServiceKeys('delivery'));
    const refused = createClient(AuthService, createRpcTransport(baseUrl, { sign: stranger, audience: 'core' }));
    await expect(refused.authenticate({ key: 'k1' })).rejects.toMatchObject({
      rawMessage: 'delivery may not call cluster.core.v1.AuthService/Authenticate',
    });
  });

  it('accepts a token only for the method it was signed for: another method’s, or one naming none, is 401', async () => {
    expect((await rawCall()).status).toBe(200);
    expect((await rawCall(`${AuthService.typeName}/GetMe`)).status).toBe(401);
    expect((await rawCall(null)).status).toBe(401);
  });

  it('accepts a token only for the request it was signed for: another message’s, or one bound to none, is 401 (issue 37)', async () => {
    expect((await rawCall(undefined, 'k')).status).toBe(200);
    expect((await rawCall(undefined, 'another key')).status).toBe(401);
    expect((await rawCall(undefined, null)).status).toBe(401);
  });

  it('answers a call without a valid token, or with a valid one for another method, 401 before reading its body, and closes the connection', async () => {
    // A raw request that announces 40 MiB and sends a few bytes: the answer comes without the rest.
    const { port } = new URL(baseUrl);
    const otherMethod = `authorization: Bearer ${await sign('core', undefined, `${AuthService.typeName}/GetMe`)}\r\n`;
    for (const [type, authorization] of [
      ['application/proto', ''],
      ['application/json', 'authorization: Bearer forged.token.here\r\n'],
      ['application/grpc', ''],
      ['application/json', otherMethod],
      ['application/proto', otherMethod],
    ]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1');
        let got = '';
        socket.on('data', (d) => (got += d.toString()));
        socket.on('close', () => resolve(got));
        socket.on('error', reject);
        socket.setTimeout(5000, () => reject(new Error(`no answer for ${type}: the server waited for the body`)));
        socket.write(
          `POST /${AuthService.typeName}/Authenticate HTTP/1.1\r\nhost: x\r\ncontent-type: ${type}\r\n${authorization}` +
            `content-length: ${40 * 1024 * 1024}\r\n\r\n{"key":`,
        );
      });
      expect(answer, type).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer, type).toContain('"code":"unauthenticated"');
    }
  });

  it('keeps connections alive, and closes each one after its answer once draining', async () => {
    expect(await rawCall()).toEqual({ status: 200, connection: 'keep-alive' });
    server.drain();
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(503);
    expect(await rawCall()).toEqual({ status: 200, connection: 'close' });
  });
});

describe('a server stream', () => {
  // A backend whose Listen yields one message, then fails inside the stream (after its headers went out).
  const lines: string[] = [];
  const metrics = createMetrics('stream_test');
  const streaming = createServiceServer({
    service: 'stream-test',
    // No operation rules: the stream's own failure is what is observed here.
    trust: { verify: createTokenVerifier(devServiceKeys('delivery')), policyOf: () => ({ callers: ['gateway'] }), rules: {} },
    logger: createLogger('stream-test', 'info', { write: (line: string) => void lines.push(line) }),
    metrics,
    ready: async () => ({ ready: true, checks: {} }),
    routes: (r) =>
      r.service(WebhookService, {
        async *listen() {
          yield { event: 'ready', data: new TextEncoder().encode('{}') };
          throw new Error('the stream broke');
        },
      }),
  });
  let url = '';
  beforeAll(async () => {
    url = `http://127.0.0.1:${await streaming.listen(0, '127.0.0.1')}`;
  });
  afterAll(() => streaming.close());

  it('logs and counts a failure inside the stream as a unary failure is (internal, "rpc failed")', async () => {
    const client = createClient(WebhookService, createRpcTransport(url, { sign, audience: 'delivery' }));
    const got: string[] = [];
    // As the gateway calls it: inside the request's context, whose actor the token carries.
    const actor = create(ActorSchema, { apiKeyId: 'k1', organizationId: 'org' });
    await expect(
      requestContext.run({ requestId: 'r1', actor }, async () => {
        for await (const m of client.listen({ id: '' })) got.push(m.event);
      }),
    ).rejects.toMatchObject({ code: Code.Internal });
    expect(got).toEqual(['ready']);
    await expect.poll(() => lines.some((l) => l.includes('"msg":"rpc failed"') && l.includes('the stream broke'))).toBe(true);
    const counted = (await metrics.rpcRequests.get()).values.find((v) => v.labels.method === 'Listen');
    expect(counted).toMatchObject({ labels: { code: 'internal' }, value: 1 });
  });
});
