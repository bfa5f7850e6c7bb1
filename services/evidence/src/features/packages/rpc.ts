import type { Client, ServiceImpl } from '@connectrpc/connect';
import { DomainError, requireActor } from '@cluster/platform';
import type { EvidenceService, ReleaseEvidenceService } from '@cluster/proto';
import type { ReleaseFacts } from '@cluster/contracts';
import { organizationAttested, type Attest } from '../attestation/attest.ts';
import type { createEvidenceKeyService } from '../keys/service.ts';
import type { PlatformSigner } from '../platform-keys/signer.ts';
import { buildHead, buildPackage, canonicalDigest, packageSubject } from './build.ts';
import type { PackageStore } from './store.ts';

/** What GetReleaseEvidence needs: the core's release facts, the packages, both signers, and the clock. */
export interface PackageDeps {
  core: Client<typeof ReleaseEvidenceService>;
  packages: PackageStore;
  keys: ReturnType<typeof createEvidenceKeyService>;
  platform: PlatformSigner;
  /** Who attests the code-hosting facts: the GitHub App's check when one is configured, else organizationAttested. */
  attest?: Attest;
  clock?: () => Date;
}

/**
 * EvidenceService over Connect: the release's facts from the core (which also decides whether
 * the actor may see the release: 404 otherwise), issued as the release's current package or an
 * earlier one found by number, signed over its exact bytes by the platform and, when the
 * organization has a key, by the organization; with the release's head (its newest package's number
 * and digest), signed by the platform (docs/evidence.md, "The head").
 */
export function evidenceRpc(
  deps: PackageDeps,
): Pick<ServiceImpl<typeof EvidenceService>, 'getReleaseEvidence' | 'getEvidencePublicKeys'> {
  const clock = deps.clock ?? (() => new Date());
  const attest = deps.attest ?? organizationAttested;
  return {
    async getReleaseEvidence(req) {
      const actor = requireActor(req.actor);
      const { resource } = await deps.core.getReleaseFacts({ actor, id: req.id });
      const release = { releaseId: req.id, organizationId: actor.organizationId };
      let bytes: Buffer | undefined;
      if (req.sequence > 0) {
        bytes = await deps.packages.find(release, req.sequence);
        if (!bytes) throw new DomainError('not_found', `the release has no evidence package ${req.sequence}`);
      } else {
        const facts = JSON.parse(Buffer.from(resource).toString('utf8')) as ReleaseFacts;
        const code = await attest(
          facts.code,
          facts.entries.map((e) => ({ id: e.id as string, entryNumber: e.entryNumber as number })),
        );
        const subject = packageSubject(facts, actor.organizationId, code);
        bytes = await deps.packages.issue({ ...release, factsSha256: canonicalDigest(subject) }, (link) =>
          buildPackage(subject, { ...link, generatedAt: clock() }),
        );
      }
      // The chain's end as of now (this package, or a newer one when an earlier one was asked for).
      const head = await deps.packages.head(release);
      if (!head) throw new Error(`release ${req.id} has a package but no head`);
      const headBytes = buildHead({ ...release, sequence: head.sequence, packageSha256: head.sha256, issuedAt: clock() });
      const platform = deps.platform.sign(bytes);
      const tenant = await deps.keys.sign(actor.organizationId, bytes);
      return {
        head: headBytes,
        headSignature: deps.platform.sign(headBytes).signature,
        package: bytes,
        signature: tenant?.signature ?? '',
        keyPrefix: tenant?.prefix ?? '',
        platformSignature: platform.signature,
        platformKeyId: platform.kid,
      };
    },
    async getEvidencePublicKeys() {
      return { keys: deps.platform.publicKeys() };
    },
  };
}
