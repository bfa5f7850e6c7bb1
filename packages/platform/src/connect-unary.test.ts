import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, ConnectError, createClient, type Interceptor, type Transport } from '@connectrpc/connect';
import { connectNodeAdapter, createConnectTransport } from '@connectrpc/connect-node';
import { AuthService, ProjectService } from '@cluster/proto';
import { MAX_UNARY_BYTES, createUnaryHandler, createUnaryTransport } from './connect-unary.ts';
import { DomainError, fromConnectError, toConnectError } from './errors.ts';

// A real HTTP/1.1 server: the short path first, connect-node for everything it declines.
const served: string[] = [];
const seen: { requestId: string | null; token: string | null }[] = [];
const asServer: Interceptor = (next) => async (req) => {
  seen.push({ requestId: req.header.get('x-request-id'), token: req.header.get('authorization') });
  try {
    return await next(req);
  } catch (err) {
    throw toConnectError(err);
  }
};
const unary = createUnaryHandler(
  (router) =>
    router
      .rpc(ProjectService.method.getProject, (req) => ({ resource: Buffer.from(JSON.stringify({ id: req.id })) }))
      .service(AuthService, {
        async authenticate(req) {
          if (req.key === 'missing') throw new DomainError('not_found', 'no such key', { key: req.key });
          if (req.key === 'crash') throw new Error('a bug');
          if (req.key === 'slow') await new Promise((r) => setTimeout(r, 1500));
          return { apiEnabled: true, actor: { apiKeyId: req.key, organizationId: 'org', requestId: req.requestId } };
        },
      }),
  [asServer],
);
const adapter = connectNodeAdapter({ routes: unary.routes, interceptors: [asServer], acceptCompression: [] });
const server = http.createServer((req, res) => {
  if (unary.handle(req, res)) return void served.push('short');
  served.push('connect-node');
  adapter(req, res);
});
let baseUrl = '';
const asClient: Interceptor = (next) => (req) => {
  req.header.set('x-request-id', 'req-1');
  req.header.set('authorization', 'Bearer t');
  return next(req);
};
const cluster = () => createUnaryTransport({ baseUrl, interceptors: [asClient], timeoutMs: 2000 });

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Calls authenticate over `transport`; returns which path served it and the answer or error. */
async function call(transport: Transport, key: string, timeoutMs?: number) {
  served.length = 0;
  const client = createClient(AuthService, transport);
  const answer = await client.authenticate({ key, requestId: 'r' }, { timeoutMs }).catch((err: unknown) => err);
  return { path: served.join(','), answer };
}

describe('the cluster transport (Connect unary, binary, HTTP/1.1)', () => {
  it('takes the short path, runs the interceptors on both sides, and answers the message', async () => {
    seen.length = 0;
    const { path, answer } = await call(cluster(), 'k1');
    expect(path).toBe('short');
    expect(answer).toMatchObject({ apiEnabled: true, actor: { apiKeyId: 'k1', organizationId: 'org', requestId: 'r' } });
    expect(seen).toEqual([{ requestId: 'req-1', token: 'Bearer t' }]);
  });

  it('takes the short path for a method registered on its own (router.rpc) too', async () => {
    served.length = 0;
    const answer = await createClient(ProjectService, cluster()).getProject({ id: 'p1' });
    expect(served).toEqual(['short']);
    expect(JSON.parse(Buffer.from(answer.resource).toString())).toEqual({ id: 'p1' });
  });

  it('is the Connect protocol on the wire: connect-node clients get the same answers by either path', async () => {
    const binary = createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true, interceptors: [asClient] });
    const json = createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: false, interceptors: [asClient] });
    const mine = await call(cluster(), 'k2');
    const theirs = await call(binary, 'k2');
    const viaJson = await call(json, 'k2');
    expect(theirs.path).toBe('short');
    expect(viaJson.path).toBe('connect-node');
    expect(theirs.answer).toEqual(mine.answer);
    expect(viaJson.answer).toEqual(mine.answer);
  });

  it('carries a domain error with its reason and details, as connect-node does', async () => {
    const mine = await call(cluster(), 'missing');
    const theirs = await call(createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: false }), 'missing');
    expect(mine.path).toBe('short');
    expect(mine.answer).toBeInstanceOf(ConnectError);
    const err = fromConnectError(mine.answer);
    expect(err).toMatchObject({ reason: 'not_found', message: 'no such key', details: { key: 'missing' }, remote: true });
    expect((mine.answer as ConnectError).code).toBe(Code.NotFound);
    expect(fromConnectError(theirs.answer)).toEqual(err);
    const crash = await call(cluster(), 'crash');
    expect(fromConnectError(crash.answer)).toMatchObject({ reason: 'internal_error', message: 'internal error' });
  });

  it('gives an error and an answer the call’s headers only, none of the HTTP connection’s', async () => {
    // A handler passing this error on to a gRPC caller sends its metadata as HTTP/2 trailers, where
    // `connection` and its kin are forbidden: Node throws, and the process with it.
    const { answer } = await call(cluster(), 'missing');
    const metadata = [...(answer as ConnectError).metadata.keys()];
    for (const framing of ['connection', 'keep-alive', 'content-length', 'content-type', 'date', 'transfer-encoding'])
      expect(metadata).not.toContain(framing);
  });

  it('gives deadline_exceeded when the answer is late, and unavailable when nothing listens', async () => {
    // undici checks the deadline on a coarse clock: a late answer fails within a second after it is due.
    const late = await call(cluster(), 'slow', 100);
    expect((late.answer as ConnectError).code).toBe(Code.DeadlineExceeded);
    expect(fromConnectError(late.answer)?.reason).toBe('unavailable');
    const nobody = createUnaryTransport({ baseUrl: 'http://127.0.0.1:1', interceptors: [], timeoutMs: 1000 });
    const refused = await createClient(AuthService, nobody)
      .authenticate({ key: 'k' })
      .catch((e: unknown) => e);
    expect((refused as ConnectError).code).toBe(Code.Unavailable);
  });

  it('leaves unknown methods to connect-node (unimplemented) and refuses undecodable or oversized bodies', async () => {
    const post = async (path: string, body: Buffer, headers: Record<string, string> = {}) => {
      served.length = 0;
      const res = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/proto', ...headers },
        body: new Uint8Array(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : {}) as { code?: string }, path: served.join(',') };
    };
    expect(await post('/no.Such/Method', Buffer.from([]))).toMatchObject({ status: 404, path: 'connect-node' });
    const garbage = await post(`/${AuthService.typeName}/Authenticate`, Buffer.from([0xff, 0xff, 0xff]));
    expect(garbage).toMatchObject({ status: 400, body: { code: 'invalid_argument' }, path: 'short' });
    // A body announced over the limit is refused before it is read.
    const huge = await new Promise<{ status: number; body: { code: string } }>((resolve, reject) => {
      const req = http.request(`${baseUrl}/${AuthService.typeName}/Authenticate`, {
        method: 'POST',
        headers: { 'content-type': 'application/proto', 'content-length': String(MAX_UNARY_BYTES + 1) },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as { code: string } });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.write(Buffer.alloc(16));
    });
    expect(huge).toEqual({
      status: 429,
      body: { code: 'resource_exhausted', message: `request larger than ${MAX_UNARY_BYTES} bytes` },
    });
  });
});
