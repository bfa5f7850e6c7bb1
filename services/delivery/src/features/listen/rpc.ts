import { create, type JsonObject } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { DomainError, verifiedCallKey } from '@cluster/platform';
import { ActorSchema, type WebhookService } from '@cluster/proto';
import type { ListenService } from './service.ts';

const encoder = new TextEncoder();

/**
 * The Listen method of WebhookService over Connect: a server stream. The service token's actor is the
 * caller's (a stream's message is not bound by the token interceptor, which binds unary messages), and
 * the call's abort (the gateway's client went away) ends the stream.
 */
export function listenRpc(listen: ListenService): Pick<ServiceImpl<typeof WebhookService>, 'listen'> {
  return {
    async *listen(req, ctx) {
      const claims = ctx.values.get(verifiedCallKey)?.actor;
      if (!claims) throw new DomainError('unauthorized', 'this call needs a token carrying an actor');
      const actor = create(ActorSchema, { ...claims, requestId: ctx.requestHeader.get('x-request-id') ?? '' });
      for await (const m of listen.listen(actor, (req.query ?? {}) as JsonObject, ctx.signal)) {
        yield { event: m.event, data: encoder.encode(JSON.stringify(m.data)) };
      }
    },
  };
}
