import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  readDatabaseConfig,
  readDbTimeouts,
  readKafkaConfig,
  readProcessConfig,
  readServiceConfig,
  retiredKeyWarnings,
  sealingKeys,
} from './config.ts';
import { devServiceKeys, devServiceSeed, rawPublicKey, signingKeyFromSeed } from './service-auth.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('readProcessConfig', () => {
  it('has the documented defaults when nothing is set', () => {
    for (const name of ['NODE_ENV', 'LOG_LEVEL', 'SHUTDOWN_DEADLINE_MS', 'MIGRATE_ON_START']) vi.stubEnv(name, '');
    expect(readProcessConfig()).toEqual({
      production: false,
      logLevel: 'info',
      shutdownDeadlineMs: 20_000,
      migrateOnStart: true,
    });
  });

  it('reads every variable, typed', () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('LOG_LEVEL', 'silent');
    vi.stubEnv('SHUTDOWN_DEADLINE_MS', '5000');
    vi.stubEnv('MIGRATE_ON_START', 'false');
    expect(readProcessConfig()).toEqual({
      production: true,
      logLevel: 'silent',
      shutdownDeadlineMs: 5000,
      migrateOnStart: false,
    });
  });

  it('refuses a log level pino does not know and a deadline that is not a number', () => {
    vi.stubEnv('LOG_LEVEL', 'verbose');
    expect(() => readProcessConfig()).toThrow(ConfigError);
    vi.stubEnv('LOG_LEVEL', 'info');
    vi.stubEnv('SHUTDOWN_DEADLINE_MS', '20s');
    expect(() => readProcessConfig()).toThrow(/SHUTDOWN_DEADLINE_MS/);
  });
});

describe('readKafkaConfig', () => {
  it('splits the broker list, keeps the prefix, and maps KAFKAJS_LOG_LEVEL to debug or warn', () => {
    vi.stubEnv('KAFKA_BROKERS', ' a:9092, b:9092 ,');
    vi.stubEnv('KAFKA_TOPIC_PREFIX', 't1.');
    vi.stubEnv('KAFKAJS_LOG_LEVEL', 'debug');
    vi.stubEnv('KAFKA_START_WAIT_MS', '0');
    expect(readKafkaConfig()).toMatchObject({
      kafkaBrokers: ['a:9092', 'b:9092'],
      topicPrefix: 't1.',
      kafkaClientLogLevel: 'debug',
      kafkaStartWaitMs: 0,
    });
    vi.stubEnv('KAFKAJS_LOG_LEVEL', 'info');
    expect(readKafkaConfig().kafkaClientLogLevel).toBe('warn');
  });

  it('defaults to a local broker and no prefix', () => {
    for (const name of ['KAFKA_BROKERS', 'KAFKA_TOPIC_PREFIX', 'KAFKAJS_LOG_LEVEL', 'KAFKA_START_WAIT_MS']) vi.stubEnv(name, '');
    expect(readKafkaConfig()).toEqual({
      kafkaBrokers: ['127.0.0.1:9092'],
      topicPrefix: '',
      kafkaClientLogLevel: 'warn',
      kafkaStartWaitMs: 15_000,
      kafkaSecurity: { tls: false, sasl: undefined },
      manageTopics: true,
    });
  });
});

