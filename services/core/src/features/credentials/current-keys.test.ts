import { describe, expect, it } from 'vitest';
import { createCurrentKeys } from './current-keys.ts';
import type { KeyForAuth } from './store.ts';

const key = (id: string, revoked = false): KeyForAuth => ({
  id,
  organizationId: 'org',
  createdByUserId: 'user',
  scope: 'organization',
  scopedProjectId: null,
  permissions: null,
  keyHash: Buffer.alloc(0),
  revokedAt: revoked ? new Date() : null,
  role: 'admin',
  apiEnabled: true,
});

/** A store whose reads take their snapshot when they start and answer when the test says so. */
function slowStore(initial: KeyForAuth[]) {
  const rows = new Map(initial.map((r) => [r.id, r]));
  const reads: { ids: string[]; finish: () => void; failWith: (err: Error) => void }[] = [];
  const readMany = (ids: string[]) => {
    const snapshot = ids.flatMap((id) => (rows.has(id) ? [{ ...rows.get(id)! }] : []));
    return new Promise<KeyForAuth[]>((resolve, reject) => reads.push({ ids, finish: () => resolve(snapshot), failWith: reject }));
  };
  return { rows, reads, readMany };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('current key rows, read together', () => {
  it('answers a call only with a read that started after it arrived: a revoke committed before it is seen', async () => {
    const store = slowStore([key('k1')]);
    const current = createCurrentKeys(store.readMany);
    const first = current('k1');
    await tick();
    expect(store.reads.map((r) => r.ids)).toEqual([['k1']]);
    // The key is revoked while that read runs; a call arriving now must not be answered by it.
    store.rows.set('k1', key('k1', true));
    const second = current('k1');
    store.reads[0].finish();
    expect((await first)?.revokedAt).toBeNull();
    await tick();
    expect(store.reads.map((r) => r.ids)).toEqual([['k1'], ['k1']]);
    store.reads[1].finish();
    expect((await second)?.revokedAt).toBeInstanceOf(Date);
  });

  it('reads every key waiting in one statement, one row for all the callers of a key', async () => {
    const store = slowStore([key('a'), key('b'), key('c')]);
    const current = createCurrentKeys(store.readMany);
    const running = current('a');
    await tick();
    const waiting = [current('b'), current('c'), current('b'), current('missing')];
    store.reads[0].finish();
    await running;
    await tick();
    expect(store.reads).toHaveLength(2);
    expect(store.reads[1].ids.sort()).toEqual(['b', 'c', 'missing']);
    store.reads[1].finish();
    expect((await Promise.all(waiting)).map((r) => r?.id)).toEqual(['b', 'c', 'b', undefined]);
  });

  it('fails the callers of a failed read only, and reads again for the next', async () => {
    const store = slowStore([key('a')]);
    const current = createCurrentKeys(store.readMany);
    const failed = current('a');
    await tick();
    store.reads[0].failWith(new Error('connection lost'));
    await expect(failed).rejects.toThrow('connection lost');
    const next = current('a');
    await tick();
    store.reads[1].finish();
    expect((await next)?.id).toBe('a');
  });

  it('starts a read at once when none runs', async () => {
    const store = slowStore([key('a')]);
    const current = createCurrentKeys(store.readMany);
    const call = current('a');
    expect(store.reads).toHaveLength(1); // issued in the same tick as the call
    store.reads[0].finish();
    expect((await call)?.id).toBe('a');
  });
});
