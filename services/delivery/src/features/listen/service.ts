import { randomUUID } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import {
  DomainError,
  claimsOf,
  createWaker,
  validation,
  requireActor,
  type ActorClaims,
  type PeriodicJobDefinition,
  type SecretBox,
  type Waker,
} from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { DeliveryMetrics } from '../../metrics.ts';
import { signDelivery } from '../../sender/attempt-delivery.ts';
import { newSigningSecret } from '../../shared/webhook-secret-box.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { recordAttemptOutcome } from '../attempts/outcome.ts';
import { checkEventNames } from '../subscriptions/service.ts';
import type { ListenStore } from './store.ts';

/** How long a stream's lease lasts, and how often an open stream renews it. */
export const LISTEN_TTL_MS = 60_000;
export const LISTEN_RENEW_MS = 20_000;
/** Temporary subscriptions an organization may have at once: a loop cannot open thousands. */
export const LISTEN_MAX_PER_ORGANIZATION = 5;
/** Deliveries reserved per look: a burst is streamed in batches, each renewing nothing but its own lease. */
const CLAIM_BATCH = 50;

/** One message of a stream: `ready` first, then a `delivery` per event. */
export interface ListenMessageOut {
  event: 'ready' | 'delivery';
  data: JsonObject;
}

/** What the listen feature needs besides the stores. */
export interface ListenPorts {
  store: ListenStore;
  secrets: SecretBox;
  metrics: Pick<DeliveryMetrics, 'deliveries' | 'attemptDuration'>;
  /** This replica's id: the destination of its streams' subscriptions (`listen:<id>`). */
  replicaId: string;
  /** How long a claimed delivery is held (WEBHOOK_LEASE_MS); the longest wait between looks (WEBHOOK_POLL_MS). */
  leaseMs: number;
  pollMs: number;
  ttlMs?: number;
  renewMs?: number;
  maxPerOrganization?: number;
  /**
   * The key's current actor, from the core: refuses a revoked key (401) and changed grants (actor_changed).
   * Asked when a stream opens and at each renewal, so a revoked key's stream ends within LISTEN_RENEW_MS.
   */
  currentActor?: (claims: ActorClaims) => Promise<ActorClaims>;
  /** Called after an opening's audit record was written (wakes the forwarder to the core). */
  audited?: () => void;
}

/** Refusals of an actor that end a stream: the key is revoked, or its grants changed (the CLI reconnects). */
const ENDS_STREAM = new Set(['unauthorized', 'invalid_key', 'key_revoked', 'actor_changed', 'forbidden', 'scope_violation']);

/** The selectors of `?events=`: comma-separated, `*` when none; checked as POST /webhooks checks eventNames. */
export function selectorsOf(events: unknown): string[] {
  const names =
    typeof events === 'string'
      ? events
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean)
      : [];
  try {
    return checkEventNames(names.length ? names : ['*']);
  } catch (err) {
    // The query's name for the field: `/events`, not the body's `/eventNames/0`.
    const errors = err instanceof DomainError ? err.details?.errors : undefined;
    if (!(err instanceof DomainError) || !Array.isArray(errors)) throw err;
    throw validation(errors.map((e) => ({ path: '/events', message: String((e as { message?: unknown }).message) })));
  }
}

/**
 * GET /webhooks/listen (docs/decisions-webhooks.md, "Local listening"): a temporary subscription of the
 * caller's organization for as long as the stream is open. The fan-out writes its deliveries as for any
 * subscription (the same matching, ids and tenant rule); the stream claims them (LISTEN delivery_due
 * wakes it: `wake`), signs each as an HTTP attempt would be signed and sends body and headers down the
 * stream, recording the attempt succeeded once written. Closing the stream deletes the subscription
 * and its deliveries; a replica killed mid-stream leaves a lease that lapses (`sweepJob`).
 */
