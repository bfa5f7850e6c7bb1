import { DomainError, type ActorClaims } from '@cluster/platform';
import type { PortalStore } from './store.ts';

/**
 * The delivery service's own check of the portal session an actor names (docs/security.md, "Portal
 * sessions"): the gateway sets `portalSessionId` from the session it has just resolved, and the core
 * confirms the key behind it, but only this service, which owns the sessions, can tell whether the
 * session is still live. So before it acts for such an actor it reads the session by id: one that is
 * unknown, unopened, expired (or swept), of another organization or another key answers 401; an actor
 * asking more than the session grants (other scope or project, a permission the session lacks) 403.
 * An actor naming no session passes untouched. Not cached: a primary-key read, and an expiry must hold
 * to the second.
 */
export function createPortalSessionCheck(
  store: Pick<PortalStore, 'findLiveById'>,
  clock: () => Date = () => new Date(),
): (claims: ActorClaims) => Promise<void> {
  return async (claims) => {
    if (!claims.portalSessionId) return;
    const row = await store.findLiveById(claims.portalSessionId, clock());
    if (!row || row.organizationId !== claims.organizationId || row.apiKeyId !== claims.apiKeyId) {
      throw new DomainError(
        'unauthorized',
        'the portal session this call names is not a live session of its organization (expired, unknown or another’s): open a new portal link',
      );
    }
    const granted = row.actor as { scope?: string; scopedProjectId?: string; permissions?: string[] };
    const permissions = granted.permissions ?? [];
    const wider =
      claims.scope !== granted.scope ||
      (claims.scopedProjectId ?? '') !== (granted.scopedProjectId ?? '') ||
      claims.permissions.some((p) => !permissions.includes(p));
    if (wider) throw new DomainError('forbidden', 'the call asks more than its portal session grants');
  };
}
