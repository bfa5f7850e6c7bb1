import type { Actor } from '@cluster/proto';
import { expect } from 'vitest';
import { DomainError } from '@cluster/platform';

/**
 * Helpers of the core's unit tests (service.test.ts files, with createFakeStores):
 * an actor and the reason a rule refused with. For tests only.
 */

/** The organization of `testActor` by default, and another one. */
export const TEST_ORG = '00000000-0000-4000-8000-000000000001';
export const OTHER_ORG = '00000000-0000-4000-8000-000000000002';

/** An organization-scoped admin key's actor, with `over` applied. */
export function testActor(over: Partial<Actor> = {}): Actor {
  return {
    organizationId: TEST_ORG,
    userId: 'u1',
    apiKeyId: 'k1',
    scope: 'organization',
    role: 'admin',
    permissions: [],
    requestId: 'r1',
    ...over,
  } as Actor;
}

/**
 * A body the gateway would refuse (an unknown key, a read-only field), typed as the body a
 * service takes: for tests of the core's own defences behind the gateway's validation. The
 * tests' one cast, named so that a reader sees the shape is invalid on purpose.
 */
export function unvalidated<T extends object>(body: Record<string, unknown>): T {
  return body as T;
}

/**
 * Everything an API client would see of a refusal (status, reason, message, details), or 'no error':
 * for the tenant-oracle tests, where two references must get the very same answer.
 */
export async function answerOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
    return 'no error';
  } catch (err) {
    if (!(err instanceof DomainError)) return String(err);
    return { status: err.status, reason: err.reason, message: err.message, details: err.details ?? null };
  }
}

export { reasonOf } from '@cluster/platform/test-kit';

// vitest types its asymmetric matchers `any`: these give the same matchers as `unknown`, so that an
// expected object stays typed (the no-unsafe-* rules) and reads as before.
/** Any string (expect.any(String)). */
export const anyString: unknown = expect.any(String);
/** An object with at least these properties (expect.objectContaining). */
export function like(properties: object): unknown {
  return expect.objectContaining(properties);
}
/** A string matching `pattern` (expect.stringMatching). */
export function matching(pattern: RegExp): unknown {
  return expect.stringMatching(pattern);
}
/** A string containing `part` (expect.stringContaining). */
export function containing(part: string): unknown {
  return expect.stringContaining(part);
}
