export interface Webhook {
  id: string;
  destinationUrl: string;
  eventNames: string[];
  enabled: boolean;
  description: string | null;
  signatureScheme: 'hmac-sha256' | 'ed25519';
  publicKey: string | null;
  disabledReason: string | null;
  consecutiveFailures: number;
  failingSince: string | null;
  /** Where deliveries go: `http` (destinationUrl) or a broker (Kafka, AMQP, SQS), whose settings the API changes. */
  destination?: { type: 'http' | 'kafka' | 'amqp' | 'sqs' };
  /** Filter, throttling and the receiver's pause (docs/webhooks.md). */
  filter?: Record<string, unknown> | null;
  rateLimit?: number | null;
  maxInFlight?: number | null;
  pausedUntil?: string | null;
  createdAt: string;
}
export interface EventType {
  name: string;
  group: string;
  description: string;
  emitted: boolean;
  payloadSchema: Record<string, unknown>;
}
export interface Attempt {
  attempt: number;
  outcome: 'succeeded' | 'failed';
  responseCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
}
export interface Delivery {
  id: string;
  subscriptionId: string;
  eventName: string;
  status: 'pending' | 'succeeded' | 'failed' | 'dead_letter';
  attempts: number;
  responseCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number | null;
  createdAt: string;
  attemptLog?: Attempt[];
}
export interface Page<T> {
  data: T[];
  total: number;
}
/** One bucket of a subscription's statistics series (GET /webhooks/:id/stats). */
export interface StatsPoint {
  start: string;
  delivered: number;
  failed: number;
  successRatio: number | null;
  p50DurationMs: number | null;
  p99DurationMs: number | null;
}
/** GET /webhooks/:id/stats. */
export interface Stats {
  window: '24h' | '7d';
  since: string;
  deliveries: { total: number; succeeded: number; failed: number; pending: number; dead_letter: number };
  successRatio: number | null;
  attempts: {
    total: number;
    succeeded: number;
    failed: number;
    p50DurationMs: number | null;
    p95DurationMs: number | null;
    p99DurationMs: number | null;
  };
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  series: { bucket: 'hour' | 'day'; points: StatsPoint[] };
  disablesAt: string | null;
  /** Events the subscription's filter kept back in the window. */
  filtered?: number;
  /** Pauses the receiver asked for with Retry-After in the window. */
  throttling?: { pausedUntil: string | null; pauses: number; pausedSeconds: number };
}