export function createListenService(stores: Stores, ports: ListenPorts) {
  const { store } = ports;
  const ttlMs = ports.ttlMs ?? LISTEN_TTL_MS;
  const renewMs = ports.renewMs ?? LISTEN_RENEW_MS;
  const maxOpen = ports.maxPerOrganization ?? LISTEN_MAX_PER_ORGANIZATION;
  const streams = new Set<Waker>();

  /** Opens the temporary subscription (under the organization's cap) and audits it; answers it with its secret. */
  async function open(actor: Actor, eventNames: string[]) {
    const id = randomUUID();
    const secret = newSigningSecret();
    const row = await stores.transaction(async (tx) => {
      await store.lock(actor.organizationId);
      if ((await store.countOpen(actor.organizationId)) >= maxOpen)
        throw new DomainError(
          'rate_limit',
          `at most ${maxOpen} listeners per organization at once: stop one (its subscription goes when its stream closes)`,
        );
      const destination = `listen:${ports.replicaId}`;
      const opened = await store.open(
        {
          id,
          organizationId: actor.organizationId,
          destinationUrl: destination,
          destinationOrigin: destination,
          eventNames,
          enabled: true,
          description: 'cluster listen',
          ordering: 'none',
          signatureScheme: 'hmac-sha256',
          publicKey: null,
          secretSealed: ports.secrets.seal(secret, id),
          createdByUserId: actor.userId || null,
        },
        ttlMs,
      );
      await tx.record(
        apiWrite(actor, { entityType: 'webhook_subscription', action: 'listened', entityId: id, metadata: { eventNames } }),
      );
      return opened;
    });
    ports.audited?.();
    return { row, secret };
  }

  /** Whether the key behind a stream still holds: a core that cannot answer does not end it. */
  async function stillValid(actor: Actor): Promise<boolean> {
    try {
      await ports.currentActor?.(claimsOf(actor));
      return true;
    } catch (err) {
      return !(err instanceof DomainError && ENDS_STREAM.has(err.reason));
    }
  }

  /** Streams one claimed batch; false when the stream ended meanwhile. */
  async function* send(
    row: { id: string; secretSealed: string },
    signal: AbortSignal,
  ): AsyncGenerator<ListenMessageOut, boolean> {
    const batch = await store.claim(row.id, CLAIM_BATCH, ports.leaseMs);
    for (const d of batch) {
      if (signal.aborted) return false;
      const attemptedAt = new Date();
      const signed = signDelivery({ ...d, destinationUrl: '', secretSealed: row.secretSealed }, ports.secrets, attemptedAt);
      if ('error' in signed) throw new Error(signed.error);
      yield {
        event: 'delivery',
        data: { deliveryId: d.id, eventName: d.eventName, headers: { ...signed.headers }, body: d.body },
      };
      // Written to the stream: what the CLI's receiver answers is the CLI's to show, not a record here.
      await recordAttemptOutcome(
        { record: (item) => stores.attempts.recordAttempt(item), metrics: ports.metrics },
        {
          delivery: { ...d, destinationUrl: `listen:${ports.replicaId}` },
          result: {
            ok: true,
            responseCode: null,
            responseBody: null,
            error: null,
            durationMs: Date.now() - attemptedAt.getTime(),
          },
          attemptedAt,
          decision: { kind: 'succeeded' },
        },
      );
    }
    return batch.length > 0;
  }

  return {
    /** The stream of one listener, until `signal` aborts (the caller went away) or its subscription is swept. */
    async *listen(actorIn: Actor | undefined, query: JsonObject, signal: AbortSignal): AsyncGenerator<ListenMessageOut> {
      const actor = requireActor(actorIn);
      const eventNames = selectorsOf(query.events);
      await ports.currentActor?.(claimsOf(actor)); // as the token interceptor confirms a unary call's actor
      const { row, secret } = await open(actor, eventNames);
      const waker = createWaker();
      const stop = () => waker.stop();
      signal.addEventListener('abort', stop);
      streams.add(waker);
      try {
        yield { event: 'ready', data: { subscriptionId: row.id, secret, eventNames, expiresInSeconds: ttlMs / 1000 } };
        let renewAt = Date.now() + renewMs;
        while (!signal.aborted) {
          if (Date.now() >= renewAt) {
            // Swept, or the key was revoked meanwhile: the stream ends (the CLI reconnects, and is refused).
            if (!(await stillValid(actor)) || !(await store.renew(row.id, ttlMs))) return;
            renewAt = Date.now() + renewMs;
          }
          waker.clear();
          if (yield* send(row, signal)) continue;
          await waker.sleep(Math.min(ports.pollMs, Math.max(0, renewAt - Date.now())));
        }
      } finally {
        signal.removeEventListener('abort', stop);
        streams.delete(waker);
        await store.close(row.id);
      }
    },

    /** Deliveries may be due (LISTEN delivery_due, or this replica's fan-out): every stream looks. */
    wake() {
      for (const w of streams) w.wake();
    },

    /** Deletes the temporary subscriptions whose lease lapsed, on the health sweep's beat. */
    sweepJob(intervalMs: number): PeriodicJobDefinition {
      return {
        name: 'listen_sweep',
        what: 'lapsed listener subscriptions',
        intervalMs,
        run: async () => void (await store.removeLapsed()),
      };
    },
  };
}
export type ListenService = ReturnType<typeof createListenService>;
