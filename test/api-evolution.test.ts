import { describe, expect, it } from 'vitest';
import {
  BASELINE,
  PUBLISHED,
  breakingChanges,
  describeChanges,
  readDocument,
  type OpenApiDocument,
} from '../scripts/lib/api-evolution.ts';

interface Schema {
  type?: string | string[];
  enum?: string[];
  required?: string[];
  properties?: Record<string, Schema>;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
}
interface Doc {
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  components: { schemas: Record<string, Schema> };
}

const published = readDocument(PUBLISHED);

/** The published document with one planted change. */
function planted(change: (doc: Doc) => void): OpenApiDocument {
  const copy = structuredClone(published);
  change(copy as unknown as Doc);
  return copy;
}

const ids = async (revision: OpenApiDocument) => (await breakingChanges(published, revision)).map((c) => c.id);

describe('v1 stays additive (oasdiff against the committed baseline)', () => {
  it('the published document breaks no client of the v1 baseline', async () => {
    const changes = await breakingChanges(readDocument(BASELINE), published);
    expect(changes, `docs/openapi.json breaks v1 clients:\n${describeChanges(changes)}`).toEqual([]);
  });

  it('the baseline records the published document (accept an additive change with `npm run api-baseline`)', () => {
    // Without this, a field added after the baseline could later be removed unnoticed.
    expect(readDocument(BASELINE), 'run `npm run api-baseline` to accept the additive change').toEqual(published);
  });

  it('refuses a removed response field', async () => {
    const revision = planted((doc) => {
      const project = doc.components.schemas.Project;
      delete project.properties!.name;
      project.required = project.required!.filter((n) => n !== 'name');
    });
    expect(await ids(revision)).toContain('response-required-property-removed');
  });

  it('refuses a removed path', async () => {
    const revision = planted((doc) => delete doc.paths['/api/v1/audit-events']);
    expect(await ids(revision)).toContain('api-path-removed-without-deprecation');
  });

  it('refuses a new required body field', async () => {
    const revision = planted((doc) => {
      const create = doc.components.schemas.ProjectCreate;
      create.properties!.colour = { type: 'string' };
      create.required = [...create.required!, 'colour'];
    });
    expect(await ids(revision)).toContain('new-required-request-property');
  });

  it('refuses a new required query parameter', async () => {
    const revision = planted((doc) => {
      const list = doc.paths['/api/v1/projects'].get;
      list.parameters = [...(list.parameters ?? []), { name: 'region', in: 'query', required: true, schema: { type: 'string' } }];
    });
    expect(await ids(revision)).toContain('new-required-request-parameter');
  });

  it('refuses a narrowed request enum and a narrowed request type', async () => {
    const enumNarrowed = planted((doc) => {
      const status = doc.components.schemas.ProjectCreate.properties!.status;
      status.enum = status.enum!.filter((v) => v !== 'archived');
    });
    expect(await ids(enumNarrowed)).toContain('request-property-enum-value-removed');
    const typeNarrowed = planted((doc) => {
      doc.components.schemas.ProjectCreate.properties!.wikiContent.type = 'string';
    });
    expect(await ids(typeNarrowed)).toContain('request-property-became-not-nullable');
  });

  it('accepts added optional fields, in an answer and in a body', async () => {
    const revision = planted((doc) => {
      doc.components.schemas.Project.properties!.colour = { type: 'string' };
      doc.components.schemas.ProjectCreate.properties!.colour = { type: 'string' };
    });
    expect(await breakingChanges(published, revision)).toEqual([]);
  });
});
