import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterTopics, createKafka, ensureTopics, kafkaStartProblem, type KafkaSecurity } from '@cluster/kafka';
import { portOpen } from '../../scripts/lib/infra.mjs';
import { testCa, type TestCa } from '../support/certificates.ts';
import { dropDatabase, freshDatabaseUrl } from '../support/cluster.ts';
import { startProcessCluster } from '../support/process-cluster.ts';
import { exited, freePort, spawnService, waitUntil } from '../support/processes.ts';
import { apiOf, createEntry, createProject, expectExactlyOnce, readyz, subscriber } from './api.ts';
import { privateBroker, serviceProcess, type PrivateBroker } from './support.ts';

// Managed Kafka (issue 27): the services talk to a broker of the test's own over its SASL_SSL
// listener (TLS with a certificate of a CA made here, SCRAM-SHA-512 users made by Kafka's storage
// tool), as real processes; a wrong password, a CA that did not sign the broker's certificate and
// missing topics with KAFKA_MANAGE_TOPICS=false each stop the start with a message that names the
// setting, and a non-zero exit.

const PASSWORD = `app-${randomBytes(6).toString('hex')}`;
let dir: string;
let ca: TestCa;
let broker: PrivateBroker;
let secureEnv: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-tls-'));
  ca = testCa(dir, 'kafka');
  const cert = ca.issue('broker');
  broker = await privateBroker({
    saslSsl: {
      keystoreFile: cert.p12File,
      keystorePassword: cert.p12Password,
      scramUsers: [{ name: 'app', password: PASSWORD }],
    },
  });
  await broker.start();
  const [, port] = broker.saslSslBrokers!.split(':');
  await waitUntil('the SASL_SSL listener', () => portOpen(Number(port)), 60_000);
  const passwordFile = path.join(dir, 'kafka-password');
  writeFileSync(passwordFile, `${PASSWORD}\n`); // as `echo` writes it: the newline is trimmed
  secureEnv = {
    KAFKA_BROKERS: broker.saslSslBrokers!,
    KAFKA_SSL: 'true',
    KAFKA_SSL_CA_FILE: ca.caFile,
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: 'app',
    KAFKA_SASL_PASSWORD_FILE: passwordFile,
  };
}, 180_000);

