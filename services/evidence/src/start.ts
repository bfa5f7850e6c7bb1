import { createClient } from '@connectrpc/connect';
import { createDb, ensureDatabase, pingDb, prepareSchema } from '@cluster/db';
import {
  ConfigError,
  createLogger,
  createMetrics,
  createRpcTransport,
  createReadiness,
  createServiceServer,
  createShutdown,
  createTokenSigner,
  createTokenVerifier,
  retiredKeyWarnings,
  shutdownTelemetry,
  type Shutdown,
} from '@cluster/platform';
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

/** Composition root of the evidence service: pool and migrations, the core client, keys, the Connect server. */
export async function startEvidence(config: EvidenceConfig): Promise<{ port: number; shutdown: Shutdown }> {
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required');
  const logger = createLogger('evidence', config.logLevel);
  const metrics = createMetrics('evidence');
  const shutdown = createShutdown(logger, config.shutdownDeadlineMs);
  if (!config.secretKeys) logger.warn('EVIDENCE_SECRET_KEY is unset: evidence keys are sealed with a development key');
  if (!config.development) for (const w of retiredKeyWarnings('EVIDENCE_SECRET_KEY', config.secretKeys ?? [])) logger.warn(w);
  if (config.devSigningKey)
    logger.warn('EVIDENCE_SIGNING_KEY is unset: evidence packages are signed with the public development key');
  if (config.createDatabase) await ensureDatabase(config.databaseUrl);
  await prepareSchema(config.databaseUrl, 'evidence', migrations, config.migrateOnStart);
  const db = createDb(config.databaseUrl, {
    schema: 'evidence',
    application: 'evidence',
    poolMax: 4,
    logger,
    timeouts: config.db,
  });
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
  const readiness = createReadiness({ checks: { postgres: () => pingDb(db) }, required: ['postgres'], metrics });
  const server = createServiceServer({
    service: 'evidence',
    routes: (router) => router.service(EvidenceService, { ...evidenceRpc({ core, packages, keys, platform }), ...settings }),
    trust: { verify: createTokenVerifier(config.serviceKeys), policyOf: () => ({ callers: ['gateway'] }) },
    logger,
    metrics,
    ready: readiness.probe,
  });
  const port = await server.listen(config.port, config.listenHost);
  logger.info({ port }, 'evidence listening');
  shutdown.add('not_ready', 'readiness', () => server.drain());
  shutdown.add('stop_intake', 'rpc server', () => server.close());
  shutdown.add('close', 'readiness checks', () => readiness.stop());
  shutdown.add('close', 'postgres pool', () => db.destroy());
  shutdown.add('close', 'telemetry', () => shutdownTelemetry());
  return { port, shutdown };
}
