import { DomainError, validation } from '@cluster/platform';

/**
 * How deeply a body may nest objects and arrays (the body itself is level 1); deeper is 400 before anything recursive
 * runs. Bodies cross the RPCs as google.protobuf.Struct, two messages per JSON level, and protobuf decoding stops at
 * 100 nested messages (a 500 from 40-odd levels): 32 leaves room for the envelope of any request or answer.
 */
export const MAX_JSON_DEPTH = 32;

type Problem = { path: string; message: string };

const pointer = (path: string, key: string | number): string => `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * Walks a parsed body once: a NUL character in any string or key (Postgres refuses it) is a problem at
 * its JSON pointer; nesting deeper than MAX_JSON_DEPTH stops the walk. The recursion is bounded by the depth.
 */
function walk(value: unknown, path: string, depth: number, problems: Problem[]): void {
  if (typeof value === 'string') {
    if (value.includes('\0')) problems.push({ path, message: 'must not contain a NUL character' });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth > MAX_JSON_DEPTH) {
    throw validation([{ path, message: `is nested deeper than ${MAX_JSON_DEPTH} levels` }]);
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, pointer(path, i), depth + 1, problems));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = pointer(path, key);
    if (key.includes('\0')) problems.push({ path: at, message: 'must not contain a NUL character in its name' });
    walk(item, at, depth + 1, problems);
  }
}

/**
 * Right after parsing: refuses a body nested deeper than MAX_JSON_DEPTH, or with a NUL character in any
 * string or key, as 400 validation_error naming each path (JSON pointers), before any schema or service sees it.
 */
export function assertSafeJson(json: unknown): void {
  const problems: Problem[] = [];
  walk(json, '', 1, problems);
  if (problems.length) throw validation(problems);
}

/** Every query value of the request: a NUL character is 400 validation_error naming the parameter. */
export function assertSafeQuery(query: Record<string, string | string[] | undefined>): void {
  const problems: Problem[] = [];
  for (const [name, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value ?? ''];
    if (name.includes('\0') || values.some((v) => v.includes('\0'))) {
      problems.push({ path: name, message: 'must not contain a NUL character' });
    }
  }
  if (problems.length) throw validation(problems);
}

/** JSON and its structured suffix (`application/problem+json`, ...): the only bodies the API reads. */
export function isJsonMediaType(type: string): boolean {
  const t = type.toLowerCase();
  return t === 'application/json' || (t.startsWith('application/') && t.endsWith('+json'));
}

/** A write with a body of another media type (text/plain, a form, none declared) is 415 unsupported_media_type. */
export function assertJsonMediaType(type: string): void {
  if (!isJsonMediaType(type)) {
    throw new DomainError('unsupported_media_type', `request body must be application/json, not ${type || 'undeclared'}`, {
      contentType: type,
    });
  }
}
