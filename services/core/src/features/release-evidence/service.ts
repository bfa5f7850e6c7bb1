import type { ApprovalDecision, ReleaseFacts } from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { requireActor } from '@cluster/platform';
import { assertVisible } from '../../shared/access.ts';
import type { Stores } from '../../stores.ts';
import { presentEntry } from '../entries/presenter.ts';
import { presentRelease } from '../releases/presenter.ts';

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

/**
 * The facts of a release's evidence package (the evidence service builds and signs the
 * package): the release, its entries, every approval decision on them, oldest first, and what
 * code-host webhooks linked to them (commits, pull requests, CI runs).
 * Tenancy and project scope as for GET /releases/:id: another organization's release is 404.
 */
export function createReleaseEvidenceService(stores: Stores) {
  return {
    async facts(actorIn: Actor | undefined, releaseId: string): Promise<ReleaseFacts> {
      const actor = requireActor(actorIn);
      const release = assertVisible(actor, await stores.releases.find(releaseId), 'release');
      const entries = await stores.releaseEvidence.entriesOf(release.id);
      const rows = await stores.releaseEvidence.approvalDecisions(
        actor.organizationId,
        entries.map((e) => e.id),
      );
      const approvals: ApprovalDecision[] = rows.flatMap((row) => {
        const metadata = (row.metadata ?? {}) as {
          approvals?: Record<string, { from: unknown; to: unknown }>;
          apiKeyId?: string;
        };
        return Object.entries(metadata.approvals ?? {}).map(([field, change]) => ({
          entryId: row.entityId,
          field,
          from: change.from,
          to: change.to,
          actorId: row.actorId ?? null,
          apiKeyId: metadata.apiKeyId ?? null,
          auditEventId: row.id,
          at: iso(row.createdAt),
        }));
      });
      const code = await stores.codehost.evidenceOf(
        actor.organizationId,
        entries.map((e) => e.id),
      );
      return { release: presentRelease(release), entries: entries.map(presentEntry), approvals, code };
    },
  };
}
