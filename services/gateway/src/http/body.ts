import getRawBody from 'raw-body';
import { DomainError } from '@cluster/platform';
import type { GatewayContext } from './context.ts';
import { assertJsonMediaType, assertSafeJson } from './safe-input.ts';

export const BODY_LIMIT = 1024 * 1024;

/** The request's exact body bytes, at most `limit` of them (else 413 payload_too_large). */
export async function readRawBody(ctx: GatewayContext, limit: number): Promise<Buffer> {
  try {
    return await getRawBody(ctx.req, { limit, length: ctx.get('content-length') || undefined });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') {
      throw new DomainError('payload_too_large', `request body is larger than ${limit} bytes`);
    }
    throw new DomainError('validation_error', 'request body could not be read');
  }
}

/**
 * Reads the raw body (1 MiB limit: 413 payload_too_large) and parses JSON: a body declared as anything but JSON is
 * 415 unsupported_media_type, one that is not JSON, nests deeper than MAX_JSON_DEPTH or holds a NUL is 400.
 */
export async function readJsonBody(ctx: GatewayContext): Promise<{ raw: string; json: unknown }> {
  const raw = (await readRawBody(ctx, BODY_LIMIT)).toString('utf8');
  if (raw.trim() === '') return { raw, json: undefined };
  assertJsonMediaType(ctx.request.type);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new DomainError('validation_error', 'request body is not valid JSON', {
      errors: [{ path: '', message: 'is not valid JSON' }],
    });
  }
  assertSafeJson(json);
  return { raw, json };
}

/** Pipeline step 5: the raw and parsed body of a write; GET and DELETE are not read. */
export async function readRequestBody(ctx: GatewayContext): Promise<{ raw: string; json: unknown }> {
  return ctx.method === 'GET' || ctx.method === 'DELETE' ? { raw: '', json: undefined } : readJsonBody(ctx);
}