describe('readKafkaConfig: TLS, SASL, topics', () => {
  const SECURITY = [
    'KAFKA_SSL',
    'KAFKA_SSL_CA_FILE',
    'KAFKA_SSL_CERT_FILE',
    'KAFKA_SSL_KEY_FILE',
    'KAFKA_SASL_MECHANISM',
    'KAFKA_SASL_USERNAME',
    'KAFKA_SASL_USERNAME_FILE',
    'KAFKA_SASL_PASSWORD',
    'KAFKA_SASL_PASSWORD_FILE',
    'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE',
    'KAFKA_SASL_OAUTHBEARER_TOKEN_COMMAND',
    'KAFKA_MANAGE_TOPICS',
  ];
  let dir: string;
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const env = (values: Record<string, string>) => {
    for (const name of SECURITY) vi.stubEnv(name, '');
    for (const [k, v] of Object.entries(values)) vi.stubEnv(k, v);
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'config-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the CA and client certificate files, and a password from a file, trimmed', () => {
    env({
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: file('ca.pem', 'CA'),
      KAFKA_SSL_CERT_FILE: file('c.pem', 'CERT'),
      KAFKA_SSL_KEY_FILE: file('c.key', 'KEY'),
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'app',
      KAFKA_SASL_PASSWORD_FILE: file('password', 's3cret\n'),
      KAFKA_MANAGE_TOPICS: 'false',
    });
    expect(readKafkaConfig()).toMatchObject({
      kafkaSecurity: {
        tls: { ca: 'CA', cert: 'CERT', key: 'KEY' },
        sasl: { mechanism: 'scram-sha-512', username: 'app', password: 's3cret' },
      },
      manageTopics: false,
    });
  });

  it('takes an OAuth token file (checked now, read again on each login) or a command', () => {
    const tokenFile = file('token', 'eyJ...');
    env({ KAFKA_SSL: 'true', KAFKA_SASL_MECHANISM: 'oauthbearer', KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: tokenFile });
    expect(readKafkaConfig().kafkaSecurity).toEqual({ tls: {}, sasl: { mechanism: 'oauthbearer', tokenFile } });
    env({ KAFKA_SSL: 'true', KAFKA_SASL_MECHANISM: 'oauthbearer', KAFKA_SASL_OAUTHBEARER_TOKEN_COMMAND: 'get-token' });
    expect(readKafkaConfig().kafkaSecurity.sasl).toEqual({ mechanism: 'oauthbearer', tokenCommand: 'get-token' });
  });

  it.each([
    [{ KAFKA_SSL_CA_FILE: '/ca.pem' }, /KAFKA_SSL_CA_FILE is set but KAFKA_SSL is not true/],
    [{ KAFKA_SSL: 'yes' }, /KAFKA_SSL must be true or false/],
    [
      { KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: '/nonexistent/ca.pem' },
      /KAFKA_SSL_CA_FILE: cannot read \/nonexistent\/ca.pem \(ENOENT\)/,
    ],
    [{ KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: '/etc/hostname' }, /KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE go together/],
    [{ KAFKA_SASL_MECHANISM: 'gssapi' }, /KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512, oauthbearer/],
    [{ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'app' }, /needs KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE/],
    [
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'a', KAFKA_SASL_PASSWORD: 'p', KAFKA_SASL_PASSWORD_FILE: '/p' },
      /set KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE, not both/,
    ],
    [{ KAFKA_SASL_USERNAME: 'app' }, /KAFKA_SASL_USERNAME is set but KAFKA_SASL_MECHANISM is not/],
    [
      { KAFKA_SASL_MECHANISM: 'oauthbearer' },
      /needs exactly one of KAFKA_SASL_OAUTHBEARER_TOKEN_FILE and KAFKA_SASL_OAUTHBEARER_TOKEN_COMMAND/,
    ],
    [
      { KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_OAUTHBEARER_TOKEN_COMMAND: 'x' },
      /only used with KAFKA_SASL_MECHANISM=oauthbearer/,
    ],
    [{ KAFKA_MANAGE_TOPICS: 'no' }, /KAFKA_MANAGE_TOPICS must be true or false/],
  ])('refuses %o at start, naming the variable', (values, message) => {
    env(values);
    expect(() => readKafkaConfig()).toThrow(ConfigError);
    expect(() => readKafkaConfig()).toThrow(message);
  });

  it('refuses an empty password file', () => {
    env({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'a', KAFKA_SASL_PASSWORD_FILE: file('empty', '\n') });
    expect(() => readKafkaConfig()).toThrow(/KAFKA_SASL_PASSWORD_FILE .* is empty/);
  });
});

