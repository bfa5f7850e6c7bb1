import { createServer } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from './client.ts';
import { ApiConnectionError, ApiError, ApiTimeoutError } from './errors.ts';
import { DEFAULT_RETRY, parseRetryAfter, retryDelay } from './retry.ts';

// The retry policy and the call path with an injected fetch, clock and randomness: what each
// attempt sent, how long the client waited between them. test/sdk*.test.ts run it against the cluster.

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

function fakeClient(answers: (() => Response | Promise<Response>)[], opts: Partial<ClientOptions> = {}) {
  const requests: Request[] = [];
  const waits: number[] = [];
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const client = createClient({
    baseUrl: 'http://api.test/api/v1/',
    apiKey: 'key_1',
    fetch: async (req) => {
      requests.push(req);
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      return next();
    },
    sleep: async (ms) => {
      waits.push(ms);
      clock += ms;
    },
    now: () => clock,
    random: () => 0.5,
    ...opts,
  });
  return { client, requests, waits };
}

/** A full garbage collection (the `gc` of a context made after --expose-gc is set). */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const PROJECT = { id: '00000000-0000-4000-8000-000000000001', name: 'P', description: 'd' };

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads delta-seconds and HTTP dates, never negative, undefined when absent or unreadable', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-3', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('retryDelay', () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
  it('is full-jitter exponential backoff, capped, and never shorter than Retry-After', () => {
    expect(retryDelay(1, undefined, policy, () => 0.999)).toBe(99);
    expect(retryDelay(3, undefined, policy, () => 0.5)).toBe(200);
    expect(retryDelay(10, undefined, policy, () => 0.999)).toBe(999);
    expect(retryDelay(1, undefined, policy, () => 0)).toBe(0);
    expect(retryDelay(1, 700, policy, () => 0.5)).toBe(700);
  });
  it('gives up (undefined) when the server asks for more than maxDelayMs', () => {
    expect(retryDelay(1, 1001, policy, () => 0.5)).toBeUndefined();
  });
});

