import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  optionalStr,
  readDatabaseConfig,
  ConfigError,
  DEV_SEALING_KEYS,
  DEVELOPMENT_SWITCH,
  readDbTimeouts,
  bool,
  int,
  num,
  readKafkaConfig,
  readProcessConfig,
  readServiceConfig,
  sealingKeys,
  serviceUrls,
} from '@cluster/platform';

/** A fixed development key material, used only in development when WEBHOOK_SECRET_KEY is unset (refused elsewhere). */
export const DEV_SECRET_KEY_MATERIAL = DEV_SEALING_KEYS.WEBHOOK_SECRET_KEY;

/** Delivery configuration, read once at boot (the names and defaults of README, "Configuration"). */
export function readDeliveryConfig() {
  const common = readProcessConfig();
  const timeoutMs = int('WEBHOOK_TIMEOUT_MS', 5000, 1);
  const allowPrivateDestinations = bool('WEBHOOK_ALLOW_PRIVATE_DESTINATIONS', false);
  // Webhooks to loopback and private addresses reach whatever listens inside the cluster (SSRF):
  // a local run's receivers only, never a deployment's.
  if (allowPrivateDestinations && !common.development)
    throw new ConfigError(`WEBHOOK_ALLOW_PRIVATE_DESTINATIONS=true is refused unless ${DEVELOPMENT_SWITCH}`);
  return {
    ...common,
    ...readServiceConfig('delivery', common.development),
    ...readKafkaConfig(),
    port: int('DELIVERY_PORT', 50052, 0, 65535),
    /** The core, which keeps the audit trail of webhook writes. */
    coreUrl: serviceUrls().core,
    /** DATABASE_URL (required: startDelivery checks; the test harness supplies its own), DATABASE_SSL_ROOT_CERT, DATABASE_CREATE. */
    ...readDatabaseConfig(common.development),
    /** Bounds on every wait on Postgres (DB_STATEMENT_TIMEOUT_MS, DB_ACQUIRE_TIMEOUT_MS). */
    db: readDbTimeouts(),
    /** The serving pool's size (DB_POOL_MAX): a share of the server's connection budget (docs/deploy.md, "Connection budget"). */
    dbPoolMax: int('DB_POOL_MAX', 20, 1, 1000),
    /** Session of the fan-out consumer: how fast a dead replica's partitions move to another. */
    kafkaSessionTimeoutMs: int('KAFKA_SESSION_TIMEOUT_MS', 30_000, 6_000),
    allowPrivateDestinations,
    timeoutMs,
    retryBaseMs: int('WEBHOOK_RETRY_BASE_MS', 5000, 1),
    retryMaxAgeMs: int('WEBHOOK_RETRY_MAX_AGE_MS', 86_400_000, 1),
    /** Longest wait between two attempts (docs/decisions-api.md: no step longer than 2 h). */
    retryMaxStepMs: int('WEBHOOK_RETRY_MAX_STEP_MS', 7_200_000, 1),
    /** Longest pause a receiver's Retry-After (429/503) imposes on its subscription (docs/webhooks.md, "Throttling"). */
    retryAfterMaxMs: int('WEBHOOK_RETRY_AFTER_MAX_MS', 3_600_000, 1000),
    /**
     * A subscription receives events that occurred after its creation; this is the
     * tolerated skew between the core's clock and the database's.
     */
    clockSkewMs: int('WEBHOOK_CLOCK_SKEW_MS', 2000, 0, 60_000),
    testLimitPerHour: int('WEBHOOK_TEST_LIMIT_PER_HOUR', 10, 1),
    /**
     * Keyring for AES-256-GCM encryption of signing secrets at rest (first seals, all open:
     * a rotation lists the new key first); undefined means the dev default.
     */
    secretKeys: sealingKeys('WEBHOOK_SECRET_KEY', common.development),
    /** Sends in flight per replica. */
    concurrency: int('WEBHOOK_CONCURRENCY', 64, 1, 10_000),
    /** Sends in flight per destination (scheme://host:port) per replica, so one slow receiver cannot starve the others. */
    perDestinationConcurrency: int('WEBHOOK_PER_DESTINATION_CONCURRENCY', 16, 1, 10_000),
    /** How long a claimed delivery stays reserved for one replica; a crashed replica's claims expire after this. */
    leaseMs: int('WEBHOOK_LEASE_MS', timeoutMs * 2 + 10_000, 100),
    /** Longest idle sleep of the sender loop between looks for due deliveries. */
    pollMs: int('WEBHOOK_POLL_MS', 1000, 10),
    /** Upper bound of response bytes read from a receiver (4 KiB of it are stored). */
    maxResponseBytes: int('WEBHOOK_MAX_RESPONSE_BYTES', 65_536, 4096),
    /** Finished delivery records (and attempt logs) are deleted after this many days; 0 keeps them forever. */
    retentionDays: int('WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 0, 36_500),
    /** Time between two retention sweeps of a replica (and two runs of its partition job: features/deliveries/retention.ts). */
    retentionSweepMs: int('WEBHOOK_RETENTION_SWEEP_MS', 3_600_000, 1000),
    /** Failed attempts in a row after which webhook.subscription.failing is sent (once per run of failures). */
    failingAfterFailures: int('WEBHOOK_FAILING_AFTER_FAILURES', 10, 1),
    /** A subscription whose every attempt has failed this long is disabled (hours; a decimal is allowed). */
    disableAfterMs: Math.round(num('WEBHOOK_DISABLE_AFTER_HOURS', 120, 0.0001, 8760) * 3_600_000),
    /** Time between two health sweeps of a replica (failing notices and disablings). */
    healthSweepMs: int('WEBHOOK_HEALTH_SWEEP_MS', 60_000, 100),
    /** The platform's TLS client certificate for receivers that ask for one (docs/webhooks.md, "Mutual TLS"), or undefined. */
    clientCertificate: readClientCertificate(),
  };
}

/**
 * WEBHOOK_CLIENT_CERT_FILE and WEBHOOK_CLIENT_KEY_FILE (PEM, set together): the client certificate the
 * platform presents to receivers that ask for one. Checked at boot: both parse and the key is the certificate's.
 */
function readClientCertificate(): { cert: string; key: string } | undefined {
  const certFile = optionalStr('WEBHOOK_CLIENT_CERT_FILE');
  const keyFile = optionalStr('WEBHOOK_CLIENT_KEY_FILE');
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined)
    throw new ConfigError('WEBHOOK_CLIENT_CERT_FILE and WEBHOOK_CLIENT_KEY_FILE are set together');
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  };
  const cert = read('WEBHOOK_CLIENT_CERT_FILE', certFile);
  const key = read('WEBHOOK_CLIENT_KEY_FILE', keyFile);
  let matches: boolean;
  try {
    matches = new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch (err) {
    throw new ConfigError(`WEBHOOK_CLIENT_CERT_FILE/WEBHOOK_CLIENT_KEY_FILE: ${(err as Error).message}`);
  }
  if (!matches) throw new ConfigError('WEBHOOK_CLIENT_KEY_FILE is not the key of WEBHOOK_CLIENT_CERT_FILE');
  return { cert, key };
}
export type DeliveryConfig = ReturnType<typeof readDeliveryConfig>;
