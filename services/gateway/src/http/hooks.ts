import type { Next } from 'koa';
import { DomainError } from '@cluster/platform';
import type { Clients } from '../clients.ts';
import type { RateLimiter } from './rate-limit.ts';
import { limitFailures } from './authenticate.ts';
import { readRawBody } from './body.ts';
import { nameRequest, type GatewayContext } from './context.ts';

/** GitHub caps a webhook payload at 25 MB (it sends none larger). */
export const HOOK_BODY_LIMIT = 25 * 1024 * 1024;
const GITHUB_HOOK = /^\/hooks\/github\/([^/]+)$/;

/**
 * `POST /hooks/github/:organizationId` (docs/codehost.md): a GitHub webhook, passed to the core as
 * received (the exact body bytes and the X-GitHub-* and X-Hub-Signature-256 headers). The core
 * checks the signature with the organization's secret, so an answer says nothing before it has:
 * a bad or missing signature is 401, and a client address with too many of those is refused (429)
 * before its delivery reaches the core, as failed API-key authentications are. Answers: 200
 * `processed`, `duplicate` (the delivery id was seen) or `pong` (ping); 202 `ignored` (an event the
 * core does not use, or a repository linked to no project); 400 malformed; 415 a form-encoded body.
 */
export function createCodeHostHooks(clients: Clients, authFailures: RateLimiter) {
  return async function codeHostHooks(ctx: GatewayContext, next: Next): Promise<void> {
    const match = GITHUB_HOOK.exec(ctx.path);
    if (!match) return next();
    nameRequest(ctx, '/hooks/github/:organizationId');
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
    }
    await limitFailures(authFailures, ctx, async () => {
      if (ctx.request.type !== 'application/json') {
        throw new DomainError(
          'unsupported_media_type',
          'a code-host webhook must be sent as application/json (GitHub: the webhook\'s "Content type" setting)',
        );
      }
      const res = await clients.codehost.receiveWebhook({
        organizationId: match[1],
        provider: 'github',
        event: ctx.get('x-github-event'),
        deliveryId: ctx.get('x-github-delivery'),
        signature: ctx.get('x-hub-signature-256'),
        body: await readRawBody(ctx, HOOK_BODY_LIMIT),
      });
      ctx.status = res.outcome === 'ignored' ? 202 : 200;
      ctx.body = { outcome: res.outcome, ...(res.reason ? { reason: res.reason } : {}), events: res.events };
    });
  };
}
