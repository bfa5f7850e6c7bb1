// The cluster's one JSON Schema validator: the gateway validates requests with it, and each backend
// checks the bodies and queries of the gateway's calls with it again (operation-rules.ts), so that
// both answer the same 400 validation_error with the same problems.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { DATE_OR_DATE_TIME_FORMAT, YEAR_PATTERN } from '@cluster/contracts';

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

/** A validation problem: a JSON pointer into the body (a parameter's name in a query) and what is wrong there. */
export interface Problem {
  path: string;
  message: string;
}

/** Ajv errors as the spec's `{path, message}` list with JSON pointers into the body. */
export function toProblems(errors: ErrorObject[] | null | undefined): Problem[] {
  const out: Problem[] = [];
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

/** A query parameter's problem path: its name, as the gateway reports it (`pageSize`, not `/pageSize`). */
export const queryPath = (pointer: string): string => pointer.replace(/^\//, '');
