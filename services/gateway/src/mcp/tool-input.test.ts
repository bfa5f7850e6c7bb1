import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DATE_OR_DATE_TIME_FORMAT } from '@cluster/contracts';
import { DomainError } from '@cluster/platform';
import { ActorSchema } from '@cluster/proto';
import type { ServiceClients } from '../clients.ts';
import { createAjv } from '../http/validate.ts';
import { routes } from '../routes.ts';
import { toolInput } from './tool-input.ts';
import { toolRoutes } from './tools.ts';

/** The JSON Schema keywords the tools' input schemas use (TypeBox's output for our contracts). */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

const DAY_MS = 86_400_000;
/** An instant in years 1970..2100, as the API's date-times are. */
const instant = fc.integer({ min: 0, max: 47_482 * DAY_MS }).map((ms) => new Date(ms));
const FORMATS: Record<string, fc.Arbitrary<string>> = {
  uuid: fc.uuid({ version: 4 }),
  'date-time': instant.map((d) => d.toISOString()),
  date: instant.map((d) => d.toISOString().slice(0, 10)),
  [DATE_OR_DATE_TIME_FORMAT]: fc.oneof(
    instant.map((d) => d.toISOString()),
    instant.map((d) => d.toISOString().slice(0, 10)),
  ),
};

/** Values a schema accepts: a generator of the subset of JSON Schema the tool schemas use (others fail the test). */
function arbitraryOf(schema: Schema, where: string): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.type === undefined) return fc.jsonValue({ maxDepth: 3 }); // no constraint: any JSON value
  if (Array.isArray(schema.type))
    return fc.oneof(
      ...schema.type.map((type) => (type === 'null' ? fc.constant(null) : arbitraryOf({ ...schema, type }, where))),
    );
  switch (schema.type) {
    case 'string': {
      const bounded = (s: string) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity);
      if (schema.format) {
        const format = FORMATS[schema.format];
        if (!format) throw new Error(`${where}: no generator for format ${schema.format}`);
        return schema.pattern ? format.filter((s) => new RegExp(schema.pattern!, 'u').test(s)) : format;
      }
      const text = schema.pattern
        ? fc.stringMatching(new RegExp(schema.pattern, 'u'))
        : fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
      return text.filter(bounded);
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'object': {
      const entries = Object.entries(schema.properties ?? {});
      const record = Object.fromEntries(entries.map(([name, s]) => [name, arbitraryOf(s, `${where}/${name}`)]));
      return fc.record(record, { requiredKeys: schema.required ?? [] });
    }
    default:
      throw new Error(`${where}: no generator for ${JSON.stringify(schema)}`);
  }
}

/** Stands in for every backend: the first call of a handler throws this, proving validation let the input through. */
class ReachedBackend extends Error {}
const backends: ServiceClients = {
  of: () =>
    new Proxy(
      {},
      {
        get: () => () => {
          throw new ReachedBackend();
        },
      },
    ) as never,
};

const tools = toolRoutes(routes);
const ajv = createAjv();

describe('every tool’s input schema is exactly its route’s validation', () => {
  it('there are tools, each named once', () => {
    expect(tools.length).toBeGreaterThan(0);
    expect(new Set(tools.map((t) => t.spec.name)).size).toBe(tools.length);
  });

  for (const { spec, route } of tools) {
    it(`${spec.name} (${spec.method} ${spec.path}): an input its schema accepts passes the route's validation`, async () => {
      const input = toolInput(route);
      const accepts = ajv.compile(input.schema);
      const actor = create(ActorSchema, {});
      await fc.assert(
        fc.asyncProperty(arbitraryOf(input.schema as Schema, spec.name), async (args) => {
          // The generator's own check: what it makes, the tool's schema accepts.
          expect(accepts(args), JSON.stringify(accepts.errors)).toBe(true);
          const request = input.split(args as Record<string, unknown>);
          const outcome = await route.run({ actor, ...request, clients: backends }).then(
            () => 'answered',
            (err: unknown) => err,
          );
          if (outcome instanceof DomainError) expect.fail(`${outcome.message}: ${JSON.stringify(outcome.details)}`);
          expect(outcome === 'answered' || outcome instanceof ReachedBackend, String(outcome)).toBe(true);
        }),
        { numRuns: 60 },
      );
    });
  }

  it('a tool whose route needs a query field requires it too (search needs q)', () => {
    const search = tools.find((t) => t.spec.path === '/search');
    expect(search && toolInput(search.route).schema.required).toContain('q');
  });
});
