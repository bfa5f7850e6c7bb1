import type { Client, ServiceImpl } from '@connectrpc/connect';
import { requireActor } from '@cluster/platform';
import type { EvidenceService, ReleaseEvidenceService } from '@cluster/proto';
import type { createEvidenceKeyService } from '../keys/service.ts';
import type { ReleaseFacts } from '@cluster/contracts';
import { buildPackage } from './build.ts';

/** What GetReleaseEvidence needs: the core's release facts, the keys, and the clock. */
export interface PackageDeps {
  core: Client<typeof ReleaseEvidenceService>;
  keys: ReturnType<typeof createEvidenceKeyService>;
  clock?: () => Date;
}

/** EvidenceService over Connect: the release's facts from the core, built into a package and signed. */
export function evidenceRpc(deps: PackageDeps): Pick<ServiceImpl<typeof EvidenceService>, 'getReleaseEvidence'> {
  return {
    async getReleaseEvidence(req) {
      const actor = requireActor(req.actor);
      const { resource } = await deps.core.getReleaseFacts({ actor, id: req.id });
      const facts = JSON.parse(Buffer.from(resource).toString('utf8')) as ReleaseFacts;
      const bytes = buildPackage(facts, {
        organizationId: actor.organizationId,
        generatedAt: (deps.clock ?? (() => new Date()))(),
      });
      const signed = await deps.keys.sign(actor.organizationId, bytes);
      return { package: bytes, signature: signed?.signature ?? '', keyPrefix: signed?.prefix ?? '' };
    },
  };
}
