import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, readKafkaConfig, readProcessConfig } from './config.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('readProcessConfig', () => {
  it('has the documented defaults when nothing is set', () => {
    for (const name of ['NODE_ENV', 'LOG_LEVEL', 'SHUTDOWN_DEADLINE_MS', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME'])
      vi.stubEnv(name, '');
    expect(readProcessConfig('core')).toEqual({
      production: false,
      logLevel: 'info',
      shutdownDeadlineMs: 20_000,
      telemetry: { otlpEndpoint: undefined, serviceName: 'core' },
    });
  });

  it('reads every variable, typed', () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('LOG_LEVEL', 'silent');
    vi.stubEnv('SHUTDOWN_DEADLINE_MS', '5000');
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://collector:4318');
    vi.stubEnv('OTEL_SERVICE_NAME', 'core-eu');
    expect(readProcessConfig('core')).toEqual({
      production: true,
      logLevel: 'silent',
      shutdownDeadlineMs: 5000,
      telemetry: { otlpEndpoint: 'http://collector:4318', serviceName: 'core-eu' },
    });
  });

  it('refuses a log level pino does not know and a deadline that is not a number', () => {
    vi.stubEnv('LOG_LEVEL', 'verbose');
    expect(() => readProcessConfig('core')).toThrow(ConfigError);
    vi.stubEnv('LOG_LEVEL', 'info');
    vi.stubEnv('SHUTDOWN_DEADLINE_MS', '20s');
    expect(() => readProcessConfig('core')).toThrow(/SHUTDOWN_DEADLINE_MS/);
  });
});

describe('readKafkaConfig', () => {
  it('splits the broker list, keeps the prefix, and maps KAFKAJS_LOG_LEVEL to debug or warn', () => {
    vi.stubEnv('KAFKA_BROKERS', ' a:9092, b:9092 ,');
    vi.stubEnv('KAFKA_TOPIC_PREFIX', 't1.');
    vi.stubEnv('KAFKAJS_LOG_LEVEL', 'debug');
    expect(readKafkaConfig()).toEqual({ kafkaBrokers: ['a:9092', 'b:9092'], topicPrefix: 't1.', kafkaClientLogLevel: 'debug' });
    vi.stubEnv('KAFKAJS_LOG_LEVEL', 'info');
    expect(readKafkaConfig().kafkaClientLogLevel).toBe('warn');
  });

  it('defaults to a local broker and no prefix', () => {
    for (const name of ['KAFKA_BROKERS', 'KAFKA_TOPIC_PREFIX', 'KAFKAJS_LOG_LEVEL']) vi.stubEnv(name, '');
    expect(readKafkaConfig()).toEqual({ kafkaBrokers: ['127.0.0.1:9092'], topicPrefix: '', kafkaClientLogLevel: 'warn' });
  });
});
