import { create } from '@bufbuild/protobuf';
import { createHandlerContext, type Client } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '@cluster/platform';
import { match, reasonOf } from '@cluster/platform/test-kit';
import {
  AuthenticateSessionResponseSchema,
  EvidenceService,
  RecordAuditEventResponseSchema,
  EvidenceKeyRequestSchema,
  type AuditService,
  type SessionService,
} from '@cluster/proto';
import { createFakeEvidenceKeyStore } from './fake-store.ts';
import { keySettingsRpc } from './rpc.ts';
import { createEvidenceKeyService, evidenceKeyPrefix } from './service.ts';

const ORG = '00000000-0000-4000-8000-000000000001';
const box = createSecretBox(['test key material'], { salt: 'test', info: 'test' });

/** The key settings over the fake store, a core whose sessions are `sessions` (token -> role), and its audit trail. */
function setup(sessions: Record<string, string>) {
  const store = createFakeEvidenceKeyStore();
  const keys = createEvidenceKeyService(store, box);
  const audited: Parameters<Client<typeof AuditService>['recordAuditEvent']>[0][] = [];
  const sessionClient: Pick<Client<typeof SessionService>, 'authenticateSession'> = {
    async authenticateSession({ token }) {
      const role = token === undefined ? undefined : sessions[token];
      if (!role) throw new Error('unauthenticated');
      return create(AuthenticateSessionResponseSchema, { organizationId: ORG, userId: 'u1', role });
    },
  };
  const audit: Pick<Client<typeof AuditService>, 'recordAuditEvent'> = {
    async recordAuditEvent(req) {
      audited.push(req);
      return create(RecordAuditEventResponseSchema);
    },
  };
  const impl = keySettingsRpc({ sessions: sessionClient, audit, keys });
  const context = (method: 'getEvidenceKey' | 'rotateEvidenceKey') =>
    createHandlerContext({
      service: EvidenceService,
      method: EvidenceService.method[method],
      protocolName: 'unit',
      requestMethod: 'POST',
      url: '',
    });
  // The two methods as the server calls them (a request message and a handler context).
  const rpc = {
    getEvidenceKey: async (sessionToken: string) =>
      impl.getEvidenceKey(create(EvidenceKeyRequestSchema, { sessionToken }), context('getEvidenceKey')),
    rotateEvidenceKey: async (sessionToken: string) =>
      impl.rotateEvidenceKey(create(EvidenceKeyRequestSchema, { sessionToken }), context('rotateEvidenceKey')),
  };
  return { rpc, store, audited };
}

describe('evidence key settings', () => {
  it('create a key for an admin, then rotate it: audited as created, then rotated with the revoked prefix', async () => {
    const { rpc, store, audited } = setup({ admin: 'admin' });
    expect(await rpc.getEvidenceKey('admin')).toEqual({ exists: false, prefix: '' });
    const first = await rpc.rotateEvidenceKey('admin');
    expect(first.prefix).toBe(evidenceKeyPrefix(first.key ?? ''));
    expect(await rpc.getEvidenceKey('admin')).toEqual({ exists: true, prefix: first.prefix });
    const second = await rpc.rotateEvidenceKey('admin');
    expect(second.key).not.toBe(first.key);
    expect(store.revoked).toHaveLength(1);
    expect(audited).toEqual([
      match.objectContaining({
        entityType: 'evidence_key',
        action: 'created',
        entityId: ORG,
        metadata: { prefix: first.prefix },
      }),
      match.objectContaining({
        action: 'rotated',
        metadata: { prefix: second.prefix, revokedPrefix: first.prefix },
      }),
    ]);
    expect(audited[0].actor).toMatchObject({ organizationId: ORG, userId: 'u1', role: 'admin', scope: 'organization' });
  });

  it('refuse a member (403) and an unknown session, and change nothing', async () => {
    const { rpc, store, audited } = setup({ member: 'member' });
    expect(await reasonOf(rpc.rotateEvidenceKey('member'))).toBe('forbidden');
    expect(await reasonOf(rpc.getEvidenceKey('member'))).toBe('forbidden');
    expect(await reasonOf(rpc.rotateEvidenceKey('nobody'))).toBe('Error: unauthenticated');
    expect(await store.current(ORG)).toBeUndefined();
    expect(audited).toEqual([]);
  });
});
