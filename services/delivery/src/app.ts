import { recoveryRpc } from './features/recovery/rpc.ts';
import type { RecoveryService } from './features/recovery/service.ts';
import type { ConnectRouter, ServiceImpl } from '@connectrpc/connect';
import type { SecretBox } from '@cluster/platform';
import { PortalService, WebhookService } from '@cluster/proto';
import { createPortalService } from './features/portal/service.ts';
import { portalRpc } from './features/portal/rpc.ts';
import { createDeliveryService } from './features/deliveries/service.ts';
import { deliveryRpc } from './features/deliveries/rpc.ts';
import { createSubscriptionService } from './features/subscriptions/service.ts';
import { subscriptionRpc } from './features/subscriptions/rpc.ts';
import { createTestCallService } from './features/test-calls/service.ts';
import { testCallRpc } from './features/test-calls/rpc.ts';
import { listenRpc } from './features/listen/rpc.ts';
import type { ListenService } from './features/listen/service.ts';
import type { DeliveryMetrics } from './metrics.ts';
import { checkDestination, checkHost } from './sender/address-guard.ts';
import type { DeliverySender } from './sender/destination.ts';
import type { Stores } from './stores.ts';

/** What the delivery service's routes are built from (made in start.ts). */
export interface DeliveryAppDeps {
  stores: Stores;
  secrets: SecretBox;
  sender: DeliverySender;
  metrics: DeliveryMetrics;
  /** Which destinations subscriptions may name (sender/address-guard.ts). */
  destinations: { production: boolean; allowPrivate: boolean };
  /** Test calls per organization per hour. */
  testLimitPerHour: number;
  /** How long every attempt may fail before a subscription is disabled (WEBHOOK_DISABLE_AFTER_HOURS: the statistics' `disablesAt`). */
  disableAfterMs?: number;
  /** Called after a write committed its audit record (wakes the forwarder to the core). */
  audited?: () => void;
  /** Redeliveries and recoveries (made in start.ts: they reach the sender loop and the health rules). */
  recovery: RecoveryService;
  /** Listening CLIs' streams (made in worker.ts: the due notifications wake them). */
  listen: ListenService;
}

/** The delivery service's Connect routes: services over the stores, then their RPC implementations. */
export function buildDeliveryRoutes(deps: DeliveryAppDeps) {
  const { stores, secrets, sender, metrics, audited } = deps;
  const subscriptions = createSubscriptionService(stores, {
    secrets,
    checkDestination: (url) => checkDestination(url, deps.destinations),
    checkHost: (host) => checkHost(host, deps.destinations),
    production: deps.destinations.production,
    platformCertificate: sender.platformCertificate,
    audited,
  });
  const deliveries = createDeliveryService(stores, { disableAfterMs: deps.disableAfterMs });
  const testCalls = createTestCallService(stores, { sender, secrets, metrics, limitPerHour: deps.testLimitPerHour, audited });
  const webhooks: ServiceImpl<typeof WebhookService> = {
    ...subscriptionRpc(subscriptions),
    ...testCallRpc(testCalls),
    ...deliveryRpc(deliveries),
    ...recoveryRpc(deps.recovery),
    ...listenRpc(deps.listen),
  };
  const portal = portalRpc(createPortalService(stores, { audited }));
  return (router: ConnectRouter) => {
    router.service(WebhookService, webhooks);
    router.service(PortalService, portal);
  };
}
