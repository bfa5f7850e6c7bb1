import type { WebhookEnvelope } from './events.ts';

/**
 * A subscription's filter on the event's attributes and payload (docs/webhooks.md, "Filters";
 * docs/decisions-webhooks.md, "Attribute and payload filter"): Hookdeck Outpost's JSON filter syntax,
 * a JSON object matched against what the subscription would receive, checked when it is saved
 * (`checkWebhookFilter`) and evaluated at fan-out (`matchesWebhookFilter`).
 */

/** The operators that compare the value they sit on with their operand. */
export const FILTER_COMPARISONS = [
  '$eq',
  '$neq',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$startsWith',
  '$endsWith',
  '$exist',
] as const;
/** The operators that combine conditions on the value they sit on. */
export const FILTER_LOGICAL = ['$or', '$and', '$not'] as const;
export type FilterComparison = (typeof FILTER_COMPARISONS)[number];

/**
 * Bounds of a filter, checked when it is saved: its JSON at most `bytes` long (UTF-8), conditions nested at
 * most `depth` deep, at most `nodes` values in all, lists (operands of `$in`, `$or`, …) at most `listItems` long.
 * `steps` bounds one evaluation (each condition applied to one value is a step): past it the event does not pass.
 */
export const WEBHOOK_FILTER_LIMITS = { bytes: 4096, depth: 8, nodes: 256, listItems: 64, steps: 100_000 } as const;

/** A problem of a filter: the JSON pointer of the bad part (under `/filter`) and what is wrong with it. */
export interface FilterProblem {
  path: string;
  message: string;
}

/** What a filter is matched against: the delivered body without its delivery id (docs/webhooks.md, "Filters"). */
export type WebhookFilterInput = Omit<WebhookEnvelope, 'id'>;

/** The filter's view of an event: the envelope the subscription would receive, less the per-subscription `id`. */
export function webhookFilterInput(envelope: WebhookEnvelope): WebhookFilterInput {
  const { id: _deliveryId, ...rest } = envelope;
  return rest;
}

