import { ConfigError, int, bool, oneOf, optionalStr } from './values.ts';

// What every service process has: CLUSTER_ENV (the one switch to development defaults), logs, shutdown.

/** Levels a service logs at (pino's, and `silent`). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The one setting that allows development defaults, as error messages name it. */
export const DEVELOPMENT_SWITCH = 'CLUSTER_ENV=development';

/**
 * Whether this process runs in development: CLUSTER_ENV=development, said explicitly (`npm start`,
 * the tests, the benches and `npm run admin` say it). Only then are development keys, private
 * webhook destinations, plain-http webhooks and a Host-derived public URL allowed. Unset or
 * `production` is the strict default, so a deployment that forgets a setting refuses to start
 * instead of running on keys anyone can mint. NODE_ENV decides nothing here (a library's
 * convention, easily mistyped); NODE_ENV=production with CLUSTER_ENV=development is refused as a
 * contradiction, so the image (which sets NODE_ENV=production) never runs in development.
 */
export function readDevelopment(): boolean {
  const development = oneOf('CLUSTER_ENV', ['development', 'production'], 'production') === 'development';
  if (development && optionalStr('NODE_ENV') === 'production')
    throw new ConfigError('CLUSTER_ENV=development contradicts NODE_ENV=production: unset one of them');
  return development;
}

/**
 * Settings every service process has (logs, shutdown, CLUSTER_ENV), read the same way by
 * each service's config and handed to createLogger and createShutdown by its
 * composition root. (Traces are configured by the standard OTEL_* variables, which the
 * OpenTelemetry SDK reads itself: instrumentation.ts.)
 */
export function readProcessConfig() {
  return {
    /** CLUSTER_ENV=development: development defaults allowed (readDevelopment); otherwise refused. */
    development: readDevelopment(),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    /** Hard deadline of a graceful shutdown. */
    shutdownDeadlineMs: int('SHUTDOWN_DEADLINE_MS', 20_000, 0),
    /**
     * Services with a schema migrate it at start (true), or only check it is current (false:
     * Kubernetes runs the migration Job before the rollout; docs/deploy.md).
     */
    migrateOnStart: bool('MIGRATE_ON_START', true),
  };
}
export type ProcessConfig = ReturnType<typeof readProcessConfig>;
