import type { SecretBox } from '@cluster/platform';
import type { BrokerDestination } from './destination.ts';

/**
 * How deliveries authenticate to a subscription's receiver (docs/webhooks.md, "Authenticating to your
 * endpoint"); `mtls` without a certificate presents the platform's own client certificate.
 */
export type ReceiverAuth =
  | { type: 'bearer'; token: string }
  | { type: 'basic'; username: string; password: string }
  | { type: 'oauth2'; tokenUrl: string; clientId: string; clientSecret: string; scope?: string; audience?: string }
  | { type: 'mtls'; certificate?: string; privateKey?: string };

/**
 * A subscription's custom headers and receiver authentication, and its broker destination (Kafka, AMQP, SQS:
 * sender/destination.ts; absent for HTTP), as sealed in `receiverSealed`.
 */
export interface ReceiverSettings {
  headers: Record<string, string>;
  auth: ReceiverAuth | null;
  destination?: BrokerDestination | null;
}

/** What the sealed settings are bound to: the subscription, and this purpose (a signing secret's ciphertext does not open here). */
const bindingOf = (subscriptionId: string) => `${subscriptionId}:receiver`;

/** Seals a subscription's receiver settings, or null when there are none. */
export function sealReceiver(secrets: SecretBox, subscriptionId: string, settings: ReceiverSettings): string | null {
  if (!Object.keys(settings.headers).length && !settings.auth && !settings.destination) return null;
  return secrets.seal(JSON.stringify(settings), bindingOf(subscriptionId));
}

/** Opens sealed receiver settings (none when null); throws when no key of the keyring opens them. */
export function openReceiver(secrets: SecretBox, subscriptionId: string, sealed: string | null | undefined): ReceiverSettings {
  if (!sealed) return { headers: {}, auth: null };
  return JSON.parse(secrets.open(sealed, bindingOf(subscriptionId))) as ReceiverSettings;
}

/** Re-seals receiver settings under the keyring's current key (the re-seal after a key rotation). */
export function resealReceiver(secrets: SecretBox, subscriptionId: string, sealed: string): string {
  return secrets.seal(secrets.open(sealed, bindingOf(subscriptionId)), bindingOf(subscriptionId));
}
