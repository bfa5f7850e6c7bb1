import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { createProject, keyLacking, projectKey, sql } from './support/people.ts';

let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
let projectB: string;

interface Result {
  type: string;
  id: string;
  title: string;
  projectId: string | null;
  url: string;
}

/** Entries and releases are written straight into their tables (their API is another feature's). */
async function entry(projectId: string, orgId: string, title: string, description = 'nothing special'): Promise<string> {
  const [row] = await sql<{ id: string }>(
    c,
    `INSERT INTO entries ("projectId", "organizationId", type, title, description) VALUES ($1, $2, 'bug_report', $3, $4) RETURNING id`,
    [projectId, orgId, title, description],
  );
  return row.id;
}
async function release(projectId: string, orgId: string, name: string, description: string | null = null): Promise<string> {
  const [row] = await sql<{ id: string }>(
    c,
    `INSERT INTO releases ("projectId", "organizationId", name, description, "startDate", "endDate") VALUES ($1, $2, $3, $4, now(), now()) RETURNING id`,
    [projectId, orgId, name, description],
  );
  return row.id;
}
const search = async (key: string, q: string) => c.api(key, 'GET', `/search?q=${encodeURIComponent(q)}`);
const ids = (body: { data: Result[] }) => body.data.map((r) => r.id);

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Search Org');
  other = await c.seedOrg('Other Search Org');
  projectB = await createProject(c, org.key, 'Kestrel migration', 'Move the kestrel workloads to the new cluster');
});
afterAll(async () => c?.stop());

