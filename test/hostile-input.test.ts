import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_MAX, EXTERNAL_ID_MAX, EXTERNAL_NAME_MAX } from '@cluster/contracts';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

let c: TestCluster;
let org: SeededOrg;

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Hostile Org');
});
afterAll(async () => c?.stop());

type Answer = { status: number; body: { reason?: string; message?: string; details?: { errors?: { path: string }[] } } };

/** The spec's error shape with its reason, and (for validation) a details.errors entry at `path`. */
function expectError(res: Answer, status: number, reason: string, path?: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.reason).toBe(reason);
  expect(typeof res.body.message).toBe('string');
  if (path !== undefined) expect(res.body.details?.errors?.map((e) => e.path)).toContain(path);
}

/** `{"a":{"a":...}}` nested `levels` deep (the outer object is level 1). */
const nested = (levels: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

describe('NUL characters', () => {
  it('in a string field of a body is 400 naming its JSON pointer', async () => {
    const entries = `/projects/${org.projectId}/entries`;
    expectError(
      await c.api(org.key, 'POST', '/projects', { name: 'a\u0000b', description: '' }),
      400,
      'validation_error',
      '/name',
    );
    expectError(
      await c.api(org.key, 'POST', entries, { type: 'bug_report', title: 't', description: 'x\u0000' }),
      400,
      'validation_error',
      '/description',
    );
    expectError(
      await c.api(org.key, 'PATCH', `/projects/${org.projectId}`, { customLinks: [{ label: 'ok', url: '\u0000' }] }),
      400,
      'validation_error',
      '/customLinks/0/url',
    );
  });

  it('in an object key of a free-form field is 400', async () => {
    const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
      type: 'bug_report',
      title: 't',
      description: 'd',
      typeMetadata: { 'k\u0000': 1 },
    });
    expectError(res, 400, 'validation_error', '/typeMetadata/k\u0000');
  });

  it('in a query value is 400 naming the parameter', async () => {
    expectError(await c.api(org.key, 'GET', '/search?q=a%00b'), 400, 'validation_error', 'q');
    expectError(await c.api(org.key, 'GET', '/audit-events?entityType=a%00'), 400, 'validation_error', 'entityType');
    expectError(await c.api(org.key, 'GET', '/integration-links?provider=a%00'), 400, 'validation_error', 'provider');
  });
});

