import type { ServiceImpl } from '@connectrpc/connect';
import { jsonBytes } from '@cluster/platform';
import type { ReleaseEvidenceService } from '@cluster/proto';
import type { createReleaseEvidenceService } from './service.ts';

/** ReleaseEvidenceService over Connect (its caller: the evidence service). */
export function releaseEvidenceRpc(
  evidence: ReturnType<typeof createReleaseEvidenceService>,
): ServiceImpl<typeof ReleaseEvidenceService> {
  return {
    async getReleaseFacts(req) {
      return { resource: jsonBytes(await evidence.facts(req.actor, req.id)) };
    },
  };
}
