import type { ServiceImpl } from '@connectrpc/connect';
import type { CodeHostService } from '@cluster/proto';
import type { createCodeHostService } from './service.ts';

/** CodeHostService over Connect (its caller: the gateway, forwarding `POST /hooks/github/:organizationId`). */
export function codeHostRpc(codehost: ReturnType<typeof createCodeHostService>): ServiceImpl<typeof CodeHostService> {
  return {
    async receiveWebhook(req) {
      return codehost.receive({
        organizationId: req.organizationId,
        provider: req.provider,
        event: req.event,
        deliveryId: req.deliveryId,
        signature: req.signature,
        body: req.body,
      });
    },
  };
}
