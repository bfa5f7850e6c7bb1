import { readRequestBody } from './body.ts';
import type { GatewayContext } from './context.ts';
import { enforceRateLimit, type RateLimiter } from './rate-limit.ts';

/**
 * The pipeline steps that must not happen twice when a request is served again after a
 * fresh check of its key (app.ts): the rate limit counts it once and gives the same answer,
 * and the body stream is read once.
 */
export function onceSteps(ctx: GatewayContext, limiter: RateLimiter) {
  let limited: Promise<void> | undefined;
  let body: ReturnType<typeof readRequestBody> | undefined;
  return {
    rateLimit: (apiKeyId: string) => (limited ??= enforceRateLimit(ctx, limiter, apiKeyId)),
    body: () => (body ??= readRequestBody(ctx)),
  };
}
