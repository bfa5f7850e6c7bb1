import http from 'node:http';
import https from 'node:https';
import { SendMessageCommand, SQSClient, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { createGuardedLookup } from './address-guard.ts';
import {
  createConnectionCache,
  describeError,
  failure,
  refusedLiteral,
  settingsKey,
  within,
  type Destination,
  type DestinationOptions,
  type SqsDestination,
} from './destination.ts';

/**
 * Deliveries to an Amazon SQS queue (docs/webhooks.md, "Amazon SQS") with the AWS SDK: one client per
 * destination (its endpoint the queue URL's origin, so an SQS-compatible server works alike), over agents whose
 * every connection passes the SSRF guard; the destination's static credentials, or the SDK's default provider
 * chain (environment, web identity, the instance's or pod's role). The body is the message; the signature
 * headers are message attributes. A `.fifo` queue gets MessageGroupId = the entity id (ordering) and
 * MessageDeduplicationId = the delivery id (a retry after a lost answer is dropped by the queue).
 */
export function createSqsDestination(opts: DestinationOptions): Destination<SqsDestination> {
  const lookup = createGuardedLookup(opts.allowPrivate);
  const httpAgent = new http.Agent({ keepAlive: true, lookup });
  const httpsAgent = new https.Agent({ keepAlive: true, lookup });
  const clients = createConnectionCache<SQSClient>({
    idleMs: opts.idleMs ?? 60_000,
    close: async (c) => c.destroy(),
  });

  const open = async (d: SqsDestination): Promise<SQSClient> =>
    new SQSClient({
      region: d.region,
      endpoint: new URL(d.queueUrl).origin,
      ...(d.accessKeyId && d.secretAccessKey
        ? { credentials: { accessKeyId: d.accessKeyId, secretAccessKey: d.secretAccessKey } }
        : {}),
      maxAttempts: 1,
      requestHandler: { httpAgent, httpsAgent, connectionTimeout: opts.timeoutMs, requestTimeout: opts.timeoutMs },
    });

  return {
    async send(d, m) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const host = new URL(d.queueUrl).hostname.replace(/^\[|\]$/g, '');
      const refused = refusedLiteral(host, opts.allowPrivate);
      if (refused) return failure(`sqs: ${refused}`);
      const key = settingsKey(m.subscriptionId, d);
      try {
        const client = await clients.get(key, () => open(d));
        const attributes: Record<string, MessageAttributeValue> = Object.fromEntries(
          Object.entries(m.headers).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
        );
        const fifo = new URL(d.queueUrl).pathname.endsWith('.fifo');
        const sent = await within(
          opts.timeoutMs,
          'no answer from SQS',
          client.send(
            new SendMessageCommand({
              QueueUrl: d.queueUrl,
              MessageBody: m.body,
              MessageAttributes: attributes,
              ...(fifo ? { MessageGroupId: m.key ?? m.subscriptionId, MessageDeduplicationId: m.deliveryId } : {}),
            }),
          ),
        );
        return {
          ok: true,
          responseCode: sent.$metadata.httpStatusCode ?? null,
          responseBody: `sqs: MessageId ${sent.MessageId ?? '?'}`,
          error: null,
          durationMs: elapsed(),
        };
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? null;
        return { ...failure(`sqs: ${describeError(err)}`, elapsed()), responseCode: status };
      }
    },
    async close() {
      await clients.closeAll();
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
