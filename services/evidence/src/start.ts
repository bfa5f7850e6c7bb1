import { OPERATION_RULES } from '@cluster/contracts';
import { createClient } from '@connectrpc/connect';
import { createRpcTransport, createTokenSigner, retiredKeyWarnings, type Shutdown } from '@cluster/platform';
import { createBackend } from '@cluster/platform/service';
import { AuditService, EvidenceService, ReleaseEvidenceService, SessionService } from '@cluster/proto';
import type { EvidenceConfig } from './config.ts';
import { evidenceKeyBox } from './features/keys/box.ts';
import { createEvidenceKeyService } from './features/keys/service.ts';
import { createEvidenceKeyStore } from './features/keys/store.ts';
import { createPlatformSigner } from './features/platform-keys/signer.ts';
import { evidenceRpc } from './features/packages/rpc.ts';
import { createPackageStore } from './features/packages/store.ts';
import { keySettingsRpc } from './features/keys/rpc.ts';
import { migrations } from './migrations/index.ts';

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
  const settings = keySettingsRpc({
    sessions: createClient(SessionService, toCore),
    audit: createClient(AuditService, toCore),
    keys,
  });
  const port = await backend.serve({
    routes: (router) => router.service(EvidenceService, { ...evidenceRpc({ core, packages, keys, platform }), ...settings }),
    // The gateway's calls for API keys meet the rules of their routes here too (docs/security.md).
    rules: OPERATION_RULES,
  });
  return { port, shutdown: backend.shutdown };
}
