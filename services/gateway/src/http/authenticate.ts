import { DomainError, fromConnectError } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { Clients } from '../clients.ts';
import type { GatewayContext } from './context.ts';

/** The API key a request carries: `Authorization: Bearer <key>`, else `X-API-Key`; empty when neither. */
export function apiKeyOf(authorization: string, xApiKey: string): string {
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim();
  return bearer || xApiKey.trim();
}

/**
 * Pipeline step 2: the actor of the request's API key (401 missing_key without one; the
 * core answers invalid_key or key_revoked), and whether its organization has the v1 API on.
 */
export async function authenticate(ctx: GatewayContext, clients: Clients): Promise<{ actor: Actor; apiEnabled: boolean }> {
  const key = apiKeyOf(ctx.get('authorization'), ctx.get('x-api-key'));
  if (!key) throw new DomainError('missing_key', 'no API key: send Authorization: Bearer <key> or X-API-Key');
  try {
    const res = await clients.auth.authenticate({ key, requestId: ctx.state.requestId });
    return { actor: res.actor!, apiEnabled: res.apiEnabled };
  } catch (err) {
    throw fromConnectError(err) ?? err;
  }
}
