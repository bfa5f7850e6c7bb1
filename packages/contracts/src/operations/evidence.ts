import { EvidencePackage, EvidenceQuery } from '../resources/evidence.ts';
import type { Operation } from './operation.ts';

/** A release's signed evidence package (the evidence service builds, chains and signs it; docs/evidence.md). */
export const evidenceOperations: Operation[] = [
  {
    method: 'GET',
    path: '/releases/:id/evidence',
    summary: "Get a release's evidence package",
    tag: 'releases',
    operation: 'cluster.evidence.v1.EvidenceService/GetReleaseEvidence',
    tool: {
      name: 'get_release_evidence',
      title: 'Get release evidence',
      description: "A release's evidence package: entries, approvals, checklists and code-hosting evidence.",
    },
    permission: 'read:release',
    query: EvidenceQuery,
    response: {
      status: 200,
      schema: EvidencePackage,
      description:
        'The package as RFC 8785 canonical JSON (docs/evidence.schema.json), the exact bytes its signatures cover. ' +
        'Always X-Service-Evidence-Platform-Signature (ed25519=<base64url Ed25519 signature by the platform>) and ' +
        'X-Service-Evidence-Platform-Key-Id (the key id in /.well-known/evidence-keys.json), ' +
        "X-Service-Evidence-Head (base64url of the release's head: its newest package's sequence and SHA-256, " +
        'docs/evidence.md) and X-Service-Evidence-Head-Signature (ed25519=<signature of the head by the same key>); ' +
        'with an organization ' +
        'evidence key also X-Service-Evidence-Signature (sha256=<hex HMAC-SHA256>) and X-Service-Evidence-Key-Prefix.',
    },
  },
];
