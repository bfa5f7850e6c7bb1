import type { ServiceImpl } from '@connectrpc/connect';
import type { IdempotencyService } from '@cluster/proto';
import type { createIdempotencyService } from './service.ts';

/** IdempotencyService over Connect: the gateway's shared Idempotency-Key records. */
export function idempotencyRpc(idem: ReturnType<typeof createIdempotencyService>): ServiceImpl<typeof IdempotencyService> {
  return {
    async beginIdempotent(req) {
      const r = await idem.begin(req.apiKeyId, req.key, req.fingerprint);
      return r.state === 'replay' ? { state: r.state, status: r.status, body: r.body, headers: r.headers } : { state: r.state };
    },
    async completeIdempotent(req) {
      await idem.complete(req.apiKeyId, req.key, req.status, req.body, req.headers);
      return {};
    },
    async releaseIdempotent(req) {
      await idem.release(req.apiKeyId, req.key);
      return {};
    },
  };
}
