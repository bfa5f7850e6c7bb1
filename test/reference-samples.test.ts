import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_LABELS } from '../scripts/lib/code-samples.ts';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

// The code samples of the reference page are true: taken from the document the page renders, as
// the gateway serves it (/api/v1/docs/reference.json), and run as a reader would run them, against
// a cluster: curl for five operations, the SDK (its built package, as npm installs it) for two,
// Python's standard library for one. Each must get its operation's success.
const ROOT = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
type Sample = { label: string; source: string };
let c: TestCluster;
let org: SeededOrg;
let document: { paths: Record<string, Record<string, { 'x-codeSamples': Sample[] }>> };
let env: Record<string, string>;

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Samples');
  const res = await fetch(`${c.baseUrl}/docs/reference.json`);
  expect(res.status).toBe(200);
  document = (await res.json()) as typeof document;
  const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
    type: 'bug_report',
    title: 'Seeded',
    description: 'for the samples',
  });
  const comment = await c.api(org.key, 'POST', `/entries/${entry.body.id}/comments`, { content: 'seeded' });
  env = {
    PATH: process.env.PATH ?? '',
    FEEDBACK_API_URL: new URL(c.baseUrl).origin,
    FEEDBACK_API_KEY: org.key,
    PROJECT_ID: org.projectId,
    ENTRY_ID: entry.body.id,
    COMMENT_ID: comment.body.id,
  };
}, 120_000);
afterAll(async () => {
  await c?.stop();
});

function sample(method: string, oaPath: string, label: string): string {
  const found = document.paths[oaPath]?.[method]?.['x-codeSamples']?.find((s) => s.label === label);
  if (!found) throw new Error(`no ${label} sample for ${method} ${oaPath}`);
  return found.source;
}

/** Runs a curl sample as written; a shell function in front of it makes curl print the status (the body goes to a file). */
async function curlStatus(method: string, oaPath: string): Promise<number> {
  const out = path.join(tmpdir(), `sample-${randomUUID()}.json`);
  const script = `curl() { command curl -sS -o '${out}' -w '%{http_code}' "$@"; }\n${sample(method, oaPath, SAMPLE_LABELS.curl)}`;
  try {
    const { stdout } = await run('sh', ['-c', script], { env });
    return Number(stdout.trim());
  } finally {
    rmSync(out, { force: true });
  }
}

describe('the code samples of the reference page', () => {
  it('curl: each gets its success', async () => {
    expect(await curlStatus('get', '/api/v1/me')).toBe(200);
    expect(await curlStatus('post', '/api/v1/projects/{id}/entries')).toBe(201);
    expect(await curlStatus('get', '/api/v1/projects/{id}/entries')).toBe(200);
    expect(await curlStatus('patch', '/api/v1/entries/{id}')).toBe(200);
    expect(await curlStatus('delete', '/api/v1/comments/{id}')).toBe(204);
    expect((await c.api(org.key, 'GET', `/comments/${env.COMMENT_ID}`)).status).toBe(404);
    const entries = await c.api(org.key, 'GET', `/projects/${org.projectId}/entries`);
    expect(entries.body.data.map((e: { title: string }) => e.title)).toContain('Export the monthly report as CSV');
  }, 60_000);

  it('SDK: a list is iterated to its end, a create answers the record', async () => {
    const node = (source: string) => run(process.execPath, ['--input-type=module', '-e', source], { cwd: ROOT, env });
    const listed = await node(sample('get', '/api/v1/projects', SAMPLE_LABELS.sdk));
    expect(listed.stdout).toContain(`id: '${org.projectId}'`);
    const created = await node(sample('post', '/api/v1/entries/{id}/comments', SAMPLE_LABELS.sdk));
    const id = /id: '([0-9a-f-]{36})'/.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    expect((await c.api(org.key, 'GET', `/comments/${id}`)).body.body).toBe('Reproduced on staging; fix in progress.');
  }, 60_000);

  it('Python (standard library): the status and the answer', async () => {
    const { stdout } = await run('python3', ['-c', sample('post', '/api/v1/projects/{id}/releases', SAMPLE_LABELS.python)], {
      env,
    });
    expect(stdout).toMatch(/^201 \{'id': '[0-9a-f-]{36}'/);
    const releases = await c.api(org.key, 'GET', `/projects/${org.projectId}/releases`);
    expect(releases.body.total).toBe(1);
  }, 60_000);
});
