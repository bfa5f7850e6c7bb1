import { readFileSync } from 'node:fs';

// Reading one setting: typed, bounded, a bad value a ConfigError naming it.

/** A missing or malformed setting: the process refuses to start. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A required string, or its fallback. */
export function str(name: string, fallback?: string): string {
  const v = process.env[name];
  if (v !== undefined && v !== '') return v;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`${name} is required`);
}

/** A string that may be unset (empty counts as unset). */
export function optionalStr(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** A number (decimals allowed) in min..max, or `fallback` when unset. */
export function num(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new ConfigError(`${name} must be a number in ${min}..${max}, got ${raw}`);
  return n;
}

/** An integer in min..max, or its fallback. */
export function int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be an integer in ${min}..${max}, got ${raw}`);
  return n;
}

/** true/1 or false/0, or its fallback. */
export function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got ${raw}`);
}

/** One of a fixed set of words (a log level, a mode). */
export function oneOf<const T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got ${raw}`);
  return raw as T;
}

/** A comma-separated list, blanks dropped. */
export function list(name: string, fallback: string): string[] {
  return str(name, fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * A secret given as `NAME` or in the file `NAME_FILE` (a mounted Secret), read once at start and
 * trimmed (a file written by `echo` ends with a newline); both set is refused.
 */
export function secret(name: string): string | undefined {
  const direct = optionalStr(name);
  const file = optionalStr(`${name}_FILE`);
  if (direct !== undefined && file !== undefined) throw new ConfigError(`set ${name} or ${name}_FILE, not both`);
  if (file === undefined) return direct;
  const value = fileContents(`${name}_FILE`)!.trim();
  if (!value) throw new ConfigError(`${name}_FILE (${file}) is empty`);
  return value;
}

/** The contents of the file a setting names, undefined when unset; unreadable is a ConfigError naming the setting. */
export function fileContents(name: string): string | undefined {
  const file = optionalStr(name);
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}
