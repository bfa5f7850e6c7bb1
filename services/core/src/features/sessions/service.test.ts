import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { reasonOf } from '../../shared/test-kit.ts';
import { createFakeSessionStore } from './fake-store.ts';
import { createSessionService } from './service.ts';

const hash = (t: string) => createHash('sha256').update(t).digest('hex');
const now = new Date('2026-01-01T00:00:00Z');

describe('settings sessions (fake store)', () => {
  const sessions = createFakeSessionStore([
    { tokenHash: hash('live'), expiresAt: new Date('2026-01-01T01:00:00Z'), userId: 'u1', organizationId: 'o1', role: 'admin' },
    { tokenHash: hash('old'), expiresAt: new Date('2025-12-31T23:00:00Z'), userId: 'u2', organizationId: 'o1', role: 'admin' },
  ]);
  const service = createSessionService({ sessions }, () => now);

  it('finds the user of a live session by its token', async () => {
    expect(await service.authenticate('live')).toEqual({ userId: 'u1', organizationId: 'o1', role: 'admin' });
  });

  it('refuses an expired, unknown or empty token as unauthorized', async () => {
    for (const token of ['old', 'nope', '']) expect(await reasonOf(service.authenticate(token))).toBe('unauthorized');
  });
});
