import {
  createActorConfirmation,
  createRpcTransport,
  createTokenSigner,
  createTokenVerifier,
  servedRpcs,
  type ActorClaims,
  type InternalRpcs,
  type Shutdown,
} from '@cluster/platform';
import { createBackend } from '@cluster/platform/service';
import { createClient } from '@connectrpc/connect';
import { AuthService, PortalService } from '@cluster/proto';
import { DEV_SECRET_KEY_MATERIAL, type DeliveryConfig } from './config.ts';
import { migrations } from './migrations/index.ts';
import { createPortalSessionCheck } from './features/portal/session-check.ts';
import { createPortalStore } from './features/portal/store.ts';
import { createAnswerBox } from './shared/webhook-secret-box.ts';
import { createDeliveryWorker } from './worker.ts';

/**
 * What the delivery service serves besides the operation table's: the gateway opens a portal link,
 * resolves a portal session's cookie and ends the session its page signs out of (docs/portal.md); no
 * call carries an actor: the link's or the session's token (and, to end it, its CSRF token) is the
 * proof, checked against its stored hash.
 */
const DELIVERY_INTERNAL_RPCS: InternalRpcs = {
  [`${PortalService.typeName}/OpenPortalSession`]: { callers: ['gateway'], actorFrom: 'message' },
  [`${PortalService.typeName}/AuthenticatePortalSession`]: { callers: ['gateway'], actorFrom: 'message' },
  [`${PortalService.typeName}/EndPortalSession`]: { callers: ['gateway'], actorFrom: 'message' },
};

/**
 * Composition root of the delivery service: the shared backend (createBackend) with the delivery
 * worker (worker.ts: stores, relay, audit forwarder, fan-out, delivery loop, periodic jobs, routes).
 */
export async function startDelivery(config: DeliveryConfig): Promise<{ port: number; shutdown: Shutdown }> {
  const backend = createBackend('delivery', config);
  const db = await backend.openDatabase(migrations, { poolMax: config.dbPoolMax });
  // Kafka is not needed to send what is due (docs/runbook.md): a broker that is down at start delays
  // the topics and the fan-out, not the service.
  const { kafka, topics: topicsStep } = await backend.connectKafka(config);
  const coreTransport = createRpcTransport(config.coreUrl, { sign: createTokenSigner(config.serviceKeys), audience: 'core' });
  const coreAuth = createClient(AuthService, coreTransport);
  // Whether a gateway token's actor is its key's current one (asked once per actor every few seconds),
  // and, when it names a portal session, whether that session is live here (every time: session-check.ts).
  const confirmActor = createActorConfirmation((actor) =>
    coreAuth.confirmActor({ actor: { ...actor, requestId: '' } }, { timeoutMs: 5_000 }),
  );
  const portalSession = createPortalSessionCheck(createPortalStore(db));
  const currentActor = async (claims: ActorClaims): Promise<ActorClaims> => {
    await portalSession(claims);
    return confirmActor(claims);
  };

  const worker = createDeliveryWorker({ config, backend, db, kafka, core: coreTransport, currentActor });
  worker.start();
  await backend.kafkaStep('starting the fan-out consumer', async () => {
    if (await topicsStep.done) await worker.startFanout(); // not when stopped first (shutdown)
  });

  const port = await backend.serve({
    routes: worker.routes,
    // The gateway's calls for API keys meet the rules of their routes here too (docs/security.md), for an
    // actor the core confirms is its key's current one.
    trust: {
      verify: createTokenVerifier(config.serviceKeys),
      policyOf: servedRpcs('delivery', DELIVERY_INTERNAL_RPCS),
      currentActor,
    },
    sealAnswers: createAnswerBox(config.secretKeys ?? [DEV_SECRET_KEY_MATERIAL]),
    checks: worker.checks,
    stopIntake: worker.stopIntake,
    drain: worker.drain,
    close: worker.close,
  });
  return { port, shutdown: backend.shutdown };
}
