import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, readKafkaConfig, readProcessConfig, readServiceConfig } from './config.ts';
import { devServiceKeys, devServiceSeed, rawPublicKey, signingKeyFromSeed } from './service-auth.ts';

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

describe('readServiceConfig', () => {
  const SEED = Buffer.alloc(32, 7).toString('base64');
  const PUBLIC = rawPublicKey(signingKeyFromSeed(Buffer.alloc(32, 7))).toString('base64');
  const DEV_GATEWAY = rawPublicKey(devServiceKeys('gateway').signingKey).toString('base64');

  it('listens on 127.0.0.1 and uses the development keys unless configured, outside production', () => {
    for (const name of ['LISTEN_HOST', 'SERVICE_SIGNING_KEY', 'SERVICE_PUBLIC_KEYS']) vi.stubEnv(name, '');
    const config = readServiceConfig('core', false);
    expect(config.listenHost).toBe('127.0.0.1');
    expect(rawPublicKey(config.serviceKeys.signingKey)).toEqual(rawPublicKey(devServiceKeys('core').signingKey));
    expect(config.serviceKeys.publicKeys.map((k) => k.service).sort()).toEqual(['core', 'delivery', 'evidence', 'gateway']);
  });

  it('refuses to start in production without keys, with the development key, or with a malformed one', () => {
    for (const name of ['SERVICE_SIGNING_KEY', 'SERVICE_PUBLIC_KEYS']) vi.stubEnv(name, '');
    expect(() => readServiceConfig('core', true)).toThrow(/SERVICE_SIGNING_KEY and SERVICE_PUBLIC_KEYS are required/);
    vi.stubEnv('SERVICE_PUBLIC_KEYS', `gateway:${PUBLIC}`);
    vi.stubEnv('SERVICE_SIGNING_KEY', devServiceSeed('core').toString('base64'));
    expect(() => readServiceConfig('core', true)).toThrow(/development key/);
    vi.stubEnv('SERVICE_SIGNING_KEY', 'CHANGE_ME_32_BYTES_BASE64');
    expect(() => readServiceConfig('core', true)).toThrow(/32 bytes/);
    vi.stubEnv('SERVICE_SIGNING_KEY', SEED);
    vi.stubEnv('SERVICE_PUBLIC_KEYS', `gateway:${PUBLIC},billing:${PUBLIC}`);
    expect(() => readServiceConfig('core', true)).toThrow(/billing/);
  });

  it('reads the listen address, the signing key and the listed public keys', () => {
    vi.stubEnv('LISTEN_HOST', '0.0.0.0');
    vi.stubEnv('SERVICE_SIGNING_KEY', SEED);
    vi.stubEnv('SERVICE_PUBLIC_KEYS', ` gateway:${PUBLIC} , delivery:${PUBLIC}, gateway:${DEV_GATEWAY}`);
    const config = readServiceConfig('core', true);
    expect(config.listenHost).toBe('0.0.0.0');
    expect(rawPublicKey(config.serviceKeys.signingKey).toString('base64')).toBe(PUBLIC);
    expect(config.serviceKeys.publicKeys.map((k) => k.service)).toEqual(['gateway', 'delivery', 'gateway']);
  });
});
