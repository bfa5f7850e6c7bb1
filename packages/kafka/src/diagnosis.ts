import { CERTIFICATE_CODES } from '@cluster/db/certificate-codes';
import type { Admin } from 'kafkajs';

// Whether the broker answers, and why a call failed for good (what a start reports instead of retrying).

/** Broker answers that only a change of credentials or ACLs fixes. */
const AUTHORIZATION_TYPES = new Set([
  'TOPIC_AUTHORIZATION_FAILED',
  'GROUP_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'SASL_AUTHENTICATION_FAILED',
  'UNSUPPORTED_SASL_MECHANISM',
  'ILLEGAL_SASL_STATE',
]);

/**
 * Why a Kafka call failed for good, or undefined when retrying may help (a broker down, a leader
 * moving): a refused login, a certificate that does not verify, a missing ACL, topics this process
 * may not create. A start that meets one stops with this reason instead of retrying in the
 * background for ever. Looks through kafkajs' wrappers (a retry that gave up keeps its cause).
 */
export function kafkaStartProblem(err: unknown): string | undefined {
  for (
    let e = err as
        { name?: string; message?: string; code?: string; type?: string; cause?: unknown; originalError?: unknown } | undefined,
      depth = 0;
    e && depth < 10;
    depth++
  ) {
    if (e.name === 'TopicsNotReadyError') return e.message;
    if (e.name === 'KafkaJSSASLAuthenticationError')
      return `the broker refused the login (KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD): ${e.message}`;
    if (e.code && CERTIFICATE_CODES.has(e.code))
      return `the broker's TLS certificate did not verify (${e.code}; is KAFKA_SSL_CA_FILE the CA that signed it?): ${e.message}`;
    if (e.type && AUTHORIZATION_TYPES.has(e.type))
      return `the broker refused (${e.type}; check the principal's ACLs): ${e.message}`;
    e = (e.cause ?? e.originalError) as typeof e;
  }
  return undefined;
}

/**
 * True when the broker answers a metadata request; connects `admin` first (a no-op while connected),
 * so a service that started while Kafka was down needs nothing else. Unbounded: callers bound it
 * (createReadiness in @cluster/platform).
 */
export async function pingKafka(admin: Admin): Promise<boolean> {
  try {
    await admin.connect();
    await admin.describeCluster();
    return true;
  } catch {
    return false;
  }
}
