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
