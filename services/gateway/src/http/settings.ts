import { createHash } from 'node:crypto';
import type { Next } from 'koa';
import { DomainError } from '@cluster/platform';
import type { Clients } from '../clients.ts';
import { nameRequest, type GatewayContext } from './context.ts';
import type { FailureLimit } from './failure-limit.ts';

/** Where the settings routes live (outside /api/v1: sessions are not part of v1). */
export const EVIDENCE_KEY_SETTINGS = '/api/settings/evidence-key';

/** The shape of a session token `admin session create` mints (32 random bytes, base64url). */
const SESSION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * `GET/POST /api/settings/evidence-key` (docs/decisions-api.md, "Evidence key settings"): for an
 * organization admin with a settings session (cookie `session`, minted by `admin session create`).
 * No session (an API key is no session): 401; the evidence service has the core check the
 * session and answers 401 for an unknown or expired one, 403 for a user who is not an admin.
 * A POST from a page of another origin is refused (the cookie would ride along: CSRF).
 * A session that fails counts against the client address's limit of failed authentications, the
 * same one as API keys and code-host signatures (failure-limit.ts): session tokens cannot be
 * guessed here faster than keys can.
 */
export function createSettingsRoutes(clients: Clients, failureLimit: FailureLimit) {
  return async function settingsRoutes(ctx: GatewayContext, next: Next): Promise<void> {
    if (ctx.path !== EVIDENCE_KEY_SETTINGS) return void (await next());
    nameRequest(ctx, EVIDENCE_KEY_SETTINGS);
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.set('Allow', 'GET, POST');
      throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
    }
    const origin = ctx.get('origin');
    if (ctx.method === 'POST' && origin && origin !== ctx.origin)
      throw new DomainError('forbidden', 'a settings change must come from this origin');
    const sessionToken = ctx.cookies.get('session');
    if (!sessionToken)
      throw new DomainError('unauthorized', 'a settings session is required (cookie session; admin session create)');
    const proof = {
      id: createHash('sha256').update(sessionToken).digest('base64'),
      wellFormed: SESSION_TOKEN.test(sessionToken),
    };
    const sessionArgs = { sessionToken };
    // The failure limit turns the evidence service's Connect errors into DomainErrors.
    ctx.body = await failureLimit<object>(ctx, proof, () =>
      ctx.method === 'GET'
        ? clients.evidence.getEvidenceKey(sessionArgs).then((r) => ({ exists: r.exists, prefix: r.prefix || null }))
        : clients.evidence.rotateEvidenceKey(sessionArgs).then((r) => ({ key: r.key, prefix: r.prefix })),
    );
    if (ctx.method === 'POST') ctx.status = 201;
  };
}
