import { EvidenceService } from '@cluster/proto';
import { EvidencePackage, EvidenceQuery } from '@cluster/contracts';
import { defineRoute, type RouteDef } from '../../http/route.ts';

/** A release's signed evidence package (the evidence service builds, chains and signs it; docs/evidence.md). */
export const evidenceRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/releases/:id/evidence',
    summary: "Get a release's evidence package",
    tag: 'releases',
    service: EvidenceService,
    rpc: 'getReleaseEvidence',
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
        'X-Service-Evidence-Platform-Key-Id (the key id in /.well-known/evidence-keys.json); with an organization ' +
        'evidence key also X-Service-Evidence-Signature (sha256=<hex HMAC-SHA256>) and X-Service-Evidence-Key-Prefix.',
    },
    handler: async ({ actor, params, query, call }) => {
      const res = await call({ actor, id: params.id, sequence: query.sequence ?? 0 });
      if (res.package.byteLength === 0 || !res.platformSignature)
        throw new Error('the evidence service answered without a signed package');
      const headers: Record<string, string> = {
        'X-Service-Evidence-Platform-Signature': `ed25519=${res.platformSignature}`,
        'X-Service-Evidence-Platform-Key-Id': res.platformKeyId,
        ...(res.signature
          ? { 'X-Service-Evidence-Signature': `sha256=${res.signature}`, 'X-Service-Evidence-Key-Prefix': res.keyPrefix }
          : {}),
      };
      return { status: 200, body: res.package, headers };
    },
  }),
];
