import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl, requireEnv } from './support/cluster.ts';
import { replayDockerfile, type ReplayedStage } from './support/dockerfile.ts';
import { startOtlpCollector, type OtlpCollector } from './support/otlp.ts';
import { until } from './support/poll.ts';
import { exited, freePort, run, waitForHttp } from './support/processes.ts';

// The image, built as Docker would build it (k8s/Dockerfile's steps replayed in a clean copy of
// the build context: install, generate, compile, a runtime stage with production dependencies
// only) and run as Kubernetes runs it: NODE_ENV=production with real keys, the migration Job's
// entry points first, then the four services with MIGRATE_ON_START=false, from a working tree
// none of them writes to, with tracing on (the SDK and its instrumentations from the production
// dependencies, exporting to a collector of the test's own). An image that cannot build or run fails here.
const ROOT = path.resolve(import.meta.dirname, '..');
const SERVICES = ['core', 'delivery', 'evidence', 'gateway'] as const;
const { brokers } = requireEnv();
const databaseUrl = freshDatabaseUrl('image');

let work: string;
let runtime: ReplayedStage;
let app: string;
const children: ChildProcess[] = [];
let collector: OtlpCollector;

/** Every file under `dir` with its size and modification time (node_modules included). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const st = statSync(file);
    out.set(path.relative(dir, file), `${st.size}:${st.mtimeMs}`);
  }
  return out;
}

/** The environment Kubernetes gives the pods: the ConfigMap's settings and the Secrets' keys. */
function podEnvironment(ports: Record<(typeof SERVICES)[number], number>): Record<string, string> {
  const keys = JSON.parse(
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/service-keys.mjs')], { encoding: 'utf8' }),
  ) as {
    signingKeys: Record<string, string>;
    SERVICE_PUBLIC_KEYS: string;
  };
  return {
    ...runtime.env,
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_TOPIC_PREFIX: `img${randomBytes(4).toString('hex')}.`,
    // The suite's Postgres speaks no TLS: production mode refuses a plaintext URL unless told the network is trusted.
    DATABASE_ALLOW_PLAINTEXT: 'true',
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    EVIDENCE_SECRET_KEY: randomBytes(32).toString('base64'),
    EVIDENCE_SIGNING_KEY: randomBytes(32).toString('base64'),
    CODEHOST_SECRET_KEY: randomBytes(32).toString('base64'),
    SERVICE_PUBLIC_KEYS: keys.SERVICE_PUBLIC_KEYS,
    ...Object.fromEntries(Object.entries(keys.signingKeys).map(([s, k]) => [`SIGNING_KEY_${s}`, k])),
    CORE_PORT: String(ports.core),
    DELIVERY_PORT: String(ports.delivery),
    EVIDENCE_PORT: String(ports.evidence),
    GATEWAY_PORT: String(ports.gateway),
    GATEWAY_METRICS_PORT: '0',
    CORE_URL: `http://127.0.0.1:${ports.core}`,
    DELIVERY_URL: `http://127.0.0.1:${ports.delivery}`,
    EVIDENCE_URL: `http://127.0.0.1:${ports.evidence}`,
    MIGRATE_ON_START: 'false',
    // Required outside CLUSTER_ENV=development, as both overlays set it.
    PUBLIC_BASE_URL: 'https://api.feedback.example.com',
    LOG_LEVEL: 'warn',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
}

beforeAll(async () => {
  // The operator's database exists before a deploy (the manifests set DATABASE_CREATE=false).
  await ensureDatabase(databaseUrl);
  collector = await startOtlpCollector();
  work = mkdtempSync(path.join(tmpdir(), 'image-'));
  const stages = await replayDockerfile({ dockerfile: path.join(ROOT, 'k8s/Dockerfile'), contextDir: ROOT, workDir: work });
  runtime = stages.at(-1)!;
  app = path.join(runtime.root, runtime.workdir);
}, 900_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((c) => exited(c)));
  await dropDatabase(databaseUrl);
  await collector?.close();
  // Removing the replayed stages (two installed dependency trees, about 100,000 files) took three
  // minutes on a loaded 2-core machine: past vitest's default hook timeout, which failed a passing
  // file; asynchronously, so that the worker stays responsive meanwhile.
  if (work) await rm(work, { recursive: true, force: true });
}, 600_000);

