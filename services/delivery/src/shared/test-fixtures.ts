import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { DomainError } from '@cluster/platform';
import { ActorSchema, type Actor } from '@cluster/proto';
import type { SubscriptionRow } from '../features/subscriptions/store.ts';

/** Organizations of the unit tests. */
export const ORG = '00000000-0000-4000-8000-000000000001';
export const OTHER_ORG = '00000000-0000-4000-8000-000000000002';

/** The Actor the gateway sends for an admin key of ORG (a real message: audit records carry its JSON). */
export function testActor(over: Partial<Omit<Actor, '$typeName' | '$unknown'>> = {}): Actor {
  return create(ActorSchema, {
    organizationId: ORG,
    userId: 'u1',
    apiKeyId: 'k1',
    scope: 'organization',
    role: 'admin',
    requestId: 'r1',
    ...over,
  });
}

/** What a promise failed with: the DomainError, or 'no error'. */
export async function failure(p: Promise<unknown>): Promise<DomainError | string> {
  try {
    await p;
    return 'no error';
  } catch (err) {
    return err instanceof DomainError ? err : String(err);
  }
}

/** A live, enabled subscription row of ORG to https://r.example.com/in, for `entry.created`. */
export function testSubscription(over: Partial<SubscriptionRow> = {}): SubscriptionRow {
  const now = new Date();
  return {
    id: randomUUID(),
    organizationId: ORG,
    destinationUrl: 'https://r.example.com/in',
    destinationOrigin: 'https://r.example.com:443',
    eventNames: ['entry.created'],
    enabled: true,
    description: null,
    secretSealed: 'sealed',
    previousSecretSealed: null,
    previousSecretUntil: null,
    ordering: 'none',
    signatureScheme: 'hmac-sha256',
    publicKey: null,
    receiverSealed: null,
    receiverView: null,
    filter: null,
    consecutiveFailures: 0,
    failingSince: null,
    failingNotifiedAt: null,
    disabledReason: null,
    disabledAt: null,
    createdByUserId: null,
    temporary: false,
    listenExpiresAt: null,
    rateLimit: null,
    maxInFlight: null,
    pausedUntil: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    ...over,
  };
}