describe('the call path', () => {
  it('retries a 429 after its Retry-After, with the same Idempotency-Key, and returns the success', async () => {
    const { client, requests, waits } = fakeClient([
      () => json(429, { reason: 'rate_limit', message: 'slow down' }, { 'retry-after': '2' }),
      () => json(503, { reason: 'unavailable', message: 'x' }),
      () => json(201, PROJECT),
    ]);
    const project = await client.projects.create({ name: 'P', description: 'd' });
    expect(project.id).toBe(PROJECT.id);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(Array(3).fill('POST http://api.test/api/v1/projects'));
    const keys = requests.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(requests[0].headers.get('authorization')).toBe('Bearer key_1');
    // 2 s from Retry-After (over the jittered 250 ms); then 0.5 * 1000 ms for the second retry.
    expect(waits).toEqual([2000, 500]);
  });

  it('retries every 5xx of a POST under its one Idempotency-Key (500, 502 and 504 too), and not a 4xx', async () => {
    const { client, requests } = fakeClient([
      () => json(500, { reason: 'internal_error', message: 'x' }),
      () => new Response('bad gateway', { status: 502 }),
      () => new Response('gateway timeout', { status: 504 }),
      () => json(201, PROJECT),
    ]);
    await expect(client.projects.create({ name: 'P', description: 'd' })).resolves.toMatchObject({ id: PROJECT.id });
    expect(requests).toHaveLength(4);
    expect(new Set(requests.map((r) => r.headers.get('idempotency-key'))).size).toBe(1);
    const conflict = fakeClient([() => json(409, { reason: 'conflict', message: 'no' }), () => json(201, PROJECT)]);
    await expect(conflict.client.projects.create({ name: 'P', description: 'd' })).rejects.toMatchObject({ status: 409 });
    expect(conflict.requests).toHaveLength(1);
  });

  it("uses the caller's Idempotency-Key, and a new one per call otherwise; GET carries none", async () => {
    const { client, requests } = fakeClient([() => json(201, PROJECT), () => json(201, PROJECT), () => json(200, PROJECT)]);
    await client.projects.create({ name: 'P', description: 'd' }, { idempotencyKey: 'order-42' });
    await client.projects.create({ name: 'P', description: 'd' });
    await client.projects.get(PROJECT.id);
    expect(requests[0].headers.get('idempotency-key')).toBe('order-42');
    expect(requests[1].headers.get('idempotency-key')).not.toBe('order-42');
    expect(requests[2].headers.get('idempotency-key')).toBeNull();
  });

  it('retries network errors and 409 idempotency_key_in_use; gives up after maxRetries with ApiConnectionError', async () => {
    const reset = () => Promise.reject(new TypeError('fetch failed'));
    const ok = fakeClient([
      reset,
      () => json(409, { reason: 'idempotency_key_in_use', message: 'running' }),
      () => json(200, PROJECT),
    ]);
    await expect(ok.client.projects.get(PROJECT.id)).resolves.toMatchObject({ id: PROJECT.id });
    expect(ok.requests).toHaveLength(3);

    const down = fakeClient([reset, reset, reset], { maxRetries: 2 });
    const err = await down.client.projects.get(PROJECT.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect((err as ApiConnectionError).cause).toBeInstanceOf(TypeError);
    expect(down.requests).toHaveLength(3);
  });

  it('does not retry other errors, nor a Retry-After over maxDelayMs, nor past the deadline', async () => {
    const bad = fakeClient([
      () =>
        json(400, { reason: 'validation_error', message: 'bad', details: { errors: [{ path: '/name', message: 'required' }] } }),
    ]);
    const err = await bad.client.projects.create({ name: '', description: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, reason: 'validation_error', details: { errors: [{ path: '/name' }] } });

    const long = fakeClient([() => json(429, { reason: 'rate_limit', message: 'x' }, { 'retry-after': '60' })], {
      maxDelayMs: 5000,
    });
    await expect(long.client.projects.get(PROJECT.id)).rejects.toMatchObject({ status: 429, retryAfterMs: 60_000 });
    expect(long.waits).toEqual([]);

    const late = fakeClient([() => json(503, { reason: 'unavailable', message: 'x' }, { 'retry-after': '5' })], {
      timeoutMs: 3000,
    });
    await expect(late.client.projects.get(PROJECT.id)).rejects.toMatchObject({ status: 503, reason: 'unavailable' });
    expect(late.waits).toEqual([]);
  });

  it('maps the {error, invalid} body of unknown webhook event names to reason unknown_event_names', async () => {
    const { client } = fakeClient([() => json(400, { error: 'unknown_event_names', invalid: ['nope.created'] })]);
    await expect(
      client.webhooks.create({ url: 'https://example.com/h', eventNames: ['nope.created'] } as never),
    ).rejects.toMatchObject({ reason: 'unknown_event_names', details: { invalid: ['nope.created'] } });
  });

  it('ends with ApiTimeoutError at the deadline and with the signal reason on abort, also while waiting', async () => {
    // Like a real fetch: a signal that has already fired (a loaded machine can reach the deadline
    // before the request is made) rejects at once; one that fires later rejects then.
    const hang = (req: Request) =>
      new Promise<Response>((_resolve, reject) => {
        if (req.signal.aborted) return reject(req.signal.reason as Error);
        req.signal.addEventListener('abort', () => reject(req.signal.reason as Error), { once: true });
      });
    const slow = createClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: hang, timeoutMs: 50 });
    await expect(slow.projects.get(PROJECT.id)).rejects.toBeInstanceOf(ApiTimeoutError);

    const controller = new AbortController();
    const waiting = createClient({
      baseUrl: 'http://api.test',
      apiKey: 'k',
      fetch: async () => json(503, { reason: 'unavailable', message: 'x' }, { 'retry-after': '10' }),
    });
    const call = waiting.projects.get(PROJECT.id, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user left')), 20);
    await expect(call).rejects.toThrow('user left');
  });
});

describe('the deadline holds whatever the fetch does', () => {
  // A call whose fetch holds nothing alive (no socket, no timer) is reachable only from its own
  // deadline: garbage collections while it waits (each timer tick here) must not end it silently.
  const gcWhileWaiting = () => {
    const timer = setInterval(collectGarbage, 5);
    return () => clearInterval(timer);
  };

  it('ends a fetch that honours its signal at the deadline, through garbage collections', async () => {
    const stop = gcWhileWaiting();
    try {
      const hang = (req: Request) =>
        new Promise<Response>((_resolve, reject) =>
          req.signal.addEventListener('abort', () => reject(req.signal.reason as Error)),
        );
      const client = createClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: hang, timeoutMs: 100 });
      await expect(client.projects.get(PROJECT.id)).rejects.toBeInstanceOf(ApiTimeoutError);
    } finally {
      stop();
    }
  });

  it('ends a fetch that ignores its signal at the deadline, and on the caller’s abort', async () => {
    const stop = gcWhileWaiting();
    try {
      const never = () => new Promise<Response>(() => {});
      const client = createClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: never, timeoutMs: 100 });
      await expect(client.projects.get(PROJECT.id)).rejects.toBeInstanceOf(ApiTimeoutError);
      const controller = new AbortController();
      const call = createClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: never, timeoutMs: 0 }).projects.get(
        PROJECT.id,
        { signal: controller.signal },
      );
      setTimeout(() => controller.abort(new Error('user left')), 50);
      await expect(call).rejects.toThrow('user left');
    } finally {
      stop();
    }
  });
});

