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
