import type { Next } from 'koa';
import { DomainError } from '@cluster/platform';
import type { Clients } from '../clients.ts';
import type { FailureLimit } from './failure-limit.ts';
import { readRawBody } from './body.ts';
import { nameRequest, type GatewayContext } from './context.ts';

/** GitHub caps a webhook payload at 25 MB (it sends none larger). */
export const HOOK_BODY_LIMIT = 25 * 1024 * 1024;
const GITHUB_HOOK = /^\/hooks\/github\/([^/]+)$/;

/**
 * `POST /hooks/github/:organizationId` (docs/codehost.md): a GitHub webhook, passed to the core as
 * received (the exact body bytes and the X-GitHub-* and X-Hub-Signature-256 headers). The core
 * checks the signature with the organization's secret, so an answer says nothing before it has:
 * a bad or missing signature is 401 and counts against the client address's limit of failed
 * authentications, as a failed API key does (failure-limit.ts): once the address is over it, a
 * failed signature answers 429 and a missing one is refused without asking the core, while a valid
 * signature always goes through (GitHub delivers from shared addresses). Answers: 200
 * `processed`, `duplicate` (the delivery id was seen) or `pong` (ping); 202 `ignored` (an event the
 * core does not use, or a repository linked to no project); 400 malformed; 415 a form-encoded body.
 */
export function createCodeHostHooks(clients: Clients, failureLimit: FailureLimit) {
  return async function codeHostHooks(ctx: GatewayContext, next: Next): Promise<void> {
    const match = GITHUB_HOOK.exec(ctx.path);
    if (!match) return void (await next());
    nameRequest(ctx, '/hooks/github/:organizationId');
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
    }
    const signature = ctx.get('x-hub-signature-256');
    // No id: a signature is of one body, so a refused one is not remembered (a check is always spent on it).
    await failureLimit(ctx, { wellFormed: signature !== '' }, async () => {
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
        signature,
        body: await readRawBody(ctx, HOOK_BODY_LIMIT),
      });
      ctx.status = res.outcome === 'ignored' ? 202 : 200;
      ctx.body = { outcome: res.outcome, ...(res.reason ? { reason: res.reason } : {}), events: res.events };
    });
  };
}
