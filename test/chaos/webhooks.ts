import { verify } from '@cluster/webhook-verify';
import { startReceiver } from '../support/receiver.ts';

/** One verified webhook arrival at subscription `subscription` (its index). */
export interface Arrival {
  subscription: number;
  deliveryId: string;
  entryId: string;
  arrivedAt: number;
}

/** The soak's receiver: one path per subscription, each request verified with that subscription's secret. */
export interface VerifyingReceiver {
  arrivals: Arrival[];
  /** Requests whose signature did not verify (answered 401; must stay 0). */
  invalid(): number;
  /** Creates `count` subscriptions to `eventName` through the API and returns their ids. */
  subscribe(api: ApiCall, count: number, eventName: string): Promise<string[]>;
  close(): Promise<void>;
}

export type ApiCall = (method: 'POST', path: string, body: unknown) => Promise<{ status: number; body: unknown }>;

/**
 * Starts the receiver on 127.0.0.1. Each request is verified as an integrator would, with
 * @cluster/webhook-verify (both signature schemes, over the raw body) before it counts; a request
 * that does not verify is answered 401, so the service retries it, and counted.
 */
export async function startVerifyingReceiver(): Promise<VerifyingReceiver> {
  const receiver = await startReceiver('/chaos');
  const secrets: string[] = [];
  const arrivals: Arrival[] = [];
  let invalid = 0;
  receiver.respond((req) => {
    const subscription = Number(req.path.split('/').pop());
    const secret = secrets[subscription];
    try {
      if (secret === undefined) throw new Error(`no subscription at ${req.path}`);
      const hook = verify(req.rawBody, req.headers, secret, { scheme: 'both' });
      arrivals.push({
        subscription,
        deliveryId: hook.id,
        entryId: (hook.payload as { entityId: string }).entityId,
        arrivedAt: req.arrivedAt,
      });
      return { status: 200 };
    } catch {
      invalid++;
      return { status: 401 };
    }
  });
  // The receiver keeps every request it got; the soak needs only the arrivals.
  const forget = setInterval(() => receiver.received.splice(0), 10_000).unref();
  return {
    arrivals,
    invalid: () => invalid,
    async subscribe(api, count, eventName) {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const res = await api('POST', '/webhooks', { destinationUrl: `${receiver.url}/${i}`, eventNames: [eventName] });
        const webhook = res.body as { id: string; hmacSecret: string };
        if (res.status !== 201) throw new Error(`POST /webhooks answered ${res.status}: ${JSON.stringify(res.body)}`);
        secrets[i] = webhook.hmacSecret;
        ids.push(webhook.id);
      }
      return ids;
    },
    async close() {
      clearInterval(forget);
      await receiver.close();
    },
  };
}
