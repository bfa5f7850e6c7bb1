import { createHash } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import { DomainError, type SecretBox } from '@cluster/platform';
import type { Clients } from '../clients.ts';
import type { GatewayContext } from './context.ts';
import type { RouteResult } from './route.ts';

const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;
/** Response headers worth replaying with a stored answer. */
const REPLAYED_HEADERS = ['location', 'retry-after'];

/**
 * Runs a POST under its Idempotency-Key (docs/decisions-api.md): a replay returns the
 * stored answer with Idempotent-Replayed: true; another body under the same key is
 * 422; a key still running is 409; 5xx answers are not stored.
 *
 * A replay calls no backend operation, so nothing else would check the API key: `confirmKey`
 * (a fresh check of the key with the core, unless this request already made one) runs before a
 * stored answer is served, so a key revoked since its answer was stored gets 401, not the answer.
 */
export async function withIdempotency(
  clients: Clients,
  box: SecretBox,
  apiKeyId: string,
  key: string,
  request: { method: string; path: string; rawBody: string },
  run: () => Promise<RouteResult>,
  confirmKey: () => Promise<void>,
): Promise<RouteResult> {
  if (!KEY_PATTERN.test(key)) {
    throw new DomainError('validation_error', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
      errors: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  }
  const fingerprint = createHash('sha256').update(`${request.method}\n${request.path}\n${request.rawBody}`).digest('hex');
  const begun = await clients.idempotency.beginIdempotent({ apiKeyId, key, fingerprint });
  if (begun.state === 'mismatch') {
    throw new DomainError('idempotency_key_reused', 'this Idempotency-Key was used with another method, path or body');
  }
  if (begun.state === 'in_use') {
    throw new DomainError('idempotency_key_in_use', 'a request with this Idempotency-Key is still in progress');
  }
  if (begun.state === 'replay') {
    await confirmKey();
    const sealed = (begun.body as { sealed?: string } | undefined)?.sealed;
    return {
      status: begun.status,
      body: sealed ? Buffer.from(box.open(sealed, `${apiKeyId}|${key}`)) : undefined,
      headers: { ...((begun.headers as Record<string, string>) ?? {}), 'Idempotent-Replayed': 'true' },
    };
  }
  let result: RouteResult;
  try {
    result = await run();
  } catch (err) {
    const status = err instanceof DomainError ? err.status : 500;
    if (status >= 500 || !(err instanceof DomainError)) {
      await clients.idempotency.releaseIdempotent({ apiKeyId, key }).catch(() => {});
      throw err;
    }
    await store(clients, box, apiKeyId, key, { status, body: Buffer.from(JSON.stringify(errorBodyOf(err))) });
    throw err;
  }
  await store(clients, box, apiKeyId, key, result);
  return result;
}

function errorBodyOf(err: DomainError): unknown {
  return err.details
    ? { reason: err.reason, message: err.message, details: err.details }
    : { reason: err.reason, message: err.message };
}

/**
 * Stores an answer for replay. The body is sealed (AES-256-GCM, bound to the API key
 * and Idempotency-Key): answers can hold secrets shown once, such as a webhook's
 * hmacSecret, and must not sit in clear in the database for 24 hours. What is sealed is
 * the answer's JSON text exactly as it was written, and a replay writes that text again.
 */
async function store(clients: Clients, box: SecretBox, apiKeyId: string, key: string, result: RouteResult): Promise<void> {
  const headers: JsonObject = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) if (REPLAYED_HEADERS.includes(k.toLowerCase())) headers[k] = v;
  await clients.idempotency.completeIdempotent({
    apiKeyId,
    key,
    status: result.status,
    body: result.body === undefined ? undefined : { sealed: box.seal(Buffer.from(result.body).toString(), `${apiKeyId}|${key}`) },
    headers,
  });
}

/**
 * Pipeline step 6: a POST with an Idempotency-Key header runs under that key (withIdempotency, which
 * calls `confirmKey` before it serves a stored answer); any other request just runs.
 */
export function runIdempotent(
  ctx: GatewayContext,
  clients: Clients,
  box: SecretBox,
  apiKeyId: string,
  rawBody: string,
  run: () => Promise<RouteResult>,
  confirmKey: () => Promise<void>,
): Promise<RouteResult> {
  if (ctx.method !== 'POST' || ctx.headers['idempotency-key'] === undefined) return run();
  return withIdempotency(
    clients,
    box,
    apiKeyId,
    ctx.get('idempotency-key'),
    { method: ctx.method, path: ctx.path, rawBody },
    run,
    confirmKey,
  );
}
