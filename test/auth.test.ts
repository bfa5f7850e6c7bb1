import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

let c: TestCluster;
let org: SeededOrg;

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Auth Org');
});
afterAll(async () => c?.stop());

describe('authentication', () => {
  it('answers 401 missing_key without a key', async () => {
    const res = await c.api(undefined, 'GET', '/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ reason: 'missing_key', message: expect.any(String) });
  });

  it('answers 401 invalid_key for an unknown key, malformed or well-formed', async () => {
    for (const key of ['nope', `fbk_AAAAAAAA_${'a'.repeat(40)}`]) {
      const res = await c.api(key, 'GET', '/me');
      expect(res.status).toBe(401);
      expect(res.body.reason).toBe('invalid_key');
    }
  });

  it('accepts the key in Authorization: Bearer and in X-API-Key alike', async () => {
    const a = await c.api(org.key, 'GET', '/me');
    const b = await c.api(undefined, 'GET', '/me', undefined, { 'x-api-key': org.key });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.apiKeyId).toBe(org.keyId);
    expect(b.body.apiKeyId).toBe(org.keyId);
  });

  it('returns the Me object with every field present', async () => {
    const res = await c.api(org.key, 'GET', '/me');
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'apiKeyId',
        'createdByUserId',
        'keyName',
        'keyPrefix',
        'lastUsedAt',
        'organizationId',
        'permissions',
        'scope',
        'scopedProjectId',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      organizationId: org.orgId,
      scope: 'organization',
      scopedProjectId: null,
      permissions: null,
      createdByUserId: org.adminId,
    });
    expect(org.key.startsWith(res.body.keyPrefix)).toBe(true);
  });

  it('answers 401 key_revoked on the very next request after revocation', async () => {
    const { key, id } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    expect((await c.api(key, 'GET', '/me')).status).toBe(200);
    await c.admin.revokeKey(id);
    const res = await c.api(key, 'GET', '/me');
    expect(res.status).toBe(401);
    expect(res.body.reason).toBe('key_revoked');
  });

  it('stores keys hashed, never in clear', async () => {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: c.databaseUrl });
    await client.connect();
    const { rows } = await client.query('SELECT * FROM core.api_keys WHERE id = $1', [org.keyId]);
    await client.end();
    expect(JSON.stringify(rows[0])).not.toContain(org.key.slice(13));
    expect(rows[0].keyHash).toHaveLength(32);
  });

  it('answers 403 forbidden when the organization has the API disabled', async () => {
    await c.admin.setApiEnabled(org.orgId, false);
    const res = await c.api(org.key, 'GET', '/projects');
    await c.admin.setApiEnabled(org.orgId, true);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('forbidden');
  });
});
