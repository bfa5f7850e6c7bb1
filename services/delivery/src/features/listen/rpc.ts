import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { DomainError, toConnectError, verifiedCallKey } from '@cluster/platform';
import { ActorSchema, type WebhookService } from '@cluster/proto';
import type { ListenService } from './service.ts';

const encoder = new TextEncoder();

/**
 * The Listen method of WebhookService over Connect: a server stream. The service token's actor is the
 * caller's (a stream's message is not bound by the token interceptor, which binds unary messages), and
 * the call's abort (the gateway's client went away) ends the stream. A stream's failure is not seen by the
 * server's interceptors (they return when the stream begins): it is made a Connect error here, so a refusal
 * keeps its reason (400, 429) and anything else is `internal`.
 */
export function listenRpc(listen: ListenService): Pick<ServiceImpl<typeof WebhookService>, 'listen'> {
  return {
    async *listen(req, ctx) {
      const claims = ctx.values.get(verifiedCallKey)?.actor;
      if (!claims) throw new DomainError('unauthorized', 'this call needs a token carrying an actor');
      const actor = create(ActorSchema, { ...claims, requestId: ctx.requestHeader.get('x-request-id') ?? '' });
      try {
        for await (const m of listen.listen(actor, req.query ?? {}, ctx.signal)) {
          yield { event: m.event, data: encoder.encode(JSON.stringify(m.data)) };
        }
      } catch (err) {
        throw toConnectError(err);
      }
    },
  };
}
