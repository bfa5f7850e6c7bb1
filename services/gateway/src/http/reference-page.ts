import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { GatewayContext } from './context.ts';
import { API_PREFIX } from './match-route.ts';

/** Where the reference page lives, and its renderer. */
export const REFERENCE_PATH = `${API_PREFIX}/docs`;
const SCRIPT_PATH = `${REFERENCE_PATH}/redoc.standalone.js`;

/**
 * Redoc's standalone bundle: beside the gateway's bundle in a build (scripts/build.mjs copies
 * it there, so the image needs no Redoc package), else from the dev dependency.
 */
function redocBundle(): string | undefined {
  const beside = fileURLToPath(new URL('./redoc.standalone.js', import.meta.url));
  if (existsSync(beside)) return beside;
  try {
    return createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  } catch {
    return undefined;
  }
}

/**
 * Redoc's menu shows a logo it fetches from Redocly's CDN; the page loads nothing from anywhere
 * but this gateway (its CSP would refuse it, with a console error), so the bundle's one CDN
 * address becomes an empty inline image when it is read.
 */
const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const NO_LOGO = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Developer API v1 reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <redoc spec-url="${API_PREFIX}/openapi.json" hide-download-button="false"></redoc>
    <script src="${SCRIPT_PATH}"></script>
  </body>
</html>
`;

// Everything the page loads comes from this gateway; Redoc styles inline and runs its search in a blob worker.
const CSP =
  "default-src 'none'; script-src 'self'; worker-src blob:; connect-src 'self'; style-src 'unsafe-inline'; " +
  "img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The API reference page at /api/v1/docs: the OpenAPI document rendered by Redoc, served from
 * this gateway (no CDN). Answers true when it served the request.
 */
export function createReferencePage() {
  const bundle = redocBundle();
  let script: Buffer | undefined;
  return (ctx: GatewayContext): boolean => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
    if (ctx.path === REFERENCE_PATH) {
      ctx.set('Content-Security-Policy', CSP);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = PAGE;
      return true;
    }
    if (ctx.path === SCRIPT_PATH && bundle) {
      script ??= Buffer.from(readFileSync(bundle, 'utf8').replaceAll(CDN_LOGO, NO_LOGO));
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.type = 'application/javascript; charset=utf-8';
      ctx.body = script;
      return true;
    }
    return false;
  };
}
