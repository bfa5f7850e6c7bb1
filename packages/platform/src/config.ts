/** Small helpers to read configuration once at boot and fail fast on bad values. */
export class ConfigError extends Error {}

export function str(name: string, fallback?: string): string {
  const v = process.env[name];
  if (v !== undefined && v !== '') return v;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`${name} is required`);
}

export function optionalStr(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
}

export function int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer in ${min}..${max}, got ${raw}`);
  return n;
}

export function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got ${raw}`);
}

/** Base URLs of the backend services, as the gateway and CLI see them. */
export function serviceUrls() {
  return {
    core: str('CORE_URL', `http://127.0.0.1:${int('CORE_PORT', 50051)}`),
    delivery: str('DELIVERY_URL', `http://127.0.0.1:${int('DELIVERY_PORT', 50052)}`),
    evidence: str('EVIDENCE_URL', `http://127.0.0.1:${int('EVIDENCE_PORT', 50053)}`),
  };
}
