import type { CodeEvidence, EvidenceCodeHosting, PlatformCheck } from '@cluster/contracts';

// Who attests each code-hosting fact of a release's evidence package (docs/evidence.md, "Who attests
// the code-hosting facts"). The core's facts come from GitHub webhooks signed with the organization's
// own secret: the tenant could have written any of them, so each is `organization`-attested unless the
// platform confirmed it with GitHub's API itself (github-check.ts), which makes it `platform`-attested.

/** A fact of CodeEvidence: a commit, a pull request or a CI run. */
export type CodeFact = CodeEvidence['commits'][number] | CodeEvidence['pullRequests'][number] | CodeEvidence['ciRuns'][number];

/** What the platform's check of each fact found, in the order of the facts' lists. */
export interface FactChecks {
  commits: readonly PlatformCheck[];
  pullRequests: readonly PlatformCheck[];
  ciRuns: readonly PlatformCheck[];
}

/** Marks a fact with who attests it: the platform only when its check with GitHub confirmed it. */
function mark<T extends CodeFact>(fact: T, check: PlatformCheck | undefined) {
  const platformCheck = check ?? 'unchecked';
  return {
    ...fact,
    attestedBy: platformCheck === 'confirmed' ? ('platform' as const) : ('organization' as const),
    platformCheck,
  };
}

/** The code-hosting facts marked with what the platform's checks found (an unchecked fact when there is no check). */
export function attestCode(code: CodeEvidence, checks?: Partial<FactChecks>): EvidenceCodeHosting {
  return {
    commits: code.commits.map((c, i) => mark(c, checks?.commits?.[i])),
    pullRequests: code.pullRequests.map((p, i) => mark(p, checks?.pullRequests?.[i])),
    ciRuns: code.ciRuns.map((r, i) => mark(r, checks?.ciRuns?.[i])),
  };
}

/** How a release's code-hosting facts are attested: what the evidence service calls before it builds a package. */
export type Attest = (
  code: CodeEvidence,
  entries: readonly { id: string; entryNumber: number }[],
) => Promise<EvidenceCodeHosting>;

/** Without a GitHub App (docs/evidence.md): every fact organization-attested, unchecked. */
export const organizationAttested: Attest = (code) => Promise.resolve(attestCode(code));
