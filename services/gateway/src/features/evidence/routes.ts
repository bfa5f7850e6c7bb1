import { EvidencePackage } from '@cluster/contracts';
import { defineRoute, type RouteDef } from '../../http/route.ts';

/** A release's signed evidence package (the evidence service builds and signs it; docs/evidence.md). */
export const evidenceRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/releases/:id/evidence',
    summary: "Get a release's evidence package",
    tag: 'releases',
    permission: 'read:release',
    backend: 'evidence',
    response: {
      status: 200,
      schema: EvidencePackage,
      description:
        'The package as RFC 8785 canonical JSON (docs/evidence.schema.json). With an organization evidence key: ' +
        'X-Service-Evidence-Signature (sha256=<hex HMAC-SHA256 of the exact body bytes>) and X-Service-Evidence-Key-Prefix.',
    },
    handler: async ({ actor, params, clients }) => {
      const res = await clients.evidence.getReleaseEvidence({ actor, id: params.id });
      if (res.package.byteLength === 0) throw new Error('the evidence service answered without a package');
      const headers: Record<string, string> = res.signature
        ? { 'X-Service-Evidence-Signature': `sha256=${res.signature}`, 'X-Service-Evidence-Key-Prefix': res.keyPrefix }
        : {};
      return { status: 200, body: res.package, headers };
    },
  }),
];
