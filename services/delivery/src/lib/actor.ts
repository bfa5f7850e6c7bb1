import { DomainError } from '@cluster/platform';
import type { Actor } from '@cluster/proto';

/** The actor, or a 401 when a caller forgot it (an internal bug, never a client's). */
export function requireActor(actor: Actor | undefined): Actor {
  if (!actor?.organizationId) throw new DomainError('unauthorized', 'no actor on the call');
  return actor;
}
