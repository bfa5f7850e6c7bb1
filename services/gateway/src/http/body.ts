import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { DomainError } from '@cluster/platform';

export const BODY_LIMIT = 1024 * 1024;

/** Reads the raw body (1 MiB limit: 413 payload_too_large) and parses JSON (400 when it is not JSON). */
export async function readJsonBody(ctx: Context): Promise<{ raw: string; json: unknown }> {
  let raw: string;
  try {
    raw = await getRawBody(ctx.req, { limit: BODY_LIMIT, encoding: 'utf8', length: ctx.get('content-length') || undefined });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') {
      throw new DomainError('payload_too_large', `request body is larger than ${BODY_LIMIT} bytes`);
    }
    throw new DomainError('validation_error', 'request body could not be read');
  }
  if (raw.trim() === '') return { raw, json: undefined };
  try {
    return { raw, json: JSON.parse(raw) };
  } catch {
    throw new DomainError('validation_error', 'request body is not valid JSON', {
      errors: [{ path: '', message: 'is not valid JSON' }],
    });
  }
}
