import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError, createAjv } from '@cluster/platform';
import { ActorSchema } from '@cluster/proto';
import { routes, toolInput, toolRoutes, type ServiceClients } from '@cluster/gateway';
import { validValue, type JsonSchema, type ValuePools } from './support/schema-arbitrary.ts';

// The tool-protocol endpoint's promise (issue 28): a tool's input schema is exactly its route's
// validation. For every tool, inputs drawn from what its schema accepts (the fuzz test's generator)
// pass the route's own body and query validation; none fails for a missing or mistyped field.

/** Plain values: no id pool (any UUID is a well-formed id), no receiver, no vocabulary. */
const POOLS: ValuePools = { idsFor: () => [], urlBase: 'https://receiver.example', words: [] };

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
        fc.asyncProperty(validValue(input.schema as JsonSchema, POOLS), async (args) => {
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
