// The one place that reads the environment, with each service's `src/config.ts`
// (which calls these helpers): values are read once at boot, typed, and a bad value
// fails the start. Packages never read `process.env`; they are handed what they need.
// The one exception: the OTEL_* variables, which the OpenTelemetry SDK reads itself as
// its specification says (instrumentation.ts decides only whether to start it).
//
// A module per concern under config/; this file only re-exports (fileContents and the
// other helpers the modules share stay inside).
export { bool, ConfigError, int, list, num, oneOf, optionalStr, secret, str } from './config/values.ts';
export {
  DEVELOPMENT_SWITCH,
  LOG_LEVELS,
  readDevelopment,
  readProcessConfig,
  type LogLevel,
  type ProcessConfig,
} from './config/process.ts';
export { retiredKeyWarnings, sealingKeyProblem, sealingKeys } from './config/sealing-keys.ts';
export {
  plaintextRefusal,
  readDatabaseConfig,
  readDbTimeouts,
  readMigrationConfig,
  type DatabaseConfig,
} from './config/database.ts';
export { KAFKA_SASL_MECHANISMS, readKafkaConfig, type KafkaConfig, type KafkaSecurity } from './config/kafka.ts';
export { readServiceConfig, serviceUrls, type ServiceConfig } from './config/service.ts';
