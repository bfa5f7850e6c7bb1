import type { Ajv, ValidateFunction } from 'ajv';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { createAjv, queryPath, toProblems, validation } from '@cluster/platform';

// The validator and the problems' shape are the platform's, which the backends check the gateway's calls with too.

const bodyAjv = createAjv();
const queryAjv = createAjv({ coerce: true });

const cache = new WeakMap<TSchema, ValidateFunction>();

function compiled(ajv: Ajv, schema: TSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

/**
 * Asserts that `value` matches the schema `fn` was compiled from: after validation the value
 * has the schema's static type. Throws 400 validation_error with every problem, `toPath` shaping each path.
 */
function check<S extends TSchema>(
  fn: ValidateFunction,
  value: unknown,
  toPath: (pointer: string) => string,
): asserts value is Static<S> {
  if (!fn(value)) throw validation(toProblems(fn.errors).map((p) => ({ path: toPath(p.path), message: p.message })));
}

/** Validates a JSON body; throws 400 validation_error listing every problem (paths are JSON pointers). */
export function validateBody<S extends TSchema>(schema: S, body: unknown): Static<S> {
  check<S>(compiled(bodyAjv, schema), body, (pointer) => pointer);
  return body;
}

/** Validates and coerces query parameters (page, pageSize, filters). Unknown parameters are ignored. */
export function validateQuery<S extends TObject>(schema: S, query: Record<string, unknown>): Static<S> {
  const copy: unknown = { ...query };
  check<S>(compiled(queryAjv, schema), copy, queryPath);
  return copy;
}
