import { createClient } from '@connectrpc/connect';
import { createRpcTransport, createTokenSigner, retiredKeyWarnings, type InternalRpcs, type Shutdown } from '@cluster/platform';
import { createBackend } from '@cluster/platform/service';
import { AuditService, EvidenceService, ReleaseEvidenceService, SessionService } from '@cluster/proto';
import type { EvidenceConfig } from './config.ts';
import { evidenceKeyBox } from './features/keys/box.ts';
import { createEvidenceKeyService } from './features/keys/service.ts';
import { createEvidenceKeyStore } from './features/keys/store.ts';
import { createPlatformSigner } from './features/platform-keys/signer.ts';
import { createGithubApp } from './features/attestation/github-app.ts';
import { createGithubAttest } from './features/attestation/github-check.ts';
import { evidenceRpc } from './features/packages/rpc.ts';
import { createPackageStore } from './features/packages/store.ts';
import { keySettingsRpc } from './features/keys/rpc.ts';
import { migrations } from './migrations/index.ts';

/**
 * What the evidence service serves besides the operation table's RPCs, all to the gateway: the public
 * keys it publishes (/.well-known/evidence-keys.json, no actor), and an organization's evidence key
 * read and rotated from the settings page (the message carries the session, which the service has
 * the core check). Any other RPC is served to no caller (servedRpcs).
 */
export const EVIDENCE_INTERNAL_RPCS: InternalRpcs = {
  [`${EvidenceService.typeName}/GetEvidencePublicKeys`]: { callers: ['gateway'] },
  [`${EvidenceService.typeName}/GetEvidenceKey`]: { callers: ['gateway'] },
  [`${EvidenceService.typeName}/RotateEvidenceKey`]: { callers: ['gateway'] },
};

/** Composition root of the evidence service, on the shared backend (createBackend): the core client, keys, its routes. */
export async function startEvidence(config: EvidenceConfig): Promise<{ port: number; shutdown: Shutdown }> {
  const backend = createBackend('evidence', config);
  const { logger } = backend;
  if (!config.secretKeys) logger.warn('EVIDENCE_SECRET_KEY is unset: evidence keys are sealed with a development key');
  if (!config.development) for (const w of retiredKeyWarnings('EVIDENCE_SECRET_KEY', config.secretKeys ?? [])) logger.warn(w);
  if (config.devSigningKey)
    logger.warn('EVIDENCE_SIGNING_KEY is unset: evidence packages are signed with the public development key');
  const db = await backend.openDatabase(migrations, { poolMax: config.dbPoolMax });
  const toCore = createRpcTransport(config.coreUrl, { sign: createTokenSigner(config.serviceKeys), audience: 'core' });
  const core = createClient(ReleaseEvidenceService, toCore);
  const keys = createEvidenceKeyService(createEvidenceKeyStore(db), evidenceKeyBox(config));
  const platform = createPlatformSigner(config.signingSeeds);
  const packages = createPackageStore(db);
  const { githubApp } = config;
  if (!githubApp) logger.info('no GitHub App (GITHUB_APP_ID unset): code-hosting facts stay organization-attested');
  const attest = githubApp
    ? createGithubAttest(createGithubApp(githubApp), {
        timeoutMs: githubApp.checkTimeoutMs,
        onFailure: (err) =>
          logger.warn({ err }, 'a GitHub check failed: the facts it did not confirm stay organization-attested'),
      })
    : undefined;
  const settings = keySettingsRpc({
    sessions: createClient(SessionService, toCore),
    audit: createClient(AuditService, toCore),
    keys,
  });
  const port = await backend.serve({
    routes: (router) =>
      router.service(EvidenceService, { ...evidenceRpc({ core, packages, keys, platform, attest }), ...settings }),
    internal: EVIDENCE_INTERNAL_RPCS,
  });
  return { port, shutdown: backend.shutdown };
}
