import type { Next } from 'koa';
import type { GatewayContext } from './context.ts';
import { API_PREFIX } from './match-route.ts';

/**
 * Headers of every answer, set before anything else runs so that error answers (401,
 * 404, 405, 4xx validation, 5xx, all written by renderError) carry them too:
 * `X-Content-Type-Options: nosniff` on all of them (a browser never guesses a type
 * other than the declared one), and `Cache-Control: no-store` on everything under
 * /api/v1. The API's answers are per key and may hold secrets shown once; marking every
 * one of them (errors and the public OpenAPI document included) is simpler and safer
 * than deciding which are authenticated, and nothing there is worth caching.
 */
export async function answerHeaders(ctx: GatewayContext, next: Next): Promise<void> {
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (ctx.path === API_PREFIX || ctx.path.startsWith(`${API_PREFIX}/`)) ctx.set('Cache-Control', 'no-store');
  await next();
}
