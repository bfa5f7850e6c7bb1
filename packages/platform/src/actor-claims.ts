import type { Actor } from '@cluster/proto';

/**
 * What a service token says about the API key a call is made for: an Actor without its request id.
 * A module of its own, so that the request context (context.ts) and the token code (service-auth.ts)
 * both use it without importing each other.
 */
export type ActorClaims = Omit<Actor, '$typeName' | '$unknown' | 'requestId'>;
