import { claimsOf, type ActorClaims } from './service-auth.ts';
import { fromConnectError } from './errors.ts';

/** Actors confirmed this recently are not asked about again. */
const CONFIRMED_TTL_MS = 5_000;
const CACHE_MAX = 10_000;

/**
 * `currentActor` of a service that owns no API keys (CallerTrust, service-auth.ts): asks the service
 * that does (the core's AuthService.ConfirmActor, with a token carrying the actor) whether a gateway
 * token's actor is its key's current one, and remembers a yes for a few seconds, as the gateway's
 * authenticator remembers a key. A revoked or unknown key (401), changed grants (409 actor_changed) or
 * a core that cannot answer (503) come out as the DomainError the core answered; a no is never
 * remembered. So a revoked key's actor is refused within seconds of the revoke, and a made-up actor
 * (no such key) at once.
 */
export function createActorConfirmation(
  confirm: (actor: ActorClaims) => Promise<unknown>,
  opts: { ttlMs?: number; clock?: () => number } = {},
): (claims: ActorClaims) => Promise<ActorClaims> {
  const { ttlMs = CONFIRMED_TTL_MS, clock = Date.now } = opts;
  const confirmed = new Map<string, number>();
  return async (claims) => {
    const actor = claimsOf(claims);
    const id = JSON.stringify(actor);
    const until = confirmed.get(id);
    if (until !== undefined && until > clock()) return actor;
    confirmed.delete(id);
    try {
      await confirm(actor);
    } catch (err) {
      throw fromConnectError(err) ?? err;
    }
    if (confirmed.size >= CACHE_MAX) confirmed.clear();
    confirmed.set(id, clock() + ttlMs);
    return actor;
  };
}
