import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { Body, ListQuery, StringEnum } from '@cluster/contracts';
import { DomainError, jsonBytes } from '@cluster/platform';
import { create } from '@bufbuild/protobuf';
import { ActorSchema } from '@cluster/proto';
import { createClients } from '../clients.ts';
import { ok } from './results.ts';
import { handler, toRoute, type RouteRequest, type RouteResult } from './route.ts';

const ThingCreate = Body({ name: Type.String({ minLength: 1 }), size: Type.Integer() }, { required: ['name'] });
const ThingQuery = ListQuery({ colour: StringEnum(['red', 'blue']) });

// The route's handler echoes what it was given: the test reads the validated input back.
const echo = toRoute(
  {
    method: 'POST',
    path: '/things',
    summary: 'Create a thing',
    tag: 'things',
    tool: false,
    body: ThingCreate,
    query: ThingQuery,
    response: { status: 201 },
  },
  handler({ body: ThingCreate, query: ThingQuery }, async ({ body, query, params }) => ({
    status: 201,
    body: jsonBytes({ name: body.name, size: body.size ?? null, query, params }),
  })),
);
const bare = toRoute(
  { method: 'POST', path: '/things/:id/poke', summary: 'Poke a thing', tag: 'things', tool: false, response: { status: 200 } },
  handler({}, async ({ body, query }) => ok(jsonBytes({ body, query }))),
);

// Never called: the handlers here do not reach a backend.
const clients = createClients(
  { core: 'http://127.0.0.1:9', delivery: 'http://127.0.0.1:9', evidence: 'http://127.0.0.1:9' },
  () => Promise.reject(new Error('no backend here')),
);
const request = (json: unknown, query: Record<string, unknown> = {}): RouteRequest => ({
  actor: create(ActorSchema, {}),
  params: { id: 't1' },
  json,
  query,
  clients,
});

/** A run's result with its JSON body parsed. */
async function parsed(run: Promise<RouteResult>): Promise<{ status: number; body: unknown }> {
  const { status, body } = await run;
  return { status, body: body && JSON.parse(Buffer.from(body).toString()) };
}

/** The problems of the 400 a run throws. */
async function problems(run: Promise<unknown>): Promise<unknown> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error('expected a DomainError');
  expect(err.reason).toBe('validation_error');
  return err.details?.errors;
}

describe('toRoute', () => {
  it('keeps the operation for the table and the OpenAPI document, without the handler', () => {
    expect(echo).toMatchObject({
      method: 'POST',
      path: '/things',
      body: ThingCreate,
      query: ThingQuery,
      response: { status: 201 },
    });
    expect(echo).not.toHaveProperty('handler');
  });

  it('hands the handler the validated body and the coerced query, with defaults', async () => {
    const result = await parsed(echo.run(request({ name: 'a', size: 2 }, { colour: 'red', pageSize: '5', other: 'kept' })));
    expect(result).toEqual({
      status: 201,
      body: { name: 'a', size: 2, query: { colour: 'red', page: 1, pageSize: 5, other: 'kept' }, params: { id: 't1' } },
    });
  });

  it('answers 400 with every body problem, before the query is read', async () => {
    expect(await problems(echo.run(request({ size: 'big', extra: 1 }, { colour: 'green' })))).toEqual([
      { path: '/name', message: 'is required' },
      { path: '/extra', message: 'is not a known property' },
      { path: '/size', message: 'must be integer' },
    ]);
  });

  it('reads a missing body as {} (so its required fields are reported) and names query problems without a slash', async () => {
    expect(await problems(echo.run(request(undefined)))).toEqual([{ path: '/name', message: 'is required' }]);
    expect(await problems(echo.run(request({ name: 'a' }, { colour: 'green' })))).toEqual([
      { path: 'colour', message: 'must be one of: red, blue' },
    ]);
  });

  it('gives a route without schemas empty input, whatever the request carried', async () => {
    expect(await parsed(bare.run(request([1, 2], { q: 'x' })))).toEqual({ status: 200, body: { body: {}, query: {} } });
  });
});