describe('the image', () => {
  it('holds the compiled services and their production dependencies, nothing else', () => {
    for (const s of SERVICES) expect(existsSync(path.join(app, 'services', s, 'dist', 'main.js')), s).toBe(true);
    for (const entry of [
      'core/dist/migrate.js',
      'delivery/dist/migrate.js',
      'core/dist/admin-cli.js',
      'delivery/dist/reseal-secrets.js',
      'delivery/dist/rebuild-stats.js',
    ])
      expect(existsSync(path.join(app, 'services', entry)), entry).toBe(true);
    for (const s of SERVICES) expect(existsSync(path.join(app, 'services', s, 'src')), `${s} sources`).toBe(false);
    for (const dev of ['vitest', 'typescript', 'tsx', 'esbuild', '@bufbuild/buf', 'eslint'])
      expect(existsSync(path.join(app, 'node_modules', dev)), `dev dependency ${dev}`).toBe(false);
    expect(runtime.env.NODE_ENV).toBe('production');
    expect(runtime.user).toMatch(/^[1-9]\d*(:\d+)?$/); // numeric and not root: runAsNonRoot can check it
    expect(runtime.cmd).toEqual(['sh', '-c', 'exec node --enable-source-maps services/${SERVICE}/dist/main.js']);
  });

  it('migrates with the Job, runs the four services in production mode without writing a file, and answers', async () => {
    const ports = { core: await freePort(), delivery: await freePort(), evidence: await freePort(), gateway: await freePort() };
    const env = podEnvironment(ports);
    const before = snapshot(app);

    // One user for everything here (test/db-roles.test.ts runs the services on roles of their own): the
    // Job's runtime role, required in production, is the owner itself, which needs no grant.
    const job = { ...env, DATABASE_RUNTIME_ROLE: new URL(databaseUrl).username };
    for (const s of ['core', 'delivery', 'evidence'])
      await run(process.execPath, ['--enable-source-maps', `services/${s}/dist/migrate.js`], { cwd: app, env: job });

    for (const s of SERVICES) {
      // CMD as the image runs it, with the pod's own signing key (each Deployment mounts only its own).
      const child = spawn(runtime.cmd![0], runtime.cmd!.slice(1), {
        cwd: app,
        env: { ...env, SERVICE: s, SERVICE_SIGNING_KEY: env[`SIGNING_KEY_${s}`] },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
    }
    for (const s of SERVICES) await waitForHttp(`http://127.0.0.1:${ports[s]}/readyz`, 60_000);

    const demo = JSON.parse(
      (
        await run(process.execPath, ['--enable-source-maps', 'services/core/dist/admin-cli.js', 'demo'], {
          cwd: app,
          env,
          encoding: 'utf8',
        })
      ).stdout,
    ) as { apiKey: { key: string } };
    const me = await fetch(`http://127.0.0.1:${ports.gateway}/api/v1/me`, {
      headers: { authorization: `Bearer ${demo.apiKey.key}` },
    });
    expect(me.status).toBe(200);
    const project = await fetch(`http://127.0.0.1:${ports.gateway}/api/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.apiKey.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Image check', description: 'written through the replayed image' }),
    });
    expect(project.status).toBe(201);
    // The reference page is rendered at build time (a dev dependency renders it, not in the image): its content is in the HTML.
    const reference = await fetch(`http://127.0.0.1:${ports.gateway}/api/v1/docs`);
    expect(reference.status).toBe(200);
    expect(await reference.text()).toContain('Create an entry');
    const renderer = await fetch(`http://127.0.0.1:${ports.gateway}/api/v1/docs/redoc.standalone.js`);
    expect(renderer.status).toBe(200);
    expect((await renderer.text()).length).toBeGreaterThan(100_000);
    expect(existsSync(path.join(app, 'node_modules', 'redoc'))).toBe(false);

    // The write's trace: the gateway's server span and the core's RPC span, exported by the image's SDK.
    const spans = await until(
      async () => collector.spans(),
      (found) => found.some((s) => s.name === 'POST /api/v1/projects') && found.some((s) => s.name.endsWith('/CreateProject')),
    );
    const server = spans.find((s) => s.name === 'POST /api/v1/projects');
    expect(server?.service).toBe('gateway');
    expect(spans.find((s) => s.name.endsWith('/CreateProject'))).toMatchObject({ service: 'core', traceId: server?.traceId });

    // A read-only root filesystem would refuse any of these writes.
    const after = snapshot(app);
    const changed = [...after].filter(([f, v]) => before.get(f) !== v).map(([f]) => f);
    expect(changed).toEqual([]);
  }, 180_000);
});
