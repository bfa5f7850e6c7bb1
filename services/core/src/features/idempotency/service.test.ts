import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { createIdempotencyService } from './service.ts';

const KEY = '50000000-0000-4000-8000-000000000001';

function setup() {
  const stores = createFakeStores();
  let now = Date.now();
  const idem = createIdempotencyService(stores, { now: () => now });
  return { stores, idem, advance: (ms: number) => (now += ms) };
}

describe('idempotency rules (fake stores)', () => {
  it('starts the first request, answers in_use to a twin while it runs, and replays the stored answer once complete', async () => {
    const { idem } = setup();
    expect(await idem.begin(KEY, 'k1', 'fp')).toEqual({ state: 'started' });
    expect(await idem.begin(KEY, 'k1', 'fp')).toEqual({ state: 'in_use' });
    await idem.complete(KEY, 'k1', 201, { id: 'x' }, { location: '/x' });
    expect(await idem.begin(KEY, 'k1', 'fp')).toEqual({
      state: 'replay',
      status: 201,
      body: { id: 'x' },
      headers: { location: '/x' },
    });
    expect(await idem.begin(KEY, 'k2', 'fp')).toEqual({ state: 'started' });
    expect(await idem.begin('50000000-0000-4000-8000-000000000002', 'k1', 'fp')).toEqual({ state: 'started' });
  });

  it('answers mismatch to the same key with another fingerprint, running or done', async () => {
    const { idem } = setup();
    await idem.begin(KEY, 'k1', 'fp');
    expect(await idem.begin(KEY, 'k1', 'other')).toEqual({ state: 'mismatch' });
    await idem.complete(KEY, 'k1', 200, undefined, undefined);
    expect(await idem.begin(KEY, 'k1', 'other')).toEqual({ state: 'mismatch' });
    expect(await idem.begin(KEY, 'k1', 'fp')).toEqual({ state: 'replay', status: 200, body: undefined, headers: undefined });
  });

  it('lets a released key run again, and a retry take over a request in progress for over a minute', async () => {
    const { idem, stores } = setup();
    await idem.begin(KEY, 'k1', 'fp');
    await idem.release(KEY, 'k1');
    expect(await idem.begin(KEY, 'k1', 'other')).toEqual({ state: 'started' });
    stores.idempotency.rows[0].lockedAt = new Date(Date.now() - 61_000);
    expect(await idem.begin(KEY, 'k1', 'fp')).toEqual({ state: 'started' });
    expect(stores.idempotency.rows[0]).toMatchObject({ fingerprint: 'fp', state: 'in_progress' });
    expect(await idem.begin(KEY, 'k1', 'fp')).toEqual({ state: 'in_use' });
  });

  it('starts anew after 24 hours instead of replaying, and release keeps a completed answer', async () => {
    const { idem, advance, stores } = setup();
    await idem.begin(KEY, 'k1', 'fp');
    await idem.complete(KEY, 'k1', 201, { a: 1 }, undefined);
    await idem.release(KEY, 'k1');
    expect((await idem.begin(KEY, 'k1', 'fp')).state).toBe('replay');
    advance(24 * 60 * 60 * 1000 + 1);
    expect(await idem.begin(KEY, 'k1', 'other')).toEqual({ state: 'started' });
    expect(stores.idempotency.rows[0]).toMatchObject({ state: 'in_progress', status: null, body: null, fingerprint: 'other' });
  });

  it('sweeps expired records only', async () => {
    const { idem, stores } = setup();
    await idem.begin(KEY, 'old', 'fp');
    await idem.begin(KEY, 'new', 'fp');
    stores.idempotency.rows[0].expiresAt = new Date(Date.now() - 1);
    await idem.sweep();
    expect(stores.idempotency.rows.map((r) => r.key)).toEqual(['new']);
  });
});
