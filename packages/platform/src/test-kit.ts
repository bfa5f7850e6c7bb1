import { expect } from 'vitest';
import { DomainError } from './errors.ts';

/** For unit tests: the DomainError reason a promise rejects with ('no error' when it resolves; the message of any other error). */
export async function reasonOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (err) {
    return err instanceof DomainError ? err.reason : String(err);
  }
}

/**
 * Vitest's asymmetric matchers typed `unknown` rather than `any` (the no-unsafe-* lint rules): for
 * the fields of an expected object that only need a type or a shape.
 */
export const match = {
  any: (type: unknown): unknown => expect.any(type),
  stringMatching: (pattern: RegExp): unknown => expect.stringMatching(pattern),
  objectContaining: (fields: object): unknown => expect.objectContaining(fields),
};
