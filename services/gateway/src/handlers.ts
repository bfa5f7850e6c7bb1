import type { JsonObject } from '@bufbuild/protobuf';
import {
  BulkInviteItem,
  BulkInviteRequest,
  EventTypeQuery,
  EvidenceQuery,
  PUBLIC_EVENT_TYPES,
  WebhookListenQuery,
  type Operation,
} from '@cluster/contracts';
import { DomainError } from '@cluster/platform';
import { EvidenceService, UserService, WebhookService } from '@cluster/proto';
import { eventStream, type ServerSentEvent } from './http/event-stream.ts';
import { ok } from './http/results.ts';
import { handler, type NamedHandler } from './http/route.ts';
import { toStruct } from './http/struct.ts';
import type { ListenMessage } from '@cluster/proto';
import { validateBody } from './http/validate.ts';

/** The key of an operation's handler here: its method and path, as the OpenAPI document and the docs name it. */
export const handlerKey = (operation: Pick<Operation, 'method' | 'path'>) => `${operation.method} ${operation.path}`;

/** The catalogue's answers, serialised once: it is the same for every key (`emitted` filters it). */
const catalogueAnswers = new Map(
  [undefined, true, false].map((emitted) => {
    const data = PUBLIC_EVENT_TYPES.filter((e) => emitted === undefined || e.emitted === emitted);
    return [emitted, Buffer.from(JSON.stringify({ data, total: data.length }))];
  }),
);

/** Validates one bulk item on its own: `{index, item}` when valid, `{index, item?, error}` when not. */
function checkItem(item: unknown, index: number): JsonObject {
  const asObject = item !== null && typeof item === 'object' && !Array.isArray(item) ? toStruct(item) : undefined;
  try {
    validateBody(BulkInviteItem, item);
    return { index, item: asObject ?? null };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const problems = (err.details?.errors ?? []) as { path: string; message: string }[];
    return {
      index,
      ...(asObject ? { item: asObject } : {}),
      error: problems.map((p) => `${p.path || '/'}: ${p.message}`).join('; '),
    };
  }
}

/** A Listen message as a server-sent event: a delivery's id is the event's `id:`. */
function listenEvent(m: ListenMessage): ServerSentEvent {
  const id =
    m.event === 'delivery' ? (JSON.parse(Buffer.from(m.data).toString('utf8')) as { deliveryId?: string }).deliveryId : undefined;
  return { event: m.event, id, data: m.data };
}

/** The rest of a Listen call's messages as server-sent events. */
async function* listenEvents(messages: AsyncIterator<ListenMessage>): AsyncGenerator<ServerSentEvent> {
  for (let next = await messages.next(); !next.done; next = await messages.next()) yield listenEvent(next.value);
}

/**
 * The handlers of the operations that do something of their own, by method and path: every other
 * operation's handler is derived from its shape (http/derived-handler.ts).
 */
export const HANDLERS: Readonly<Record<string, NamedHandler>> = {
  // The signed package, its bytes as the evidence service signed them, and its signatures and the
  // release's signed head (docs/evidence.md, "The head") as headers.
  'GET /releases/:id/evidence': handler(
    { service: EvidenceService, rpc: 'getReleaseEvidence', query: EvidenceQuery },
    async ({ actor, params, query, call }) => {
      const res = await call({ actor, id: params.id, sequence: query.sequence ?? 0 });
      if (res.package.byteLength === 0 || !res.platformSignature || res.head.byteLength === 0 || !res.headSignature)
        throw new Error('the evidence service answered without a signed package and head');
      const headers: Record<string, string> = {
        'X-Service-Evidence-Platform-Signature': `ed25519=${res.platformSignature}`,
        'X-Service-Evidence-Platform-Key-Id': res.platformKeyId,
        'X-Service-Evidence-Head': Buffer.from(res.head).toString('base64url'),
        'X-Service-Evidence-Head-Signature': `ed25519=${res.headSignature}`,
        ...(res.signature
          ? { 'X-Service-Evidence-Signature': `sha256=${res.signature}`, 'X-Service-Evidence-Key-Prefix': res.keyPrefix }
          : {}),
      };
      return { status: 200, body: res.package, headers };
    },
  ),
  // Each item checked on its own: the valid ones are invited, the others answered with their problems.
  'POST /users/bulk-invite': handler(
    { service: UserService, rpc: 'bulkInvite', body: BulkInviteRequest },
    async ({ actor, body, call }) => {
      const invites = body.invites.map(checkItem);
      return ok((await call({ actor, body: { invites, sendInvite: body.sendInvite === true } })).resource);
    },
  ),
  // The catalogue holds no organization's data: the gateway answers it.
  'GET /webhooks/event-types': handler({ query: EventTypeQuery }, async ({ query }) => ok(catalogueAnswers.get(query.emitted)!)),
  // A delivery and a recovery are named under their subscription: its id goes with theirs.
  'GET /webhooks/:id/deliveries/:deliveryId': handler(
    { service: WebhookService, rpc: 'getDelivery' },
    async ({ actor, params, call }) =>
      ok((await call({ actor, id: params.deliveryId, query: { subscriptionId: params.id } })).resource),
  ),
  'POST /webhooks/:id/deliveries/:deliveryId/redeliver': handler(
    { service: WebhookService, rpc: 'redeliverDelivery' },
    async ({ actor, params, call }) =>
      ok((await call({ actor, id: params.deliveryId, query: { subscriptionId: params.id } })).resource),
  ),
  // A stream (docs/decisions-webhooks.md, "Local listening"): the backend call has no deadline and lasts as long
  // as the client's connection; its first message (`ready`) is awaited here, so a refusal (400, 403, 429) is
  // an ordinary error answer, not a stream that ends at once.
  'GET /webhooks/listen': handler(
    { service: WebhookService, rpc: 'listen', query: WebhookListenQuery },
    async ({ actor, query, call }) => {
      const abort = new AbortController();
      const messages = call({ actor, id: '', query: toStruct(query) }, { signal: abort.signal, timeoutMs: 0 })[
        Symbol.asyncIterator
      ]();
      try {
        const first = await messages.next();
        if (first.done) throw new Error('the delivery service ended the stream before it was ready');
        const body = eventStream(listenEvent(first.value), listenEvents(messages), () => abort.abort());
        return { status: 200, stream: { type: 'text/event-stream', body } };
      } catch (err) {
        abort.abort();
        throw err;
      }
    },
  ),
  'GET /webhooks/:id/recoveries/:recoveryId': handler(
    { service: WebhookService, rpc: 'getRecovery' },
    async ({ actor, params, call }) =>
      ok((await call({ actor, id: params.recoveryId, query: { subscriptionId: params.id } })).resource),
  ),
};