const COMPARISONS: ReadonlySet<string> = new Set(FILTER_COMPARISONS);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPrimitive = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const pointer = (base: string, key: string | number) => `${base}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
const describe = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/**
 * Every problem of a filter (empty: it may be saved). `base` is the pointer of the filter in the body. A problem
 * names the part at fault: an unknown operator, an operand of the wrong type, a list too long or empty, nesting
 * too deep, or the whole filter when it is too big. Never throws, whatever it is given.
 */
export function checkWebhookFilter(filter: unknown, base = '/filter'): FilterProblem[] {
  const problems: FilterProblem[] = [];
  if (!isObject(filter)) return [{ path: base, message: `must be an object, not ${describe(filter)}` }];
  let text: string;
  try {
    text = JSON.stringify(filter);
  } catch {
    return [{ path: base, message: 'must be JSON' }];
  }
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > WEBHOOK_FILTER_LIMITS.bytes) {
    return [{ path: base, message: `is ${bytes} bytes of JSON; at most ${WEBHOOK_FILTER_LIMITS.bytes}` }];
  }
  let nodes = 0;
  const problem = (path: string, message: string) => {
    if (problems.length < 20) problems.push({ path, message });
  };
  const list = (value: unknown, path: string, what: string): value is unknown[] => {
    if (!Array.isArray(value)) {
      problem(path, `must be ${what}, not ${describe(value)}`);
      return false;
    }
    if (!value.length) problem(path, 'must not be empty');
    if (value.length > WEBHOOK_FILTER_LIMITS.listItems)
      problem(path, `has ${value.length} items; at most ${WEBHOOK_FILTER_LIMITS.listItems}`);
    return true;
  };
  const operand = (op: string, value: unknown, path: string, depth: number) => {
    switch (op) {
      case '$eq':
      case '$neq':
        literal(value, path, depth);
        return;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (typeof value !== 'number' && typeof value !== 'string')
          problem(path, `must be a number or a string, not ${describe(value)}`);
        return;
      case '$in':
      case '$nin':
        if (typeof value === 'string') return;
        if (list(value, path, 'a list of strings, numbers, booleans or nulls, or a string'))
          value.forEach((v, i) => {
            if (!isPrimitive(v)) problem(pointer(path, i), `must be a string, number, boolean or null, not ${describe(v)}`);
          });
        return;
      case '$startsWith':
      case '$endsWith':
        if (typeof value === 'string') return;
        if (list(value, path, 'a string or a list of strings'))
          value.forEach((v, i) => {
            if (typeof v !== 'string') problem(pointer(path, i), `must be a string, not ${describe(v)}`);
          });
        return;
      case '$exist':
        if (typeof value !== 'boolean') problem(path, `must be true or false, not ${describe(value)}`);
        return;
    }
  };
  // An operand of $eq/$neq is a value, not a condition: its keys are field names whatever they are.
  const literal = (value: unknown, path: string, depth: number) => {
    nodes++;
    if (depth > WEBHOOK_FILTER_LIMITS.depth) return problem(path, `nests deeper than ${WEBHOOK_FILTER_LIMITS.depth} levels`);
    if (Array.isArray(value)) value.forEach((v, i) => literal(v, pointer(path, i), depth + 1));
    else if (isObject(value)) for (const [k, v] of Object.entries(value)) literal(v, pointer(path, k), depth + 1);
  };
  const condition = (c: unknown, path: string, depth: number) => {
    nodes++;
    if (depth > WEBHOOK_FILTER_LIMITS.depth) return problem(path, `nests deeper than ${WEBHOOK_FILTER_LIMITS.depth} levels`);
    if (isPrimitive(c)) return;
    if (Array.isArray(c)) {
      if (list(c, path, 'a list')) c.forEach((v, i) => condition(v, pointer(path, i), depth + 1));
      return;
    }
    if (!isObject(c)) return problem(path, `must be JSON, not ${describe(c)}`);
    const keys = Object.keys(c);
    const comparisons = keys.filter((k) => COMPARISONS.has(k));
    const fields = keys.filter((k) => !k.startsWith('$'));
    if (comparisons.length && fields.length) {
      problem(
        path,
        `mixes operators (${comparisons.join(', ')}) with field names (${fields.join(', ')}); put each in its own condition`,
      );
    }
    for (const key of keys) {
      const value = c[key];
      const at = pointer(path, key);
      if (key === '$or' || key === '$and') {
        if (list(value, at, 'a list of conditions')) value.forEach((v, i) => condition(v, pointer(at, i), depth + 1));
      } else if (key === '$not') {
        condition(value, at, depth + 1);
      } else if (COMPARISONS.has(key)) {
        operand(key, value, at, depth + 1);
      } else if (key.startsWith('$')) {
        problem(at, `unknown operator ${key}; the operators are ${[...FILTER_COMPARISONS, ...FILTER_LOGICAL].join(', ')}`);
      } else {
        condition(value, at, depth + 1);
      }
    }
  };
  condition(filter, base, 0);
  if (nodes > WEBHOOK_FILTER_LIMITS.nodes) problem(base, `has ${nodes} values; at most ${WEBHOOK_FILTER_LIMITS.nodes}`);
  return problems;
}

/** A field the value does not have (distinct from a field that is null). */
const MISSING: unique symbol = Symbol('missing');
type Value = unknown;

class OverBudget extends Error {}

/**
 * Whether an event passes a filter. Total: any filter and any input give true or false, never an exception
 * (an evaluation past WEBHOOK_FILTER_LIMITS.steps, or nested past 4 × depth, is false). Semantics: docs/webhooks.md, "Filters".
 */
export function matchesWebhookFilter(filter: unknown, input: unknown): boolean {
  let steps = 0;
  const step = (depth: number) => {
    if (++steps > WEBHOOK_FILTER_LIMITS.steps || depth > 4 * WEBHOOK_FILTER_LIMITS.depth) throw new OverBudget();
  };

  /** `x` meets condition `c`; `spread`: a condition on an array may be met by one of its elements. */
  const test = (x: Value, c: unknown, spread: boolean, depth: number): boolean => {
    step(depth);
    // A missing field meets `{"$exist": false}` and nothing else.
    if (x === MISSING) return isObject(c) && c.$exist === false;
    if (isPrimitive(c)) {
      if (isPrimitive(x)) return x === c;
      return spread && Array.isArray(x) && x.some((e) => isPrimitive(e) && e === c);
    }
    if (Array.isArray(c)) {
      // Each listed condition is met by some element of the array (the array contains them all).
      return Array.isArray(x) && c.every((ci) => x.some((e) => test(e, ci, false, depth + 1)));
    }
    if (!isObject(c)) return false;
    const keys = Object.keys(c);
    // An object without comparisons, applied to an array: one element meets all of it.
    if (spread && Array.isArray(x) && !keys.some((k) => COMPARISONS.has(k))) {
      return x.some((e) => test(e, c, false, depth + 1));
    }
    // Field names (or none at all: `{}`) ask for an object.
    if ((!keys.length || keys.some((k) => !k.startsWith('$'))) && !isObject(x)) return false;
    for (const key of keys) {
      const operand = c[key];
      let ok: boolean;
      if (key === '$or') ok = Array.isArray(operand) && operand.some((ci) => test(x, ci, true, depth + 1));
      else if (key === '$and') ok = Array.isArray(operand) && operand.every((ci) => test(x, ci, true, depth + 1));
      else if (key === '$not') ok = !test(x, operand, true, depth + 1);
      else if (COMPARISONS.has(key)) ok = compare(key as FilterComparison, x, operand, depth + 1);
      else if (key.startsWith('$')) ok = false;
      else ok = test(Object.hasOwn(x as object, key) ? (x as Record<string, unknown>)[key] : MISSING, operand, true, depth + 1);
      if (!ok) return false;
    }
    return true;
  };

  const compare = (op: FilterComparison, x: Value, operand: unknown, depth: number): boolean => {
    step(depth);
    switch (op) {
      case '$exist':
        return operand === true; // x is present here (a missing x was answered by `test`)
      case '$eq':
        return equal(x, operand, depth);
      case '$neq':
        return !equal(x, operand, depth);
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        return ordered(op, x, operand);
      case '$in':
        return contains(x, operand) ?? false;
      case '$nin': {
        const r = contains(x, operand);
        return r === undefined ? false : !r;
      }
      case '$startsWith':
      case '$endsWith': {
        if (typeof x !== 'string') return false;
        const affixes = typeof operand === 'string' ? [operand] : Array.isArray(operand) ? operand : [];
        return affixes.some((a) => typeof a === 'string' && (op === '$startsWith' ? x.startsWith(a) : x.endsWith(a)));
      }
    }
  };

  const equal = (a: unknown, b: unknown, depth: number): boolean => {
    step(depth);
    if (isPrimitive(a) || isPrimitive(b)) return a === b;
    if (Array.isArray(a) || Array.isArray(b)) {
      return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => equal(v, b[i], depth + 1));
    }
    if (!isObject(a) || !isObject(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k], depth + 1));
  };

  return (() => {
    try {
      return test(input, filter, true, 0);
    } catch {
      return false;
    }
  })();
}

/** $gt…$lte: numbers with numbers, strings with strings; anything else does not compare. */
function ordered(op: '$gt' | '$gte' | '$lt' | '$lte', x: unknown, y: unknown): boolean {
  const comparable = (typeof x === 'number' && typeof y === 'number') || (typeof x === 'string' && typeof y === 'string');
  if (!comparable) return false;
  const [a, b] = [x, y];
  if (op === '$gt') return a > b;
  if (op === '$gte') return a >= b;
  if (op === '$lt') return a < b;
  return a <= b;
}

/**
 * $in: with a list, the value (or an element of an array value) is one of its items; with a string, the
 * value is a string holding it, or an array holding it as an element. Undefined when the types do not fit
 * (then $in and $nin are both false).
 */
function contains(x: unknown, operand: unknown): boolean | undefined {
  if (Array.isArray(operand)) {
    const inList = (v: unknown) => isPrimitive(v) && operand.some((o) => o === v);
    if (isPrimitive(x)) return inList(x);
    if (Array.isArray(x)) return x.some(inList);
    return undefined;
  }
  if (typeof operand === 'string') {
    if (typeof x === 'string') return x.includes(operand);
    if (Array.isArray(x)) return x.some((e) => e === operand);
  }
  return undefined;
}
