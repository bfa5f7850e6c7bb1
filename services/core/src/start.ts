import { createProducer } from '@cluster/kafka';
import { createOutboxRelay } from '@cluster/outbox';
import type { Shutdown } from '@cluster/platform';
import { createBackend } from '@cluster/platform/service';
import { buildCore } from './app.ts';
import { CODEHOST_DELIVERY_KEEP_MS } from './features/codehost/service.ts';
import { OAUTH_KEEP_MS } from './features/oauth/grants.ts';
import { createOAuthStore } from './features/oauth/store.ts';
import type { CoreConfig } from './config.ts';
import { migrations } from './migrations/index.ts';
import { createStores } from './stores.ts';

/** How often the core's housekeeping runs: code-host delivery ids and dead OAuth grants and clients past their keep. (Idempotency-Key records: the bootstrap's sweep.) */
const HOUSEKEEPING_MS = 10 * 60 * 1000;

/** Composition root of the core: the shared backend (createBackend) with its relay, housekeeping and routes. */
export async function startCore(
  config: CoreConfig,
): Promise<{ port: number; shutdown: Shutdown; flushOutbox: () => Promise<number> }> {
  const backend = createBackend('core', config);
  const { logger, metrics } = backend;
  const db = await backend.openDatabase(migrations, { poolMax: config.dbPoolMax });
  // Writes wait in the outbox, so a broker that is down at start delays the topics (and the relay,
  // which retries until they exist), not the service.
  const { kafka } = await backend.connectKafka(config);

  const relay = createOutboxRelay({
    db,
    schema: 'core',
    databaseUrl: config.databaseUrl,
    newProducer: () => createProducer(kafka),
    logger,
    metrics,
    idleMs: config.relayIdleMs,
    lingerMs: config.relayLingerMs,
    slots: config.relaySlots,
    leaseMs: config.relayLeaseMs,
    topicPrefix: config.topicPrefix,
    timeouts: config.db,
  });
  relay.start();
  const stores = createStores(db);
  const codehostPrune = backend.periodicJob({
    name: 'codehost_delivery_prune',
    what: 'pruning of code-host delivery ids',
    intervalMs: HOUSEKEEPING_MS,
    run: () => stores.codehost.pruneDeliveries(new Date(Date.now() - CODEHOST_DELIVERY_KEEP_MS)),
  });
  codehostPrune.start();
  const oauthStore = createOAuthStore(db);
  const oauthPrune = backend.periodicJob({
    name: 'oauth_prune',
    what: 'pruning of dead OAuth grants and unused clients',
    intervalMs: HOUSEKEEPING_MS,
    run: () => oauthStore.prune(new Date(Date.now() - OAUTH_KEEP_MS)),
  });
  oauthPrune.start();

  const { routes, trust } = buildCore({ db, serviceKeys: config.serviceKeys, codehostSecretKeys: config.codehostSecretKeys });
  const port = await backend.serve({
    routes,
    trust,
    drain: {
      'outbox relay': () => relay.stop(),
      'code-host delivery pruning': () => codehostPrune.stop(),
      'OAuth pruning': () => oauthPrune.stop(),
    },
  });
  return { port, shutdown: backend.shutdown, flushOutbox: () => relay.flush() };
}
