import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DomainError } from '@cluster/platform';
import type { GatewayContext } from './context.ts';
import { API_PREFIX } from './match-route.ts';

/** Where the reference page lives; its files are under it. */
export const REFERENCE_PATH = `${API_PREFIX}/docs`;

/** The files of the page, as scripts/lib/reference-page.mjs writes them, by the path they are served at. */
const FILES: Record<string, { file: string; type: string }> = {
  [REFERENCE_PATH]: { file: 'index.html', type: 'text/html; charset=utf-8' },
  [`${REFERENCE_PATH}/reference.json`]: { file: 'reference.json', type: 'application/json; charset=utf-8' },
  [`${REFERENCE_PATH}/redoc.standalone.js`]: { file: 'redoc.standalone.js', type: 'application/javascript; charset=utf-8' },
  [`${REFERENCE_PATH}/page.js`]: { file: 'page.js', type: 'application/javascript; charset=utf-8' },
};

/**
 * The rendered page's folder: `reference/` beside the gateway's bundle (services/gateway/dist), or,
 * running from the sources (the tests' in-process gateway), the one `npm run build` wrote there.
 */
function pageDirectory(): string | undefined {
  for (const candidate of ['./reference/', '../../dist/reference/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return undefined;
}

// Everything the page loads comes from this gateway; Redoc styles inline, runs its search in a blob
// worker and fetches the page's document. No inline script: the page's two scripts are files.
const CSP =
  "default-src 'none'; script-src 'self'; worker-src blob:; connect-src 'self'; style-src 'unsafe-inline'; " +
  "img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The API reference page at /api/v1/docs: rendered at build time (scripts/lib/reference-page.mjs:
 * every operation, its code samples and the introduction are in the HTML), served as static files
 * from this gateway (no CDN). Answers true when it served the request.
 */
export function createReferencePage() {
  const dir = pageDirectory();
  const cache = new Map<string, Buffer>();
  return (ctx: GatewayContext): boolean => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
    const served = FILES[ctx.path];
    if (!served) return false;
    if (!dir) throw new DomainError('unavailable', 'the reference page is not built: run `npm run build` (scripts/build.mjs)');
    let body = cache.get(served.file);
    if (!body) cache.set(served.file, (body = readFileSync(`${dir}${served.file}`)));
    ctx.set('Content-Security-Policy', CSP);
    // The page and its document change with a release; the bundle is Redoc's, pinned by the build.
    ctx.set('Cache-Control', served.file === 'redoc.standalone.js' ? 'public, max-age=3600' : 'no-cache');
    ctx.type = served.type;
    ctx.body = body;
    return true;
  };
}
