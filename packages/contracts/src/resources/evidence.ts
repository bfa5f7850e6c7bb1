import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, Uuid } from './common.ts';
import { ATTESTERS, CodeEvidence, EvidenceCodeHosting } from './code-evidence.ts';
import { Release } from './releases.ts';

/** One approval decision on an entry, as the core's audit trail recorded it. */
export interface ApprovalDecision {
  entryId: string;
  /** approvalStatus or costApprovalStatus. */
  field: string;
  from: unknown;
  to: unknown;
  actorId: string | null;
  /** apiKeyId of the key that made it, when one did. */
  apiKeyId: string | null;
  auditEventId: string;
  at: string;
}

/**
 * The JSON of `ReleaseEvidenceService.GetReleaseFacts` (core -> evidence): the release and its
 * entries as the API presents them, the approval decisions on the entries, oldest first, and
 * what code-host webhooks recorded about the entries.
 */
export interface ReleaseFacts {
  release: Record<string, unknown>;
  entries: Record<string, unknown>[];
  approvals: ApprovalDecision[];
  code: CodeEvidence;
}

/** One entry of a release, as its evidence summarises it. */
export const EvidenceEntry = Type.Object(
  {
    id: Uuid,
    entryNumber: Type.Integer({ minimum: 1 }),
    type: Type.String(),
    title: Type.String(),
    status: Type.String(),
    priority: Type.String(),
    approvalStatus: Nullable(Type.String()),
    costApprovalStatus: Nullable(Type.String()),
    deploymentStage: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

/** One approval decision of the audit trail. */
export const EvidenceApproval = Type.Object(
  {
    entryId: Uuid,
    entryNumber: Nullable(Type.Integer()),
    action: Type.String({ description: 'approvalStatus_changed or costApprovalStatus_changed' }),
    field: Type.String(),
    from: Nullable(Type.String()),
    to: Nullable(Type.String()),
    actorId: Nullable(Uuid),
    apiKeyId: Nullable(Type.String()),
    auditEventId: Uuid,
    at: DateTime,
  },
  { additionalProperties: false },
);

/** A computed quality check: passed when no entry fails it. */
export const EvidenceChecklist = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    passed: Type.Boolean(),
    failingEntryIds: Type.Array(Uuid),
    attestedBy: StringEnum(ATTESTERS, {
      description:
        'platform: the check rests only on records the platform keeps itself and code-hosting facts it confirmed with GitHub; organization: on at least one code-hosting fact only the organization attests',
    }),
  },
  { additionalProperties: false },
);

/** GET /releases/:id/evidence: a release's evidence package (docs/evidence.md), RFC 8785 canonical JSON. */
export const EvidencePackage = Type.Object(
  {
    schemaVersion: Type.Literal(2),
    generatedAt: DateTime,
    sequence: Type.Integer({ minimum: 1, description: "the package's number among its release's packages, from 1" }),
    previousSha256: Type.Union([Type.String({ pattern: '^[0-9a-f]{64}$' }), Type.Null()], {
      description: "hex SHA-256 of the exact bytes of the release's previous package; null for the first",
    }),
    organizationId: Uuid,
    release: Release,
    entrySummary: Type.Object(
      {
        entries: Type.Array(EvidenceEntry),
        total: Type.Integer({ minimum: 0 }),
        countsByStatus: Type.Record(Type.String(), Type.Integer({ minimum: 1 })),
        countsByType: Type.Record(Type.String(), Type.Integer({ minimum: 1 })),
      },
      { additionalProperties: false },
    ),
    approvalChain: Type.Array(EvidenceApproval),
    checklists: Type.Array(EvidenceChecklist),
    codeHosting: EvidenceCodeHosting,
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'hex SHA-256 of the canonical form of every other field' }),
  },
  { additionalProperties: false, description: "A release's evidence package" },
);
export type EvidencePackage = Static<typeof EvidencePackage>;

/** GET /releases/:id/evidence?sequence=n: an earlier package of the release by its number. */
export const EvidenceQuery = Type.Object(
  {
    sequence: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        description: "The release's package of this number (its `sequence`), as issued; without it, the current package",
      }),
    ),
  },
  { additionalProperties: false },
);
