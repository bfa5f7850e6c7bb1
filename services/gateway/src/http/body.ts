import getRawBody from 'raw-body';
import { DomainError } from '@cluster/platform';
import type { GatewayContext } from './context.ts';

export const BODY_LIMIT = 1024 * 1024;

/** Reads the raw body (1 MiB limit: 413 payload_too_large) and parses JSON (400 when it is not JSON). */
export async function readJsonBody(ctx: GatewayContext): Promise<{ raw: string; json: unknown }> {
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

/** Pipeline step 5: the raw and parsed body of a write; GET and DELETE are not read. */
export async function readRequestBody(ctx: GatewayContext): Promise<{ raw: string; json: unknown }> {
  return ctx.method === 'GET' || ctx.method === 'DELETE' ? { raw: '', json: undefined } : readJsonBody(ctx);
}