describe('pagination', () => {
  it('walks pages of `pageSize` until `total`, and `pages()` exposes each page', async () => {
    const items = Array.from({ length: 250 }, (_, i) => ({ ...PROJECT, name: `p${i}` }));
    const answers = [1, 2, 3, 1, 2, 3].map((page) => () => {
      const data = items.slice((page - 1) * 100, page * 100);
      return json(200, { data, page, pageSize: 100, total: items.length });
    });
    const { client, requests } = fakeClient(answers);
    const names: string[] = [];
    for await (const project of client.projects.list({ status: 'active' })) names.push(project.name);
    expect(names).toEqual(items.map((p) => p.name));
    expect(requests.map((r) => new URL(r.url).search)).toEqual([
      '?pageSize=100&status=active&page=1',
      '?pageSize=100&status=active&page=2',
      '?pageSize=100&status=active&page=3',
    ]);
    const totals: number[] = [];
    for await (const page of client.projects.list({ status: 'active' }).pages()) totals.push(page.total);
    expect(totals).toEqual([250, 250, 250]);
  });

  it("gives each page of `pages()` its answer's request id, beside the page as the API sent it", async () => {
    const answers = [1, 2].map(
      (page) => () => json(200, { data: [PROJECT], page, pageSize: 1, total: 2 }, { 'x-request-id': `req-page-${page}` }),
    );
    const { client } = fakeClient(answers);
    const pages = [];
    for await (const page of client.projects.list({ pageSize: 1 }).pages()) pages.push(page);
    expect(pages.map((p) => p.requestId)).toEqual(['req-page-1', 'req-page-2']);
    expect(JSON.parse(JSON.stringify(pages[0]))).toEqual({ data: [PROJECT], page: 1, pageSize: 1, total: 2 });
  });
});

describe('createClient checks its options, naming the one that is wrong', () => {
  const fetch = async () => json(200, PROJECT);
  it.each([
    [{ apiKey: 'k' }, /options\.baseUrl is missing/],
    [{ baseUrl: '', apiKey: 'k' }, /options\.baseUrl is missing/],
    [{ baseUrl: 42, apiKey: 'k' }, /options\.baseUrl must be a string/],
    [{ baseUrl: 'localhost:8080', apiKey: 'k' }, /options\.baseUrl must be an http: or https: URL/],
    [{ baseUrl: 'api.example.com', apiKey: 'k' }, /options\.baseUrl is not an absolute URL: "api\.example\.com"/],
    [{ baseUrl: 'https://api.test/?key=k', apiKey: 'k' }, /options\.baseUrl must have no query/],
    [{ baseUrl: 'https://api.test' }, /options\.apiKey is missing/],
    [{ baseUrl: 'https://api.test', apiKey: '' }, /options\.apiKey is missing/],
    [{ baseUrl: 'https://api.test', apiKey: 'fbk_1\nX-Admin: 1' }, /options\.apiKey must be a string of printable/],
    [{ baseUrl: 'https://api.test', apiKey: 7 }, /options\.apiKey must be a string/],
    [
      { baseUrl: 'https://api.test', apiKey: 'k', maxRetries: -1 },
      /options\.maxRetries must be a non-negative integer \(got -1\)/,
    ],
    [{ baseUrl: 'https://api.test', apiKey: 'k', maxRetries: 1.5 }, /options\.maxRetries must be a non-negative integer/],
    [{ baseUrl: 'https://api.test', apiKey: 'k', timeoutMs: Number.NaN }, /options\.timeoutMs must be a non-negative number/],
    [{ baseUrl: 'https://api.test', apiKey: 'k', maxDelayMs: '30s' }, /options\.maxDelayMs must be a non-negative number/],
    [{ baseUrl: 'https://api.test', apiKey: 'k', fetch: 'node-fetch' }, /options\.fetch must be a function/],
    [{ baseUrl: 'https://api.test', apiKey: 'k', headers: { 'x-a': 1 } }, /options\.headers\["x-a"\] must be a string/],
  ])('%j', (options, message) => {
    expect(() => createClient(options as unknown as ClientOptions)).toThrow(TypeError);
    expect(() => createClient(options as unknown as ClientOptions)).toThrow(message);
  });
  it('refuses no options at all', () => {
    expect(() => (createClient as (o?: unknown) => unknown)()).toThrow(/options must be an object/);
  });

  it('takes an Authorization or X-API-Key header, or an own fetch, instead of apiKey; the key replaces a given Authorization', async () => {
    const sent: Request[] = [];
    const recording = async (req: Request) => (sent.push(req), json(200, PROJECT));
    const own = createClient({ baseUrl: 'https://api.test', headers: { Authorization: 'Bearer oauth_1' }, fetch: recording });
    const apiKeyHeader = createClient({ baseUrl: 'https://api.test', headers: { 'X-API-Key': 'fbk_2' }, fetch: recording });
    const byFetch = createClient({ baseUrl: 'https://api.test', fetch: recording });
    const both = createClient({
      baseUrl: 'https://api.test',
      apiKey: 'fbk_3',
      headers: { AUTHORIZATION: 'Bearer x' },
      fetch: recording,
    });
    for (const client of [own, apiKeyHeader, byFetch, both]) await client.projects.get(PROJECT.id);
    expect(sent.map((r) => [r.headers.get('authorization'), r.headers.get('x-api-key')])).toEqual([
      ['Bearer oauth_1', null],
      [null, 'fbk_2'],
      [null, null],
      ['Bearer fbk_3', null],
    ]);
    expect(() => createClient({ baseUrl: 'https://api.test', apiKey: 'k', fetch })).not.toThrow();
  });
});