describe('deep nesting', () => {
  it('deeper than 32 levels anywhere in a body is 400; 32 levels are accepted', async () => {
    const entries = `/projects/${org.projectId}/entries`;
    const base = { type: 'bug_report', title: 'deep', description: 'd' };
    // Thousands of levels, written as text: the test's own JSON.stringify would overflow its stack.
    const deep = `{"type":"bug_report","title":"deep","description":"d","typeMetadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    expectError(await c.api(org.key, 'POST', entries, deep), 400, 'validation_error');
    expectError(
      await c.api(org.key, 'PATCH', `/projects/${org.projectId}`, { customLinks: nested(40) }),
      400,
      'validation_error',
    );
    // The body is level 1, typeMetadata level 2: 31 more levels make exactly 32, stored and read back whole.
    const ok = await c.api(org.key, 'POST', entries, { ...base, typeMetadata: nested(31) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect((await c.api(org.key, 'GET', `/entries/${ok.body.id}`)).body).toMatchObject({ typeMetadata: nested(31) });
    expectError(await c.api(org.key, 'POST', entries, { ...base, typeMetadata: nested(32) }), 400, 'validation_error');
  });
});

describe('paths, pages, ids and dates', () => {
  it('a malformed percent-encoding in the path is 404', async () => {
    expectError(await c.api(org.key, 'GET', '/entries/%E0%A4%A'), 404, 'not_found');
    expectError(await c.api(org.key, 'GET', '/projects/%00'), 404, 'not_found');
  });

  it('page beyond 1,000,000 and a huge pageSize are 400', async () => {
    expectError(await c.api(org.key, 'GET', '/projects?page=2147483648'), 400, 'validation_error', 'page');
    expectError(await c.api(org.key, 'GET', '/projects?page=1000001'), 400, 'validation_error', 'page');
    expectError(await c.api(org.key, 'GET', '/projects?pageSize=2147483648'), 400, 'validation_error', 'pageSize');
    const last = await c.api(org.key, 'GET', '/projects?page=1000000&pageSize=100');
    expect(last.status).toBe(200);
  });

  it('an id filter that is no uuid is 400', async () => {
    expectError(await c.api(org.key, 'GET', '/audit-events?actorId=abc'), 400, 'validation_error', 'actorId');
    expectError(
      await c.api(org.key, 'GET', `/projects/${org.projectId}/entries?releaseId=abc`),
      400,
      'validation_error',
      'releaseId',
    );
  });

  it('a date-time or date outside years 1..9999 is 400', async () => {
    const releases = `/projects/${org.projectId}/releases`;
    const body = { name: 'R', startDate: '0000-01-01T00:00:00Z', endDate: '2026-01-01T00:00:00Z' };
    const year0 = await c.api(org.key, 'POST', releases, body);
    expectError(year0, 400, 'validation_error', '/startDate');
    expect(year0.body.details.errors).toEqual([
      { path: '/startDate', message: 'must have a year from 0001 to 9999, in UTC too' },
    ]);
    expectError(
      await c.api(org.key, 'POST', releases, { ...body, startDate: '2026-01-01T00:00:00Z', endDate: '10000-01-01T00:00:00Z' }),
      400,
      'validation_error',
      '/endDate',
    );
    // An offset must not move the instant out of range either (9999-12-31T23:59:59-14:00 is year 10000 in UTC).
    for (const [startDate, endDate, path] of [
      ['0001-01-01T00:00:00+01:00', '2026-01-01T00:00:00Z', '/startDate'],
      ['2026-01-01T00:00:00Z', '9999-12-31T23:59:59-14:00', '/endDate'],
    ]) {
      expectError(await c.api(org.key, 'POST', releases, { ...body, startDate, endDate }), 400, 'validation_error', path);
    }
    expectError(await c.api(org.key, 'GET', '/time-entries?from=0000-01-01'), 400, 'validation_error', 'from');
    const ok = await c.api(org.key, 'POST', releases, {
      ...body,
      startDate: '0001-01-01T00:00:00Z',
      endDate: '9999-12-31T23:59:59Z',
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });
});

describe('media type', () => {
  it('a body declared as text/plain or a form is 415 unsupported_media_type', async () => {
    const json = JSON.stringify({ name: 'x', description: '' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await c.api(org.key, 'POST', '/projects', json, { 'content-type': type });
      expectError(res, 415, 'unsupported_media_type');
    }
    const patch = await c.api(org.key, 'PATCH', `/projects/${org.projectId}`, '{"name":"y"}', { 'content-type': 'text/plain' });
    expectError(patch, 415, 'unsupported_media_type');
  });

  it('application/json with a charset and a +json type are read', async () => {
    const json = JSON.stringify({ name: 'typed', description: '' });
    const withCharset = await c.api(org.key, 'POST', '/projects', json, { 'content-type': 'application/json; charset=utf-8' });
    expect(withCharset.status).toBe(201);
    const suffixed = await c.api(org.key, 'PATCH', `/projects/${org.projectId}`, '{"description":"v"}', {
      'content-type': 'application/merge-patch+json',
    });
    expect(suffixed.status).toBe(200);
  });
});

/** `n` distinct characters of 4 UTF-8 bytes each: nothing for Postgres to compress, the most bytes per character. */
const astral = (n: number, from = 0): string =>
  Array.from({ length: n }, (_, i) => String.fromCodePoint(0x20000 + from + i)).join('');

/** `n` letters and digits that do not repeat in any way a compressor could use. */
const letters = (n: number): string => {
  let s = '';
  while (s.length < n) s += randomUUID().replace(/-/g, '');
  return s.slice(0, n);
};

describe('unique keys', () => {
  it('an external name or id past its bound is 400 (past a btree entry it was a 500); at the bound, in 4-byte characters, it is stored', async () => {
    const entryId = (
      await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { type: 'bug_report', title: 't', description: 'd' })
    ).body.id;
    const link = (provider: string, externalType: string, externalId: string) => ({
      provider,
      externalType,
      externalId,
      alignEntityType: 'entry',
      alignEntityId: entryId,
    });
    const name = astral(EXTERNAL_NAME_MAX);
    const id = astral(EXTERNAL_ID_MAX, 1000);
    expectError(
      await c.api(org.key, 'POST', '/integration-links', link('github', 'issue', letters(EXTERNAL_ID_MAX + 1))),
      400,
      'validation_error',
      '/externalId',
    );
    expectError(
      await c.api(org.key, 'POST', '/integration-links', link(letters(EXTERNAL_NAME_MAX + 1), 'issue', '1')),
      400,
      'validation_error',
      '/provider',
    );
    const stored = await c.api(org.key, 'POST', '/integration-links', link(name, astral(EXTERNAL_NAME_MAX, 500), id));
    expect(stored.status, JSON.stringify(stored.body).slice(0, 300)).toBe(201);

    const sync = { projectId: org.projectId, userId: org.adminId, workDate: '2026-03-05', minutes: 5 };
    const longSync = await c.api(org.key, 'POST', '/time-entries/sync', {
      ...sync,
      externalSystem: 'toggl',
      externalId: letters(EXTERNAL_ID_MAX + 1),
    });
    expectError(longSync, 400, 'validation_error', '/externalId');
    const synced = await c.api(org.key, 'POST', '/time-entries/sync', { ...sync, externalSystem: name, externalId: id });
    expect(synced.status, JSON.stringify(synced.body).slice(0, 300)).toBeLessThan(300);

    const ref = { provider: 'confluence', externalType: 'page', externalId: letters(EXTERNAL_ID_MAX + 1) };
    const page = await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'W', externalRef: ref });
    expectError(page, 400, 'validation_error', '/externalRef/externalId');
  });

  it(`an e-mail longer than ${EMAIL_MAX} characters is 400 (past the unique index on e-mails it was a 500)`, async () => {
    const domain = '@long.example';
    const tooLong = `${letters(EMAIL_MAX + 1 - domain.length)}${domain}`;
    expectError(
      await c.api(org.key, 'POST', '/users/invite', { email: tooLong, name: 'Long' }),
      400,
      'validation_error',
      '/email',
    );
    const longest = await c.api(org.key, 'POST', '/users/invite', {
      email: `${letters(EMAIL_MAX - domain.length)}${domain}`,
      name: 'Long',
    });
    expect(longest.status, JSON.stringify(longest.body)).toBe(201);
  });
});