afterAll(async () => {
  await broker?.stop();
  broker?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Starts `name` as a process that is expected to fail: its exit code and everything it printed. */
async function failedStart(
  name: 'core' | 'delivery',
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const databaseUrl = freshDatabaseUrl('kafkasec');
  const child = spawnService(
    name,
    {
      ...env,
      DATABASE_URL: databaseUrl,
      KAFKA_TOPIC_PREFIX: env.KAFKA_TOPIC_PREFIX ?? `sec${randomBytes(4).toString('hex')}.`,
      CORE_PORT: String(await freePort()),
      DELIVERY_PORT: String(await freePort()),
      CORE_URL: 'http://127.0.0.1:1',
    },
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  try {
    await exited(child);
  } finally {
    clearTimeout(timer);
    await dropDatabase(databaseUrl);
  }
  return { code: child.exitCode, output };
}

describe('Kafka over SASL_SSL', () => {
  it('core and delivery connect with TLS and SCRAM-SHA-512: an entry written through the API reaches a webhook receiver', async () => {
    const cluster = await startProcessCluster('saslssl', {
      brokers: broker.saslSslBrokers,
      env: { ...secureEnv, WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true', KAFKA_SESSION_TIMEOUT_MS: '6000' },
    });
    try {
      for (const port of [cluster.core.port, cluster.delivery.port])
        expect((await readyz(port)).body?.checks?.kafka, cluster.tails()).toBe(true);
      const { key } = await cluster.newOrg('Managed Kafka Org');
      const api = apiOf(cluster.baseUrl, key);
      const projectId = await createProject(api, 'Over SASL_SSL');
      const s = await subscriber(api, ['entry.created']);
      try {
        await expectExactlyOnce([s], [await createEntry(api, projectId, 'sent over TLS')]);
      } finally {
        await s.receiver.close();
      }
    } finally {
      await cluster.stop();
    }
  }, 240_000);

  it('a wrong password: the start fails at once, naming the login settings, with a non-zero exit', async () => {
    const env: Record<string, string> = { ...secureEnv, KAFKA_SASL_PASSWORD: 'not-the-password' };
    delete env.KAFKA_SASL_PASSWORD_FILE;
    const { code, output } = await failedStart('core', env);
    expect(code, output).not.toBe(0);
    expect(output).toMatch(/the broker refused the login \(KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD\)/);
    expect(output).toMatch(/SCRAM/);
  }, 120_000);

  it('a CA that did not sign the broker’s certificate: the process stops, naming KAFKA_SSL_CA_FILE, with a non-zero exit', async () => {
    const other = testCa(dir, 'other');
    const { code, output } = await failedStart('delivery', { ...secureEnv, KAFKA_SSL_CA_FILE: other.caFile });
    expect(code, output).not.toBe(0);
    expect(output).toMatch(/the broker's TLS certificate did not verify \(\w+; is KAFKA_SSL_CA_FILE the CA that signed it\?\)/);
  }, 120_000);

  it('KAFKA_MANAGE_TOPICS=false: core and delivery refuse to start while the topics are missing, naming them, and start once they exist', async () => {
    const prefix = `unmanaged${randomBytes(4).toString('hex')}.`;
    const env = { ...secureEnv, KAFKA_MANAGE_TOPICS: 'false', KAFKA_TOPIC_PREFIX: prefix };
    for (const name of ['core', 'delivery'] as const) {
      const { code, output } = await failedStart(name, env);
      expect(code, output).not.toBe(0);
      for (const { topic } of clusterTopics(prefix)) expect(output).toContain(`topic ${topic} does not exist`);
    }
    // An operator creates them (here on the plaintext listener, as an administrator would); core starts and checks them.
    await ensureTopics(createKafka({ brokers: [broker.brokers], clientId: 'operator' }), clusterTopics(prefix));
    const databaseUrl = freshDatabaseUrl('kafkasec');
    const core = await serviceProcess('core', { ...env, DATABASE_URL: databaseUrl });
    try {
      await core.start();
      expect((await readyz(core.port)).status, core.tail()).toBe(200);
    } finally {
      await core.stop();
      await dropDatabase(databaseUrl);
    }
  }, 240_000);

  it('OAUTHBEARER: the token comes from a file, read again at each login, or from a command', async () => {
    const tls = { ca: readFileSync(ca.caFile, 'utf8') };
    const tokenFile = path.join(dir, 'token');
    const connect = async (sasl: KafkaSecurity['sasl']) => {
      const admin = createKafka({ brokers: [broker.saslSslBrokers!], clientId: 'oauth', security: { tls, sasl } }).admin();
      try {
        await admin.connect();
        return await admin.listTopics();
      } finally {
        await admin.disconnect();
      }
    };
    writeFileSync(tokenFile, `${unsecuredToken('app', 3600)}\n`);
    expect(await connect({ mechanism: 'oauthbearer', tokenFile })).toBeInstanceOf(Array);
    writeFileSync(tokenFile, unsecuredToken('app', -60)); // expired: the next login reads it and is refused
    const refused = await connect({ mechanism: 'oauthbearer', tokenFile }).catch((err: unknown) => err);
    expect(kafkaStartProblem(refused)).toMatch(/refused the login/);
    const command = `printf '%s' '${unsecuredToken('app', 3600)}'`;
    expect(await connect({ mechanism: 'oauthbearer', tokenCommand: command })).toBeInstanceOf(Array);
  }, 120_000);
});

/**
 * An unsecured JSON Web Token (`alg: none`) for `sub`, expiring in `seconds`: what Kafka's built-in
 * OAUTHBEARER validator accepts, standing in for an identity provider's signed token.
 */
function unsecuredToken(sub: string, seconds: number): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'none' })}.${part({ sub, iat: now - 120, exp: now + seconds })}.`;
}
