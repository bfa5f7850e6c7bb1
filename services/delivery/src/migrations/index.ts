import type { Migration } from '@cluster/db';
import { deliverySchema } from './001-delivery.ts';
import { auditOutbox } from './002-audit-outbox.ts';
import { deliveryWriteAmplification } from './003-delivery-write-amplification.ts';
import { deliveryTrace } from './004-delivery-trace.ts';
import { secretGrace } from './005-secret-grace.ts';
import { subscriptionHealth } from './006-subscription-health.ts';
import { recoveries } from './007-recoveries.ts';
import { ordering } from './008-ordering.ts';
import { signatureScheme } from './009-signature-scheme.ts';
import { idempotencyKeys } from './010-idempotency-keys.ts';
import { outboxSlots } from './011-outbox-slots.ts';
import { undeliveredIndex } from './012-undelivered-index.ts';
import { receiverAuth } from './013-receiver-auth.ts';
import { portalSessions } from './014-portal-sessions.ts';
import { listen } from './015-listen.ts';
import { subscriptionFilter } from './016-subscription-filter.ts';
import { throttling } from './017-throttling.ts';
import { partitionedDeliveries } from './018-partitioned-deliveries.ts';
import { statsRollup } from './019-stats-rollup.ts';
import { portalSessionEnd } from './020-portal-session-end.ts';

/** The delivery service's migrations, in order (run by `migrate()` under an advisory lock). */
export const migrations: Migration[] = [
  deliverySchema,
  auditOutbox,
  deliveryWriteAmplification,
  deliveryTrace,
  secretGrace,
  subscriptionHealth,
  recoveries,
  ordering,
  signatureScheme,
  idempotencyKeys,
  outboxSlots,
  undeliveredIndex,
  receiverAuth,
  portalSessions,
  listen,
  subscriptionFilter,
  throttling,
  partitionedDeliveries,
  statsRollup,
  portalSessionEnd,
];
