/**
 * An operator's mistake in a credential command (an unknown user, a grant the role may not
 * give): the admin CLI prints its message and exits 1 (docs/runbook.md, "Local operations").
 */
export class CredentialAdminError extends Error {}

/** `v`, or a CredentialAdminError with `message` when it is missing or empty. */
export function required<T>(v: T | undefined | null, message: string): T {
  if (v === undefined || v === null || v === '') throw new CredentialAdminError(message);
  return v;
}
