/**
 * Durations and work dates of time entries, as pure functions: the one place
 * where hours strings, minutes and dates are parsed, checked and formatted.
 */

/** Bounds of `minutes` on create, update and sync (spec, "Limits"). */
export const MIN_MINUTES = 1;
export const MAX_MINUTES = 1440;

/** A problem in a body, as the gateway reports it: a JSON pointer and a message. */
export interface Problem {
  path: string;
  message: string;
}

const HOURS = /^\d{1,5}(\.\d{1,2})?$/;

/**
 * Minutes of an `hours` decimal string ("2.5", "1.67"), rounded half up to the
 * whole minute; undefined when it is not a decimal with at most 2 decimals.
 * Integer arithmetic on hundredths of an hour, so no float drift.
 */
export function hoursToMinutes(hours: string): number | undefined {
  if (!HOURS.test(hours)) return undefined;
  const [whole, frac = ''] = hours.split('.');
  const hundredths = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  // hundredths * 60 / 100 = hundredths * 0.6, rounded half up.
  return Math.floor((hundredths * 6 + 5) / 10);
}

/** `hours` of an answer: minutes / 60 with exactly 2 decimals, rounded half up ("2.50"). */
export function formatHours(minutes: number): string {
  // minutes * 100 / 60 rounded half up, in integers.
  const hundredths = Math.floor((minutes * 10 + 3) / 6);
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
}

/**
 * The minutes a body asks for, from `minutes`, `hours` or both (they must agree:
 * `hours` rounded to the minute equals `minutes`). `required`: one of them must be there.
 * Returns the minutes (undefined when neither is given) or the problems.
 */
export function resolveMinutes(
  body: { minutes?: unknown; hours?: unknown },
  required: boolean,
): { minutes?: number; problems: Problem[] } {
  const problems: Problem[] = [];
  const hasMinutes = body.minutes !== undefined;
  const hasHours = body.hours !== undefined;
  if (!hasMinutes && !hasHours) {
    if (required) problems.push({ path: '/minutes', message: 'minutes or hours is required' });
    return { problems };
  }
  let minutes: number | undefined;
  if (hasMinutes) {
    const m = body.minutes;
    if (typeof m !== 'number' || !Number.isInteger(m) || m < MIN_MINUTES || m > MAX_MINUTES) {
      problems.push({ path: '/minutes', message: `must be an integer from ${MIN_MINUTES} to ${MAX_MINUTES}` });
    } else {
      minutes = m;
    }
  }
  if (hasHours) {
    const fromHours = typeof body.hours === 'string' ? hoursToMinutes(body.hours) : undefined;
    if (fromHours === undefined) {
      problems.push({ path: '/hours', message: 'must be a decimal string with at most 2 decimals, for example "2.5"' });
    } else if (fromHours < MIN_MINUTES || fromHours > MAX_MINUTES) {
      problems.push({ path: '/hours', message: `must amount to ${MIN_MINUTES} to ${MAX_MINUTES} minutes (0.01 to 24 hours)` });
    } else if (minutes !== undefined && fromHours !== minutes) {
      problems.push({
        path: '/hours',
        message: `does not agree with minutes: ${String(body.hours)} hours is ${fromHours} minutes, not ${minutes}`,
      });
    } else {
      minutes = fromHours;
    }
  }
  return problems.length ? { problems } : { minutes, problems };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))?$/;

function realDate(y: string, m: string, d: string): boolean {
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d);
}

/**
 * The calendar date (YYYY-MM-DD) of a `workDate`, or undefined when it is not a
 * real date. With `allowDateTime` (sync) an ISO 8601 date-time is accepted too, and
 * its date is taken as written: the work day in the sender's own offset, never
 * shifted to UTC ("2026-03-05T23:30:00-05:00" is 2026-03-05).
 */
export function parseWorkDate(value: unknown, allowDateTime = false): string | undefined {
  if (typeof value !== 'string') return undefined;
  const d = DATE.exec(value);
  if (d) return realDate(d[1], d[2], d[3]) ? value : undefined;
  if (!allowDateTime) return undefined;
  const t = DATE_TIME.exec(value);
  if (!t || !realDate(t[1], t[2], t[3])) return undefined;
  if (Number(t[4]) > 23 || Number(t[5]) > 59 || (t[6] !== undefined && Number(t[6]) > 59)) return undefined;
  if (t[7] !== undefined && (Number(t[7]) > 23 || Number(t[8]) > 59)) return undefined;
  return `${t[1]}-${t[2]}-${t[3]}`;
}

/** A `date` column as YYYY-MM-DD (node-postgres gives a Date at local midnight). */
export function formatWorkDate(value: unknown): string {
  if (value instanceof Date) {
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`;
  }
  return String(value).slice(0, 10);
}
