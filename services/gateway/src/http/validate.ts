import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { validation } from '@cluster/platform';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false }));
const queryAjv = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true }));

const cache = new WeakMap<TSchema, ValidateFunction>();

function compiled(ajv: Ajv, schema: TSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

/** Ajv errors as the spec's `{path, message}` list with JSON pointers into the body. */
export function toProblems(errors: ErrorObject[] | null | undefined): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    let path = e.instancePath;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      path = `${path}/${(e.params as { missingProperty: string }).missingProperty}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path = `${path}/${(e.params as { additionalProperty: string }).additionalProperty}`;
      message = 'is not a known property';
    } else if (e.keyword === 'enum') {
      message = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.filter((v) => v !== null).join(', ')}`;
    }
    const key = `${path}|${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ path, message });
    }
  }
  return out;
}

/** Validates a JSON body; throws 400 validation_error listing every problem. */
export function validateBody(schema: TSchema, body: unknown): void {
  const fn = compiled(bodyAjv, schema);
  if (!fn(body)) throw validation(toProblems(fn.errors));
}

/** Validates and coerces query parameters (page, pageSize, filters). Unknown parameters are ignored. */
export function validateQuery(schema: TSchema, query: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...query };
  const fn = compiled(queryAjv, schema);
  if (!fn(copy)) {
    throw validation(toProblems(fn.errors).map((p) => ({ path: p.path.replace(/^\//, ''), message: p.message })));
  }
  return copy;
}
