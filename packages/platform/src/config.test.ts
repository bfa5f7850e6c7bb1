import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  readDatabaseConfig,
  readDbTimeouts,
  readMigrationConfig,
  plaintextRefusal,
  readKafkaConfig,
  readProcessConfig,
  readServiceConfig,
  retiredKeyWarnings,
  sealingKeys,
} from './config.ts';
import { DEV_EVIDENCE_SIGNING_SEED, DEV_SEALING_KEYS } from './development-keys.ts';
import { devServiceKeys, devServiceSeed, rawPublicKey, signingKeyFromSeed, type ServiceName } from './service-auth.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('readProcessConfig', () => {
  it('has the documented defaults when nothing is set', () => {
    for (const name of ['CLUSTER_ENV', 'NODE_ENV', 'LOG_LEVEL', 'SHUTDOWN_DEADLINE_MS', 'MIGRATE_ON_START']) vi.stubEnv(name, '');
    expect(readProcessConfig()).toEqual({
      development: false,
      logLevel: 'info',
      shutdownDeadlineMs: 20_000,
      migrateOnStart: true,
    });
  });

  it('reads every variable, typed', () => {
    vi.stubEnv('CLUSTER_ENV', 'development');
    vi.stubEnv('LOG_LEVEL', 'silent');
    vi.stubEnv('SHUTDOWN_DEADLINE_MS', '5000');
    vi.stubEnv('MIGRATE_ON_START', 'false');
    expect(readProcessConfig()).toEqual({
      development: true,
      logLevel: 'silent',
      shutdownDeadlineMs: 5000,
      migrateOnStart: false,
    });
  });

  it('is development only when CLUSTER_ENV says so; anything else is strict, a typo or a contradiction refused', () => {
    for (const [value, development] of [
      ['', false],
      ['production', false],
      ['development', true],
    ] as const) {
      vi.stubEnv('CLUSTER_ENV', value);
      expect(readProcessConfig().development, value).toBe(development);
    }
    vi.stubEnv('CLUSTER_ENV', 'dev');
    expect(() => readProcessConfig()).toThrow(/CLUSTER_ENV must be one of development, production, got dev/);
    vi.stubEnv('CLUSTER_ENV', 'development');
    vi.stubEnv('NODE_ENV', 'production');
    expect(() => readProcessConfig()).toThrow(/CLUSTER_ENV=development contradicts NODE_ENV=production/);
    vi.stubEnv('CLUSTER_ENV', '');
    vi.stubEnv('NODE_ENV', 'development'); // NODE_ENV alone never allows development keys
    expect(readProcessConfig().development).toBe(false);
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

describe('plaintext Postgres outside development', () => {
  afterEach(() => vi.unstubAllEnvs());
  const plain = 'postgres://app:pw@db.example:5432/app';

  it('is refused unless DATABASE_ALLOW_PLAINTEXT=true, naming the fixes', () => {
    for (const url of [plain, `${plain}?sslmode=disable`]) {
      vi.stubEnv('DATABASE_URL', url);
      expect(() => readDatabaseConfig(false)).toThrow(
        /DATABASE_URL connects to Postgres without TLS .*refused unless CLUSTER_ENV=development: add sslmode=verify-full .*DATABASE_ALLOW_PLAINTEXT=true/,
      );
      expect(() => readMigrationConfig(false)).toThrow(/DATABASE_RUNTIME_ROLE is required/); // the Job's own first
      vi.stubEnv('DATABASE_RUNTIME_ROLE', 'feedback_core');
      expect(() => readMigrationConfig(false)).toThrow(/without TLS/);
      vi.stubEnv('DATABASE_RUNTIME_ROLE', '');
      expect(readDatabaseConfig(true).databaseUrl).toBe(url); // development: allowed
      vi.stubEnv('DATABASE_ALLOW_PLAINTEXT', 'true');
      expect(readDatabaseConfig(false).databaseUrl).toBe(url);
      vi.stubEnv('DATABASE_ALLOW_PLAINTEXT', '');
    }
  });

  it('passes TLS, a Unix socket and an unset URL (the composition roots refuse that)', () => {
    for (const url of [`${plain}?sslmode=verify-full`, `${plain}?sslmode=require`, 'postgres:///app?host=/run/postgresql', '']) {
      vi.stubEnv('DATABASE_URL', url);
      expect(readDatabaseConfig(false).databaseUrl).toBe(url);
    }
    expect(plaintextRefusal('postgres://h/app?sslmode=verify-ca')).toBeUndefined();
  });

  it('reads DB_MIGRATION_LOCK_TIMEOUT_MS (2 s by default)', () => {
    vi.stubEnv('DATABASE_URL', '');
    expect(readDatabaseConfig(true).migrationLockTimeoutMs).toBe(2000);
    vi.stubEnv('DB_MIGRATION_LOCK_TIMEOUT_MS', '750');
    expect(readDatabaseConfig(true).migrationLockTimeoutMs).toBe(750);
  });
});

describe('readMigrationConfig', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('names the role the migration grants, required outside development, and only a plain identifier', () => {
    vi.stubEnv('DATABASE_URL', 'postgres://feedback_owner:pw@db.example:5432/feedback?sslmode=verify-full');
    vi.stubEnv('DATABASE_RUNTIME_ROLE', 'feedback_core');
    const config = readMigrationConfig(false);
    expect(config.runtimeRole).toBe('feedback_core');
    expect(new URL(config.databaseUrl).username).toBe('feedback_owner');
    vi.stubEnv('DATABASE_RUNTIME_ROLE', '');
    expect(readMigrationConfig(true).runtimeRole).toBeUndefined();
    expect(() => readMigrationConfig(false)).toThrow(/DATABASE_RUNTIME_ROLE is required/);
    for (const bad of ['Feedback', 'feedback-core', '1core', 'core"; DROP SCHEMA core; --', 'x'.repeat(64)]) {
      vi.stubEnv('DATABASE_RUNTIME_ROLE', bad);
      expect(() => readMigrationConfig(true), bad).toThrow(/is not a role name/);
    }
  });
});

describe('readServiceConfig', () => {
  const SEED = Buffer.alloc(32, 7).toString('base64');
  const PUBLIC = rawPublicKey(signingKeyFromSeed(Buffer.alloc(32, 7))).toString('base64');
  const PUBLIC_2 = rawPublicKey(signingKeyFromSeed(Buffer.alloc(32, 9))).toString('base64');

  it('listens on 127.0.0.1 and uses the development keys unless configured, in development', () => {
    for (const name of ['LISTEN_HOST', 'SERVICE_SIGNING_KEY', 'SERVICE_PUBLIC_KEYS']) vi.stubEnv(name, '');
    const config = readServiceConfig('core', true);
    expect(config.listenHost).toBe('127.0.0.1');
    expect(rawPublicKey(config.serviceKeys.signingKey)).toEqual(rawPublicKey(devServiceKeys('core').signingKey));
    expect(config.serviceKeys.publicKeys.map((k) => k.service).sort()).toEqual(['core', 'delivery', 'evidence', 'gateway']);
  });

  it('refuses to start outside development without keys, with the development key, or with a malformed one', () => {
    for (const name of ['SERVICE_SIGNING_KEY', 'SERVICE_PUBLIC_KEYS']) vi.stubEnv(name, '');
    expect(() => readServiceConfig('core', false)).toThrow(/SERVICE_SIGNING_KEY and SERVICE_PUBLIC_KEYS are required/);
    vi.stubEnv('SERVICE_PUBLIC_KEYS', `gateway:${PUBLIC}`);
    vi.stubEnv('SERVICE_SIGNING_KEY', devServiceSeed('core').toString('base64'));
    expect(() => readServiceConfig('core', false)).toThrow(/development key/);
    vi.stubEnv('SERVICE_SIGNING_KEY', 'CHANGE_ME_32_BYTES_BASE64');
    expect(() => readServiceConfig('core', false)).toThrow(/32 bytes/);
    vi.stubEnv('SERVICE_SIGNING_KEY', SEED);
    vi.stubEnv('SERVICE_PUBLIC_KEYS', `gateway:${PUBLIC},billing:${PUBLIC}`);
    expect(() => readServiceConfig('core', false)).toThrow(/billing/);
    // A list that is given but holds no key (issue 37).
    for (const empty of [',', ' , ,']) {
      vi.stubEnv('SERVICE_PUBLIC_KEYS', empty);
      expect(() => readServiceConfig('core', false)).toThrow(/SERVICE_PUBLIC_KEYS lists no key/);
    }
  });

  it('reads the listen address, the signing key and the listed public keys', () => {
    vi.stubEnv('LISTEN_HOST', '0.0.0.0');
    vi.stubEnv('SERVICE_SIGNING_KEY', SEED);
    vi.stubEnv('SERVICE_PUBLIC_KEYS', ` gateway:${PUBLIC} , delivery:${PUBLIC}, gateway:${PUBLIC_2}`);
    const config = readServiceConfig('core', false);
    expect(config.listenHost).toBe('0.0.0.0');
    expect(rawPublicKey(config.serviceKeys.signingKey).toString('base64')).toBe(PUBLIC);
    expect(config.serviceKeys.publicKeys.map((k) => k.service)).toEqual(['gateway', 'delivery', 'gateway']);
  });

  it('outside development refuses every development key in either role, by fingerprint', () => {
    const devSeed = (s: ServiceName) => devServiceSeed(s).toString('base64');
    const devPublic = (s: ServiceName) => rawPublicKey(devServiceKeys(s).signingKey).toString('base64');
    const refused: [string, string, RegExp][] = [
      // another service's development seed as this one's signing key
      [devSeed('gateway'), `gateway:${PUBLIC}`, /SERVICE_SIGNING_KEY holds a public development key/],
      // the evidence platform's development seed, or a development sealing material, as a signing key
      [DEV_EVIDENCE_SIGNING_SEED.toString('base64'), `gateway:${PUBLIC}`, /SERVICE_SIGNING_KEY holds a public development key/],
      [DEV_SEALING_KEYS.WEBHOOK_SECRET_KEY, `gateway:${PUBLIC}`, /SERVICE_SIGNING_KEY holds a public development key/],
      // a development public key listed beside a real one, under any service's name
      [SEED, `gateway:${PUBLIC},delivery:${devPublic('delivery')}`, /SERVICE_PUBLIC_KEYS holds a public development key/],
      [SEED, `evidence:${devPublic('gateway')}`, /SERVICE_PUBLIC_KEYS holds a public development key/],
    ];
    for (const [seed, listed, message] of refused) {
      vi.stubEnv('SERVICE_SIGNING_KEY', seed);
      vi.stubEnv('SERVICE_PUBLIC_KEYS', listed);
      expect(() => readServiceConfig('core', false), `${seed} ${listed}`).toThrow(message);
      expect(() => readServiceConfig('core', true), `${seed} ${listed} in development`).not.toThrow(/development key/);
    }
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

  it("in development: unset is the caller's dev default, any material is accepted", () => {
    vi.stubEnv('WEBHOOK_SECRET_KEY', '');
    expect(sealingKeys('WEBHOOK_SECRET_KEY', true)).toBeUndefined();
    vi.stubEnv('WEBHOOK_SECRET_KEY', 'a dev key');
    expect(sealingKeys('WEBHOOK_SECRET_KEY', true)).toEqual(['a dev key']);
  });

  it('reads a keyring: comma-separated, first = current, blanks around entries trimmed; padding optional', () => {
    const [b, a] = [good(), good().replace(/=$/, '')];
    vi.stubEnv('WEBHOOK_SECRET_KEY', ` ${b} , ${a}`);
    expect(sealingKeys('WEBHOOK_SECRET_KEY', false)).toEqual([b, a]);
  });

  it('outside development refuses a missing, placeholder, short, malformed, repeated-byte or passphrase key, naming the variable', () => {
    const refused: [string, RegExp][] = [
      ['', /WEBHOOK_SECRET_KEY is required unless CLUSTER_ENV=development/],
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
      expect(() => sealingKeys('WEBHOOK_SECRET_KEY', false), value).toThrow(ConfigError);
      expect(() => sealingKeys('WEBHOOK_SECRET_KEY', false), value).toThrow(message);
    }
  });

  it('outside development checks the sealing key of a keyring, never quoting it; retired keys are taken with a warning', () => {
    const short = randomBytes(31).toString('base64');
    vi.stubEnv('EVIDENCE_SECRET_KEY', `${short},${good()}`);
    expect(() => sealingKeys('EVIDENCE_SECRET_KEY', false)).toThrow(
      /the first \(sealing\) key of EVIDENCE_SECRET_KEY decodes to 31 bytes/,
    );
    expect(() => sealingKeys('EVIDENCE_SECRET_KEY', false)).not.toThrow(short);
    const current = good();
    vi.stubEnv('EVIDENCE_SECRET_KEY', `${current},an old passphrase,${good()}`);
    const keys = sealingKeys('EVIDENCE_SECRET_KEY', false) ?? [];
    expect(keys).toHaveLength(3);
    expect(retiredKeyWarnings('EVIDENCE_SECRET_KEY', keys)).toEqual([
      'key 2 of 3 of EVIDENCE_SECRET_KEY is not base64: re-seal and remove it (docs/runbook.md)',
    ]);
  });

  it('outside development refuses a development key anywhere in a keyring, whatever its role', () => {
    const dev = [
      ...Object.values(DEV_SEALING_KEYS), // any keyring's development material, in this keyring
      DEV_EVIDENCE_SIGNING_SEED.toString('base64'),
      devServiceSeed('core').toString('base64'),
      rawPublicKey(devServiceKeys('gateway').signingKey).toString('base64'),
    ];
    for (const key of dev) {
      for (const value of [key, `${good()},${key}`]) {
        vi.stubEnv('WEBHOOK_SECRET_KEY', value);
        expect(() => sealingKeys('WEBHOOK_SECRET_KEY', false), value).toThrow(
          /WEBHOOK_SECRET_KEY holds a public development key/,
        );
        expect(sealingKeys('WEBHOOK_SECRET_KEY', true), value).toEqual(value.split(','));
      }
    }
  });

  it('refuses an empty entry or a key listed twice, in any environment', () => {
    const a = good();
    vi.stubEnv('WEBHOOK_SECRET_KEY', `${a},,${good()}`);
    expect(() => sealingKeys('WEBHOOK_SECRET_KEY', true)).toThrow(/empty entry/);
    vi.stubEnv('WEBHOOK_SECRET_KEY', `${a},${a}`);
    expect(() => sealingKeys('WEBHOOK_SECRET_KEY', true)).toThrow(/twice/);
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
