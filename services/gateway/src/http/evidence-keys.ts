import type { Next } from 'koa';
import { DomainError, fromConnectError } from '@cluster/platform';
import type { Clients } from '../clients.ts';
import { nameRequest, type GatewayContext } from './context.ts';

/** Where anyone fetches the public keys that verify evidence packages' platform signatures (docs/evidence.md). */
export const EVIDENCE_KEYS_PATH = '/.well-known/evidence-keys.json';

/** How long a replica reuses the evidence service's answer (the keys change only with its configuration). */
const CACHE_MS = 5 * 60_000;

/**
 * `GET /.well-known/evidence-keys.json`, without authentication: the platform's evidence public
 * keys as a JWK Set (`{keys: [{kty, crv, alg, use, kid, x}]}`), the signing key first, retired ones
 * after it (with `retired: true`). The gateway holds no evidence key: it asks the evidence service (GetEvidencePublicKeys),
 * whose configuration (EVIDENCE_SIGNING_KEY) is the one source, and keeps the answer a few minutes,
 * so that anonymous requests cost no backend call.
 */
export function createEvidenceKeysDocument(clients: Pick<Clients, 'evidence'>, now: () => number = Date.now) {
  let cached: { document: unknown; until: number } | undefined;
  const load = async () => {
    if (cached && cached.until > now()) return cached.document;
    const { keys } = await clients.evidence.getEvidencePublicKeys({});
    const document = {
      keys: keys.map(({ kid, x, retired }) => ({
        kty: 'OKP',
        crv: 'Ed25519',
        alg: 'EdDSA',
        use: 'sig',
        kid,
        x,
        // A member of ours (RFC 7517 lets a reader ignore it): the key signs nothing now.
        ...(retired ? { retired: true } : {}),
      })),
    };
    cached = { document, until: now() + CACHE_MS };
    return document;
  };
  return async function evidenceKeysDocument(ctx: GatewayContext, next: Next): Promise<void> {
    if (ctx.path !== EVIDENCE_KEYS_PATH) return void (await next());
    nameRequest(ctx, EVIDENCE_KEYS_PATH);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
    }
    try {
      ctx.body = await load();
    } catch (err) {
      throw fromConnectError(err) ?? err;
    }
    ctx.set('Cache-Control', `public, max-age=${CACHE_MS / 1000}`);
  };
}