describe('the request id of every answer', () => {
  it('`.withResponse()` gives the result with its X-Request-Id and response, from the one request that awaiting makes', async () => {
    const { client, requests } = fakeClient([
      () => json(201, PROJECT, { 'x-request-id': 'req-create' }),
      () => new Response(null, { status: 204, headers: { 'x-request-id': 'req-delete' } }),
      () => json(200, PROJECT, { 'x-request-id': 'req-by-path' }),
    ]);
    const call = client.projects.create({ name: 'P', description: 'd' });
    expect(call).toBeInstanceOf(Promise);
    const { data, requestId, response } = await call.withResponse();
    expect(await call).toEqual(PROJECT);
    expect(data).toEqual(PROJECT);
    expect([requestId, response.status]).toEqual(['req-create', 201]);
    expect(requests).toHaveLength(1);

    // A 204 has no result to carry an id: withResponse still has it.
    const deleted = await client.projects.delete(PROJECT.id).withResponse();
    expect([deleted.data, deleted.requestId, deleted.response.status]).toEqual([undefined, 'req-delete', 204]);
    const byPath = await client.request('get', '/api/v1/projects/{id}', { path: { id: PROJECT.id } }).withResponse();
    expect([byPath.data.name, byPath.requestId]).toEqual([PROJECT.name, 'req-by-path']);
  });

  it('rejects `.withResponse()`, `then` and `catch` alike with the ApiError, which has its own request id', async () => {
    const notFound = () => json(404, { reason: 'not_found', message: 'no' }, { 'x-request-id': 'req-404' });
    const { client } = fakeClient([notFound, notFound]);
    const call = client.projects.get(PROJECT.id);
    const viaResponse = await call.withResponse().catch((e: unknown) => e);
    const viaCatch = await call.catch((e: unknown) => e);
    expect(viaResponse).toBe(viaCatch);
    expect(viaResponse).toMatchObject({ status: 404, reason: 'not_found', requestId: 'req-404' });
    expect(
      await call.then(
        () => 'ok',
        () => 'failed',
      ),
    ).toBe('failed');
    let settled = false;
    await call.finally(() => (settled = true)).catch(() => undefined);
    expect(settled).toBe(true);
  });
});

describe('a connection error keeps its cause', () => {
  it('names the root cause (ECONNREFUSED behind `fetch failed`) in the message and `code`, keeps `cause`, counts attempts', async () => {
    // A real refused connection through the global fetch: a port that was just listening, now closed.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', maxRetries: 1, sleep: async () => {} });
    const err = (await client.identity.me().catch((e: unknown) => e)) as ApiConnectionError;
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.message).toBe(
      `GET http://127.0.0.1:${port}/api/v1/me: fetch failed: connect ECONNREFUSED 127.0.0.1:${port} (2 attempts)`,
    );
    expect(err.code).toBe('ECONNREFUSED');
    expect(err.attempts).toBe(2);
    expect(err.cause).toBeInstanceOf(TypeError);
    expect((err.cause as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('takes the first error of an AggregateError (every address of a host refused)', async () => {
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    const both = Object.assign(new AggregateError([refused('::1:8080'), refused('127.0.0.1:8080')], ''), {
      code: 'ECONNREFUSED',
    });
    const { client } = fakeClient([() => Promise.reject(new TypeError('fetch failed', { cause: both }))], { maxRetries: 0 });
    const err = (await client.identity.me().catch((e: unknown) => e)) as ApiConnectionError;
    expect(err.message).toBe('GET http://api.test/api/v1/me: fetch failed: connect ECONNREFUSED ::1:8080');
    expect([err.code, err.attempts]).toEqual(['ECONNREFUSED', 1]);
  });
});
