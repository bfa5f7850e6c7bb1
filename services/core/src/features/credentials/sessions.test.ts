import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { reasonOf } from '../../shared/test-kit.ts';
import { hashSessionToken, createSessionRules } from './sessions.ts';

const now = new Date('2026-01-01T00:00:00Z');
const U1 = '10000000-0000-4000-8000-000000000001';
const U2 = '10000000-0000-4000-8000-000000000002';

function setup() {
  const stores = createFakeStores();
  for (const id of [U1, U2])
    stores.users.rows.push({
      id,
      organizationId: 'o1',
      email: `${id}@acme.test`,
      name: 'U',
      role: 'admin',
      metadata: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
  stores.sessions.rows.push(
    { tokenHash: hashSessionToken('live'), expiresAt: new Date('2026-01-01T01:00:00Z'), userId: U1, createdAt: now },
    { tokenHash: hashSessionToken('old'), expiresAt: new Date('2025-12-31T23:00:00Z'), userId: U2, createdAt: now },
  );
  return { stores, sessions: createSessionRules(stores, () => now) };
}

describe('settings sessions (fake stores)', () => {
  it('finds the user of a live session by its token', async () => {
    expect(await setup().sessions.authenticate('live')).toEqual({ userId: U1, organizationId: 'o1', role: 'admin' });
  });

  it('refuses an expired, unknown or empty token as unauthorized', async () => {
    const { sessions } = setup();
    for (const token of ['old', 'nope', '']) expect(await reasonOf(sessions.authenticate(token))).toBe('unauthorized');
  });

  it('mints an hour-long session of a known user, stored by the hash of its token, which then authenticates', async () => {
    const { stores, sessions } = setup();
    const { token, expiresAt } = await sessions.create(U2);
    expect(expiresAt).toBe('2026-01-01T01:00:00.000Z');
    expect(stores.sessions.rows.at(-1)).toMatchObject({ tokenHash: hashSessionToken(token), userId: U2 });
    expect(JSON.stringify(stores.sessions.rows)).not.toContain(token);
    expect(await sessions.authenticate(token)).toMatchObject({ userId: U2 });
    await expect(sessions.create('00000000-0000-4000-8000-00000000dead')).rejects.toThrow('unknown user');
    await expect(sessions.create('nope')).rejects.toThrow('unknown user');
  });
});
