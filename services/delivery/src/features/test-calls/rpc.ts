import type { ServiceImpl } from '@connectrpc/connect';
import type { WebhookTestRequestBody } from '@cluster/contracts';
import { bodyOf, jsonBytes } from '@cluster/platform';
import type { WebhookService } from '@cluster/proto';
import type { TestCallService } from './service.ts';

/** The test-call method of WebhookService over Connect. */
export function testCallRpc(testCalls: TestCallService): Pick<ServiceImpl<typeof WebhookService>, 'testWebhook'> {
  return {
    async testWebhook(req) {
      return { resource: jsonBytes(await testCalls.fire(req.actor, req.id, bodyOf<WebhookTestRequestBody>(req.body))) };
    },
  };
}
