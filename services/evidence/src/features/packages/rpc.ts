import type { Client, ServiceImpl } from '@connectrpc/connect';
import { DomainError, requireActor } from '@cluster/platform';
import type { EvidenceService, ReleaseEvidenceService } from '@cluster/proto';
import type { ReleaseFacts } from '@cluster/contracts';
import type { createEvidenceKeyService } from '../keys/service.ts';
import type { PlatformSigner } from '../platform-keys/signer.ts';
import { buildPackage, canonicalDigest, packageSubject } from './build.ts';
import type { PackageStore } from './store.ts';

/** What GetReleaseEvidence needs: the core's release facts, the packages, both signers, and the clock. */
export interface PackageDeps {
  core: Client<typeof ReleaseEvidenceService>;
  packages: PackageStore;
  keys: ReturnType<typeof createEvidenceKeyService>;
  platform: PlatformSigner;
  clock?: () => Date;
}

/**
 * EvidenceService over Connect: the release's facts from the core (which also decides whether
 * the actor may see the release: 404 otherwise), issued as the release's current package or an
 * earlier one found by number, signed over its exact bytes by the platform and, when the
 * organization has a key, by the organization.
 */
export function evidenceRpc(
  deps: PackageDeps,
): Pick<ServiceImpl<typeof EvidenceService>, 'getReleaseEvidence' | 'getEvidencePublicKeys'> {
  const clock = deps.clock ?? (() => new Date());
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
        const subject = packageSubject(facts, actor.organizationId);
        bytes = await deps.packages.issue({ ...release, factsSha256: canonicalDigest(subject) }, (link) =>
          buildPackage(subject, { ...link, generatedAt: clock() }),
        );
      }
      const platform = deps.platform.sign(bytes);
      const tenant = await deps.keys.sign(actor.organizationId, bytes);
      return {
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