describe('GET /search', () => {
  it('finds projects, entries, releases and wiki pages with {type, id, title, projectId, url}', async () => {
    const e = await entry(org.projectId, org.orgId, 'Pelican login fails', 'The pelican form rejects valid passwords');
    const r = await release(org.projectId, org.orgId, 'Pelican 2.0', 'Pelican rewrite');
    const w = (
      await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, {
        title: 'Pelican handbook',
        content: 'How pelican works',
      })
    ).body.id;
    const p = await createProject(c, org.key, 'Pelican portal', 'Customer portal for pelican');
    const res = await search(org.key, 'pelican');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'page', 'pageSize', 'total']);
    expect(res.body).toMatchObject({ page: 1, pageSize: 25, total: 4 });
    for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(['id', 'projectId', 'title', 'type', 'url']);
    const byType = Object.fromEntries(res.body.data.map((x: Result) => [x.type, x]));
    expect(byType.entry).toEqual({
      type: 'entry',
      id: e,
      title: 'Pelican login fails',
      projectId: org.projectId,
      url: `/entries/${e}`,
    });
    expect(byType.release).toEqual({
      type: 'release',
      id: r,
      title: 'Pelican 2.0',
      projectId: org.projectId,
      url: `/releases/${r}`,
    });
    expect(byType.wiki_page).toEqual({
      type: 'wiki_page',
      id: w,
      title: 'Pelican handbook',
      projectId: org.projectId,
      url: `/wiki-pages/${w}`,
    });
    expect(byType.project).toEqual({ type: 'project', id: p, title: 'Pelican portal', projectId: p, url: `/projects/${p}` });
    // The urls answer through the API (entries and releases routes live in the sibling feature branch).
    for (const item of res.body.data.filter((x: Result) => x.type === 'project' || x.type === 'wiki_page')) {
      expect((await c.api(org.key, 'GET', item.url)).status, item.url).toBe(200);
    }
  });

  it('orders by relevance: a title match before a body-only match, more matches before fewer', async () => {
    const bodyOnly = await entry(org.projectId, org.orgId, 'Checkout is slow', 'the albatross widget stalls');
    const inTitle = await entry(org.projectId, org.orgId, 'Albatross crashes', 'on start');
    const both = await entry(org.projectId, org.orgId, 'Albatross albatross sync', 'albatross queue albatross retries');
    const res = await search(org.key, 'albatross');
    expect(ids(res.body)).toEqual([both, inTitle, bodyOnly]);
  });

  it('understands web search syntax (phrases, -exclusion) and stems words', async () => {
    const a = await entry(org.projectId, org.orgId, 'Heron payment retried twice', 'x');
    const b = await entry(org.projectId, org.orgId, 'Heron refund', 'payment retries');
    expect(ids((await search(org.key, 'heron -refund')).body)).toEqual([a]);
    expect(ids((await search(org.key, '"heron payment"')).body)).toEqual([a]);
    expect(ids((await search(org.key, 'heron retry')).body).sort()).toEqual([a, b].sort());
    const none = await search(org.key, 'the');
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });

  it('returns at most 25 results', async () => {
    for (let i = 0; i < 30; i++) await entry(org.projectId, org.orgId, `Osprey item ${i}`);
    const res = await search(org.key, 'osprey');
    expect(res.body.data).toHaveLength(25);
    expect(res.body.total).toBe(25);
  });

  it('follows writes: renamed pages are found by their new title, deleted records vanish', async () => {
    const page = (await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'Cormorant notes' })).body;
    expect(ids((await search(org.key, 'cormorant')).body)).toEqual([page.id]);
    await c.api(org.key, 'PATCH', `/wiki-pages/${page.id}`, { title: 'Shag notes' });
    expect((await search(org.key, 'cormorant')).body.data).toEqual([]);
    expect((await search(org.key, 'shag')).body.data[0]).toMatchObject({ id: page.id, title: 'Shag notes' });
    await c.api(org.key, 'DELETE', `/wiki-pages/${page.id}`);
    expect((await search(org.key, 'shag')).body.data).toEqual([]);
    const e = await entry(org.projectId, org.orgId, 'Gannet bug');
    await sql(c, 'DELETE FROM entries WHERE id = $1', [e]);
    expect((await search(org.key, 'gannet')).body.data).toEqual([]);
    // Deleting a project takes its own document and those of its records.
    const doomed = await createProject(c, org.key, 'Skua project');
    await entry(doomed, org.orgId, 'Skua entry');
    await c.api(org.key, 'POST', `/projects/${doomed}/wiki-pages`, { title: 'Skua page' });
    expect((await search(org.key, 'skua')).body.data).toHaveLength(3);
    expect((await c.api(org.key, 'DELETE', `/projects/${doomed}`)).status).toBe(204);
    expect((await search(org.key, 'skua')).body.data).toEqual([]);
  });

  it('indexes the first 1,000 characters of a title and 100,000 of a body: 800 KB of distinct words are no 500', async () => {
    // Indexed whole, either is a tsvector past Postgres' 1 MB (it was a 500); words past the bound are not found.
    const words = Array.from({ length: 130_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
    const page = await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, {
      title: 'Archive',
      content: `egret ${words} spoonbill`,
    });
    expect(page.status, JSON.stringify(page.body).slice(0, 300)).toBe(201);
    expect(ids((await search(org.key, 'egret')).body)).toEqual([page.body.id]);
    expect((await search(org.key, 'spoonbill')).body.data).toEqual([]);
    const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
      type: 'bug_report',
      title: `bustard ${words} bittern`,
      description: 'd',
    });
    expect(entry.status, JSON.stringify(entry.body).slice(0, 300)).toBe(201);
    expect(ids((await search(org.key, 'bustard')).body)).toEqual([entry.body.id]);
    expect((await search(org.key, 'bittern')).body.data).toEqual([]);
  });

  it("filters to the key's organization, and a project key to its project", async () => {
    const mine = await entry(org.projectId, org.orgId, 'Puffin alert');
    const inB = await entry(projectB, org.orgId, 'Puffin dashboard');
    const theirs = await entry(other.projectId, other.orgId, 'Puffin report');
    const theirPage = (await c.api(other.key, 'POST', `/projects/${other.projectId}/wiki-pages`, { title: 'Puffin wiki' })).body
      .id;
    expect(ids((await search(org.key, 'puffin')).body).sort()).toEqual([mine, inB].sort());
    expect(ids((await search(other.key, 'puffin')).body).sort()).toEqual([theirs, theirPage].sort());
    const scoped = await search(await projectKey(c, org, projectB), 'puffin');
    expect(scoped.status).toBe(200);
    expect(ids(scoped.body)).toEqual([inB]);
    // The project key's own project is found; other projects are not.
    expect(ids((await search(await projectKey(c, org, projectB), 'kestrel')).body)).toEqual([projectB]);
    expect(ids((await search(await projectKey(c, org), 'kestrel')).body)).toEqual([]);
  });

  it('answers 400 when q is missing, empty or blank', async () => {
    for (const path of ['/search', '/search?q=', '/search?q=%20%20']) {
      const res = await c.api(org.key, 'GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body.reason).toBe('validation_error');
      expect(res.body.details.errors[0].path).toBe('q');
    }
  });

  it('needs read:search', async () => {
    const res = await search(await keyLacking(c, org, 'read:search'), 'x');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ reason: 'forbidden', message: expect.stringContaining('read:search') });
  });

  it('is described, with the routes of users, members, wiki, agreements and snapshots, in the OpenAPI document', async () => {
    const doc = (await c.api(undefined, 'GET', '/openapi.json')).body;
    const p = (path: string) => Object.keys(doc.paths[`/api/v1${path}`] ?? {}).sort();
    expect(p('/search')).toEqual(['get']);
    expect(doc.paths['/api/v1/search'].get.parameters.find((x: { name: string }) => x.name === 'q').schema).toMatchObject({
      minLength: 1,
    });
    expect(p('/users')).toEqual(['get']);
    expect(p('/users/invite')).toEqual(['post']);
    expect(p('/users/bulk-invite')).toEqual(['post']);
    expect(p('/users/{id}')).toEqual(['get', 'patch']);
    expect(p('/projects/{id}/members')).toEqual(['get', 'post']);
    expect(p('/projects/{id}/members/{memberId}')).toEqual(['delete', 'patch']);
    expect(p('/projects/{id}/wiki-pages')).toEqual(['get', 'post']);
    expect(p('/wiki-pages/{id}')).toEqual(['delete', 'get', 'patch']);
    expect(p('/projects/{id}/agreements')).toEqual(['get']);
    expect(p('/agreements/{id}')).toEqual(['get']);
    expect(p('/projects/{id}/snapshots')).toEqual(['get']);
    expect(doc.paths['/api/v1/snapshots/{id}']).toBeUndefined();
  });

  it('has a GIN index that serves the text match', async () => {
    const client = new pg.Client({ connectionString: c.databaseUrl });
    await client.connect();
    try {
      await client.query('SET search_path TO core, public');
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query(
        `EXPLAIN SELECT "entityId" FROM search_documents WHERE document @@ websearch_to_tsquery('english', 'osprey')`,
      );
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('search_documents_document');
    } finally {
      await client.end();
    }
  });
});
