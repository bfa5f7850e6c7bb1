import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApi, routes } from '@cluster/gateway';
import { createAjv, REASON_STATUS } from '@cluster/platform';
import { SAMPLE_LABELS, STREAM_SAMPLE_LABELS, pathParams, pathVariable } from '../scripts/lib/code-samples.ts';
import { INTRODUCTION, TAG_GROUPS, pageDocument } from '../scripts/lib/reference-document.ts';

// The document the reference page renders (scripts/lib/reference-document.ts): the published
// document plus the introduction and the code samples, each sample true to its operation.
const ROOT = path.resolve(import.meta.dirname, '..');
type Sample = { lang: string; label: string; source: string };
type Op = { summary: string; 'x-codeSamples'?: Sample[] };
const doc = pageDocument(ROOT) as {
  info: { description: string };
  tags: { name: string }[];
  paths: Record<string, Record<string, Op>>;
  'x-tagGroups': { name: string; tags: string[] }[];
};
const oaPath = (p: string) => `/api/v1${p.replace(/:(\w+)/g, '{$1}')}`;
const samplesOf = (method: string, p: string) => doc.paths[oaPath(p)][method.toLowerCase()]['x-codeSamples'] ?? [];
const curlBody = (source: string) => /-d '([\s\S]*)'$/.exec(source)?.[1];

describe('the reference page document', () => {
  it('is the published document plus the page additions (docs/openapi.json stays the contract)', () => {
    const published = buildOpenApi(routes) as { paths: Record<string, Record<string, Op>>; info: object };
    const stripped = structuredClone(doc.paths);
    for (const item of Object.values(stripped)) for (const op of Object.values(item)) delete op['x-codeSamples'];
    expect(stripped).toEqual(published.paths);
    expect(doc.info.description).toBe(readFileSync(path.join(ROOT, INTRODUCTION), 'utf8'));
    expect(doc['x-tagGroups']).toEqual(TAG_GROUPS);
    expect(TAG_GROUPS.flatMap((g) => g.tags).sort()).toEqual(doc.tags.map((t) => t.name).sort());
  });

  it('has a curl, an SDK and a Python sample for every operation, each calling its method and path', () => {
    for (const r of routes) {
      const samples = samplesOf(r.method, r.path);
      // A stream (GET /webhooks/listen) has no SDK method: its middle sample is the CLI that reads it.
      const stream = r.response.contentType === 'text/event-stream';
      expect(
        samples.map((s) => s.label),
        `${r.method} ${r.path}`,
      ).toEqual(Object.values(stream ? STREAM_SAMPLE_LABELS : SAMPLE_LABELS));
      const [curl, sdk, python] = samples.map((s) => s.source);
      const url = oaPath(r.path).replace(/\{(\w+)\}/g, (_, p: string) => `$${pathVariable(oaPath(r.path), p)}`);
      expect(curl).toContain(`"$FEEDBACK_API_URL${url}`);
      if (r.method !== 'GET') expect(curl).toContain(`-X ${r.method} `);
      expect(python).toContain(`method="${r.method}"`);
      for (const p of pathParams(oaPath(r.path))) expect(sdk).toContain(`process.env.${pathVariable(oaPath(r.path), p)}`);
      expect(sdk).toMatch(stream ? /^npx @cluster\/cli listen / : /client\.\w+\.\w+\(/);
    }
  });

  it('sends bodies that the operation accepts, the same in every language', () => {
    const ajv = createAjv();
    const invalid: string[] = [];
    for (const r of routes.filter((o) => o.body)) {
      const [curl, sdk, python] = samplesOf(r.method, r.path).map((s) => s.source);
      const text = curlBody(curl);
      const required = ((r.body as { required?: string[] }).required?.length ?? 0) > 0 || r.method !== 'POST';
      if (!required && text === undefined) continue; // an optional body left out (rotate-secret, test, approve)
      expect(text, `${r.method} ${r.path}: a body`).toBeDefined();
      const body = JSON.parse(text ?? '') as Record<string, unknown>;
      if (!ajv.validate(r.body as object, body)) invalid.push(`${r.method} ${r.path}: ${ajv.errorsText()}`);
      for (const key of Object.keys(body)) {
        expect(sdk, `${r.path} SDK`).toMatch(new RegExp(`\\b${key}: `));
        expect(python, `${r.path} Python`).toContain(`"${key}": `);
      }
    }
    expect(invalid).toEqual([]);
  });

  it('introduces every error reason with its status, and the sections the page promises', () => {
    const intro = doc.info.description;
    for (const [reason, status] of Object.entries(REASON_STATUS))
      expect(intro, reason).toMatch(new RegExp(`\\| ${status} \\| \`${reason}\` \\|`));
    for (const heading of ['Authentication', 'Errors', 'Pagination', 'Idempotency', 'Rate limits', 'Webhooks'])
      expect(intro).toMatch(new RegExp(`^# ${heading}$`, 'm'));
    expect(intro).toMatch(/^## Verifying a delivery$/m);
  });
});