describe('readDatabaseConfig', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('hands DATABASE_SSL_ROOT_CERT on as the URL’s sslrootcert; DATABASE_CREATE is off unless set', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'config-test-'));
    try {
      const ca = path.join(dir, 'ca.pem');
      writeFileSync(ca, 'CA');
      vi.stubEnv('DATABASE_URL', 'postgres://app:pw@db.example:5432/app?sslmode=verify-full');
      vi.stubEnv('DATABASE_SSL_ROOT_CERT', ca);
      vi.stubEnv('DATABASE_CREATE', '');
      const config = readDatabaseConfig();
      expect(new URL(config.databaseUrl).searchParams.get('sslrootcert')).toBe(ca);
      expect(config.createDatabase).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [
      { DATABASE_URL: 'postgres://h/app', DATABASE_SSL_ROOT_CERT: '/ca.pem' },
      /sslmode is unset \(disable\): add sslmode=verify-full/,
    ],
    [{ DATABASE_URL: '', DATABASE_SSL_ROOT_CERT: '/ca.pem' }, /DATABASE_SSL_ROOT_CERT is set but DATABASE_URL is not/],
    [
      { DATABASE_URL: 'postgres://h/app?sslmode=verify-full', DATABASE_SSL_ROOT_CERT: '/nonexistent.pem' },
      /DATABASE_SSL_ROOT_CERT: cannot read/,
    ],
    [
      { DATABASE_URL: 'postgres://h/app?sslmode=verify-full&sslrootcert=/a.pem', DATABASE_SSL_ROOT_CERT: '/b.pem' },
      /name the CA in one of them/,
    ],
  ])('refuses %o', (values, message) => {
    for (const [k, v] of Object.entries(values)) vi.stubEnv(k, v);
    expect(() => readDatabaseConfig()).toThrow(message);
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

describe('sealingKeys', () => {
  const good = () => randomBytes(32).toString('base64');
  /** A 32-byte key whose last digit carries bits beyond the 256 (decoders drop them: two spellings of one key). */
  const nonCanonical = () => {
    const key = good();
    const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    return `${key.slice(0, 42)}${digits[digits.indexOf(key[42]) + 1]}=`;
  };

  it("outside production: unset is the caller's dev default, any material is accepted", () => {
    vi.stubEnv('WEBHOOK_SECRET_KEY', '');
    expect(sealingKeys('WEBHOOK_SECRET_KEY', false)).toBeUndefined();
    vi.stubEnv('WEBHOOK_SECRET_KEY', 'a dev key');
    expect(sealingKeys('WEBHOOK_SECRET_KEY', false)).toEqual(['a dev key']);
  });

  it('reads a keyring: comma-separated, first = current, blanks around entries trimmed; padding optional', () => {
    const [b, a] = [good(), good().replace(/=$/, '')];
    vi.stubEnv('WEBHOOK_SECRET_KEY', ` ${b} , ${a}`);
    expect(sealingKeys('WEBHOOK_SECRET_KEY', true)).toEqual([b, a]);
  });

  it('in production refuses a missing, placeholder, short, malformed, repeated-byte or passphrase key, naming the variable', () => {
    const refused: [string, RegExp][] = [
      ['', /WEBHOOK_SECRET_KEY is required when NODE_ENV=production/],
      ['CHANGE_ME_32_BYTES_BASE64', /WEBHOOK_SECRET_KEY is a placeholder/],
      [randomBytes(16).toString('base64'), /WEBHOOK_SECRET_KEY decodes to 16 bytes, not 32/],
      [randomBytes(33).toString('base64'), /decodes to 33 bytes/],
      [`${randomBytes(32).toString('base64')}!`, /is not base64/],
      [nonCanonical(), /is not canonical base64/],
      [Buffer.alloc(32).toString('base64'), /one byte repeated/],
      [Buffer.from('correct horse battery staple 123').toString('base64'), /passphrase/],
    ];
    for (const [value, message] of refused) {
      vi.stubEnv('WEBHOOK_SECRET_KEY', value);
      expect(() => sealingKeys('WEBHOOK_SECRET_KEY', true), value).toThrow(ConfigError);
      expect(() => sealingKeys('WEBHOOK_SECRET_KEY', true), value).toThrow(message);
    }
  });

  it('in production checks the sealing key of a keyring, never quoting it; retired keys are taken with a warning', () => {
    const short = randomBytes(31).toString('base64');
    vi.stubEnv('IDEMPOTENCY_SECRET_KEY', `${short},${good()}`);
    expect(() => sealingKeys('IDEMPOTENCY_SECRET_KEY', true)).toThrow(
      /the first \(sealing\) key of IDEMPOTENCY_SECRET_KEY decodes to 31 bytes/,
    );
    expect(() => sealingKeys('IDEMPOTENCY_SECRET_KEY', true)).not.toThrow(short);
    const current = good();
    vi.stubEnv('IDEMPOTENCY_SECRET_KEY', `${current},an old passphrase,${good()}`);
    const keys = sealingKeys('IDEMPOTENCY_SECRET_KEY', true) ?? [];
    expect(keys).toHaveLength(3);
    expect(retiredKeyWarnings('IDEMPOTENCY_SECRET_KEY', keys)).toEqual([
      'key 2 of 3 of IDEMPOTENCY_SECRET_KEY is not base64: re-seal and remove it (docs/runbook.md)',
    ]);
  });

  it('refuses an empty entry or a key listed twice, in any environment', () => {
    const a = good();
    vi.stubEnv('WEBHOOK_SECRET_KEY', `${a},,${good()}`);
    expect(() => sealingKeys('WEBHOOK_SECRET_KEY', false)).toThrow(/empty entry/);
    vi.stubEnv('WEBHOOK_SECRET_KEY', `${a},${a}`);
    expect(() => sealingKeys('WEBHOOK_SECRET_KEY', false)).toThrow(/twice/);
  });
});

describe('readDbTimeouts', () => {
  it('bounds every wait on Postgres by a few seconds unless configured', () => {
    for (const name of ['DB_STATEMENT_TIMEOUT_MS', 'DB_ACQUIRE_TIMEOUT_MS']) vi.stubEnv(name, '');
    expect(readDbTimeouts()).toEqual({ statementTimeoutMs: 5000, acquireTimeoutMs: 3000 });
    vi.stubEnv('DB_STATEMENT_TIMEOUT_MS', '1500');
    vi.stubEnv('DB_ACQUIRE_TIMEOUT_MS', '700');
    expect(readDbTimeouts()).toEqual({ statementTimeoutMs: 1500, acquireTimeoutMs: 700 });
    vi.stubEnv('DB_STATEMENT_TIMEOUT_MS', '0');
    expect(() => readDbTimeouts()).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
  });
});
