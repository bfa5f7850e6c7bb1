import { createClient, createRouterTransport } from '@connectrpc/connect';
import type { JsonObject } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { createSecretBox, DomainError } from '@cluster/platform';
import { IdempotencyService } from '@cluster/proto';
import { createClients } from '../clients.ts';
import { withIdempotency } from './idempotency.ts';
import type { RouteResult } from './route.ts';

/** The core's Idempotency-Key records in memory: one record per key, replayed once complete. */
function memoryIdempotency() {
  const records = new Map<string, { status: number; body?: JsonObject; headers?: JsonObject }>();
  const transport = createRouterTransport(({ service }) =>
    service(IdempotencyService, {
      beginIdempotent(req) {
        const done = records.get(req.key);
        return done ? { state: 'replay', ...done } : { state: 'started' };
      },
      completeIdempotent(req) {
        records.set(req.key, { status: req.status, body: req.body, headers: req.headers });
        return {};
      },
      releaseIdempotent: () => ({}),
    }),
  );
  const unreachable = 'http://127.0.0.1:1';
  const clients = {
    ...createClients({ core: unreachable, delivery: unreachable, evidence: unreachable }, async () => 'no-token'),
    idempotency: createClient(IdempotencyService, transport),
  };
  return { clients, records };
}

const box = createSecretBox(['unit-test key'], { salt: 'test', info: 'test' });
const request = { method: 'POST', path: '/api/v1/webhooks', rawBody: '{}' };
/** A key confirmed current. */
const current = async () => {};

describe('withIdempotency', () => {
  it('stores the answer bytes sealed and replays exactly those bytes', async () => {
    const { clients, records } = memoryIdempotency();
    // Not JSON.stringify's own spacing: a replay must not re-serialise what it stored.
    const answer = Buffer.from('{"id":"w1", "hmacSecret":"whsec_shown_once","name":"Ünïcode ✓"}');
    const run = async (): Promise<RouteResult> => ({ status: 201, body: answer, headers: { Location: '/webhooks/w1' } });

    const first = await withIdempotency(clients, box, 'k1', 'idem-1', request, run, current);
    expect(first.body).toBe(answer);
    expect(JSON.stringify(records.get('idem-1')?.body)).not.toContain('whsec_shown_once');

    const replay = await withIdempotency(
      clients,
      box,
      'k1',
      'idem-1',
      request,
      () => {
        throw new Error('a replay does not run the route');
      },
      current,
    );
    expect(replay.status).toBe(201);
    expect(Buffer.from(replay.body ?? []).equals(answer)).toBe(true);
    expect(replay.headers).toEqual({ Location: '/webhooks/w1', 'Idempotent-Replayed': 'true' });
  });

  it('replays a 4xx answer as its JSON error body', async () => {
    const { clients } = memoryIdempotency();
    const refuse = async (): Promise<RouteResult> => {
      throw new DomainError('validation_error', 'bad', { errors: [{ path: '/url', message: 'is required' }] });
    };
    await expect(withIdempotency(clients, box, 'k1', 'idem-2', request, refuse, current)).rejects.toThrow('bad');
    const replay = await withIdempotency(clients, box, 'k1', 'idem-2', request, refuse, current);
    expect(replay.status).toBe(400);
    expect(JSON.parse(Buffer.from(replay.body ?? []).toString())).toEqual({
      reason: 'validation_error',
      message: 'bad',
      details: { errors: [{ path: '/url', message: 'is required' }] },
    });
  });

  it('serves a stored answer only after the key is confirmed current: a revoked key gets the 401', async () => {
    const { clients } = memoryIdempotency();
    const run = async (): Promise<RouteResult> => ({ status: 201, body: Buffer.from('{"id":"w1"}') });
    let confirmations = 0;
    const confirm = async () => void confirmations++;
    await withIdempotency(clients, box, 'k1', 'idem-3', request, run, confirm);
    expect(confirmations).toBe(0); // a first run calls the backend, which checks the key itself
    await withIdempotency(clients, box, 'k1', 'idem-3', request, run, confirm);
    expect(confirmations).toBe(1);
    const revoked = async () => {
      throw new DomainError('key_revoked', 'this API key was revoked');
    };
    await expect(withIdempotency(clients, box, 'k1', 'idem-3', request, run, revoked)).rejects.toMatchObject({ status: 401 });
  });
});
