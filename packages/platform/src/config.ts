import {
  SERVICE_NAMES,
  devServiceKeys,
  devServiceSeed,
  publicKeyFromRaw,
  signingKeyFromSeed,
  type ServiceKeys,
  type ServiceName,
} from './service-auth.ts';

// The one place that reads the environment, with each service's `src/config.ts`
// (which calls these helpers): values are read once at boot, typed, and a bad value
// fails the start. Packages never read `process.env`; they are handed what they need.

/** A missing or malformed setting: the process refuses to start. */
export class ConfigError extends Error {}

/** A required string, or its fallback. */
export function str(name: string, fallback?: string): string {
  const v = process.env[name];
  if (v !== undefined && v !== '') return v;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`${name} is required`);
}

/** A string that may be unset (empty counts as unset). */
export function optionalStr(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** An integer in min..max, or its fallback. */
export function int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be an integer in ${min}..${max}, got ${raw}`);
  return n;
}

/** true/1 or false/0, or its fallback. */
export function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got ${raw}`);
}

/** One of a fixed set of words (a log level, a mode). */
export function oneOf<const T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got ${raw}`);
  return raw as T;
}

/** A comma-separated list, blanks dropped. */
export function list(name: string, fallback: string): string[] {
  return str(name, fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Base URLs of the backend services, as the gateway and CLI see them. */
export function serviceUrls() {
  return {
    core: str('CORE_URL', `http://127.0.0.1:${int('CORE_PORT', 50051)}`),
    delivery: str('DELIVERY_URL', `http://127.0.0.1:${int('DELIVERY_PORT', 50052)}`),
    evidence: str('EVIDENCE_URL', `http://127.0.0.1:${int('EVIDENCE_PORT', 50053)}`),
  };
}

/** Levels a service logs at (pino's, and `silent`). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Settings every service process has (logs, shutdown, traces, NODE_ENV), read the
 * same way by each service's config and handed to createLogger, createShutdown and
 * initTelemetry by its composition root.
 */
export function readProcessConfig(service: string) {
  return {
    /** NODE_ENV=production: development defaults (keys, private destinations) are refused. */
    production: optionalStr('NODE_ENV') === 'production',
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    /** Hard deadline of a graceful shutdown. */
    shutdownDeadlineMs: int('SHUTDOWN_DEADLINE_MS', 20_000, 0),
    telemetry: {
      /** OTLP/HTTP base URL; traces are exported only when it is set. */
      otlpEndpoint: optionalStr('OTEL_EXPORTER_OTLP_ENDPOINT'),
      serviceName: str('OTEL_SERVICE_NAME', service),
    },
  };
}
export type ProcessConfig = ReturnType<typeof readProcessConfig>;

/** Kafka settings of a service that talks to the broker. */
export function readKafkaConfig() {
  return {
    kafkaBrokers: list('KAFKA_BROKERS', '127.0.0.1:9092'),
    /** Prefix of every topic name (and consumer group): isolates environments or test runs on one broker. */
    topicPrefix: str('KAFKA_TOPIC_PREFIX', ''),
    /** Level of the Kafka client's own log lines: `debug` shows them all, anything else its warnings. */
    kafkaClientLogLevel: optionalStr('KAFKAJS_LOG_LEVEL') === 'debug' ? ('debug' as const) : ('warn' as const),
  };
}
export type KafkaConfig = ReturnType<typeof readKafkaConfig>;

/**
 * Where a service listens and the keys of its service tokens (docs/security.md).
 * LISTEN_HOST: 127.0.0.1 unless configured (Kubernetes sets 0.0.0.0).
 * SERVICE_SIGNING_KEY: this service's Ed25519 seed, 32 bytes in base64.
 * SERVICE_PUBLIC_KEYS: `name:<base64 public key>,...` of the services it accepts calls from
 * (one service may be listed twice while its key is rotated).
 * Outside production, unset keys fall back to the development keys (derived from public
 * constants); with NODE_ENV=production both are required.
 */
export function readServiceConfig(self: ServiceName, production: boolean) {
  return { listenHost: str('LISTEN_HOST', '127.0.0.1'), serviceKeys: readServiceKeys(self, production) };
}
export type ServiceConfig = ReturnType<typeof readServiceConfig>;

function readServiceKeys(self: ServiceName, production: boolean): ServiceKeys {
  const seed = optionalStr('SERVICE_SIGNING_KEY');
  const listed = optionalStr('SERVICE_PUBLIC_KEYS');
  if (production && (!seed || !listed)) {
    throw new ConfigError('SERVICE_SIGNING_KEY and SERVICE_PUBLIC_KEYS are required when NODE_ENV=production');
  }
  const dev = devServiceKeys(self);
  const seedBytes = seed ? key32('SERVICE_SIGNING_KEY', seed) : undefined;
  if (production && seedBytes?.equals(devServiceSeed(self))) {
    throw new ConfigError('SERVICE_SIGNING_KEY is the public development key: generate one (openssl rand -base64 32)');
  }
  const signingKey = seedBytes ? signingKeyFromSeed(seedBytes) : dev.signingKey;
  const publicKeys = listed ? parsePublicKeys(listed) : dev.publicKeys;
  return { self, signingKey, publicKeys };
}

function parsePublicKeys(value: string): ServiceKeys['publicKeys'] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name, b64] = entry.split(':');
      if (!(SERVICE_NAMES as readonly string[]).includes(name) || !b64) {
        throw new ConfigError(`SERVICE_PUBLIC_KEYS: "${name}" is not of the form <service>:<base64 key> with a known service`);
      }
      return { service: name as ServiceName, key: publicKeyFromRaw(key32('SERVICE_PUBLIC_KEYS', b64)) };
    });
}

/** 32 bytes given in base64, or a ConfigError naming the setting. */
function key32(name: string, b64: string): Buffer {
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length !== 32) throw new ConfigError(`${name} must be 32 bytes in base64 (openssl rand -base64 32)`);
  return bytes;
}
