import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { DATE_OR_DATE_TIME_FORMAT, YEAR_PATTERN } from '@cluster/contracts';
import { validation } from '@cluster/platform';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type FormatCheck = ((s: string) => boolean) | RegExp | { validate: ((s: string) => boolean) | RegExp };
const passes = (check: FormatCheck | undefined, s: string): boolean => {
  const v = check && typeof check === 'object' && 'validate' in check ? check.validate : check;
  return typeof v === 'function' ? v(s) : v instanceof RegExp ? v.test(s) : false;
};

/**
 * An Ajv with the standard formats and ours: `date-or-date-time` (DateOrDateTime of
 * @cluster/contracts) is a calendar date or a date-time, each by its own standard rule.
 */
export function createAjv(options: { coerce?: boolean } = {}): Ajv {
  const ajv = addFormats(
    new Ajv({ allErrors: true, strict: false, ...(options.coerce ? { coerceTypes: true, useDefaults: true } : {}) }),
  );
  const date = fullFormats.date as FormatCheck;
  const dateTime = fullFormats['date-time'] as FormatCheck;
  ajv.addFormat(DATE_OR_DATE_TIME_FORMAT, { type: 'string', validate: (s: string) => passes(date, s) || passes(dateTime, s) });
  return ajv;
}

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

/** Ajv errors as the spec's `{path, message}` list with JSON pointers into the body. */
export function toProblems(errors: ErrorObject[] | null | undefined): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  // A value not in its format at all (a date of 'x') gets the format's message only, not the year pattern's too.
  const badFormat = new Set((errors ?? []).filter((e) => e.keyword === 'format').map((e) => e.instancePath));
  for (const e of errors ?? []) {
    let path = e.instancePath;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'pattern' && (e.params as { pattern: string }).pattern === YEAR_PATTERN) {
      if (badFormat.has(path)) continue;
      message = 'must have a year from 0001 to 9999, in UTC too';
    } else if (e.keyword === 'required') {
      path = `${path}/${(e.params as { missingProperty: string }).missingProperty}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path = `${path}/${(e.params as { additionalProperty: string }).additionalProperty}`;
      message = 'is not a known property';
    } else if (e.keyword === 'enum') {
      message = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues
        .filter((v) => v !== null)
        .map((v) => String(v as string | number))
        .join(', ')}`;
    }
    const key = `${path}|${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ path, message });
    }
  }
  return out;
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
  check<S>(compiled(queryAjv, schema), copy, (pointer) => pointer.replace(/^\//, ''));
  return copy;
}
