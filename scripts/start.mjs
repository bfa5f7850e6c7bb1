// `npm start`: the whole cluster in the foreground until Ctrl-C (README: the two commands).
import { spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { bootstrap, generateCode, ROOT } from './lib/bootstrap.mjs';

await bootstrap({ generate: false });
// Imported once bootstrap has installed the dependencies (esbuild, pg and kafkajs among them).
const { ensureKafka, ensurePostgres, infraProblems, stopInfra, stopPid } = await import('./lib/infra.mjs');
const { StartError, portProblem, portSetting } = await import('./lib/preflight.mjs');
const { removeClusterState, writeClusterState } = await import('./lib/cluster-state.mjs');
const { DATABASE_SERVICES, ensureLocalRoles, localRoles } = await import('./lib/db-roles.mjs');

/** The ports the services listen on, by setting (their defaults as in each service's config). */
const SERVICE_PORTS = [
  ['GATEWAY_PORT', 8080, 'the gateway'],
  ['GATEWAY_METRICS_PORT', 9464, "the gateway's metrics"],
  ['CORE_PORT', 50051, 'core'],
  ['DELIVERY_PORT', 50052, 'delivery'],
  ['EVIDENCE_PORT', 50053, 'evidence'],
];

/**
 * Before anything starts or builds (scripts/lib/preflight.mjs): the local servers' needs, DATABASE_URL,
 * and the services' ports free. Every problem is printed as one line naming its fix, then exit 1.
 */
async function preflight() {
  const problems = [];
  try {
    const host = process.env.LISTEN_HOST ?? '127.0.0.1';
    const ports = SERVICE_PORTS.map(([setting, fallback, what]) => ({
      setting,
      what,
      port: portSetting(process.env, setting, fallback),
    }));
    for (const [i, p] of ports.entries()) {
      const other = ports.slice(0, i).find((o) => o.port === p.port);
      if (other) problems.push(`${other.setting} and ${p.setting} are both ${p.port}: set one of them to another port`);
    }
    problems.push(...(await infraProblems({ create: process.env.DATABASE_CREATE !== 'false' })));
    for (const p of ports) problems.push(await portProblem(p.port, p.setting, p.what, host));
  } catch (err) {
    if (!(err instanceof StartError)) throw err;
    problems.push(err.message);
  }
  const found = problems.filter(Boolean);
  if (found.length === 0) return;
  for (const p of found) process.stderr.write(`[start] ${p}\n`);
  process.stderr.write(`[start] nothing was started: fix the above and run npm start again\n`);
  process.exit(1);
}

process.stderr.write('[start] checking Java, ports and DATABASE_URL\n');
await preflight();
generateCode();
// Imported once the dependencies are installed (esbuild) and the code generated.
const { build } = await import('./build.mjs');
process.stderr.write('[setup] building the services (npm run build: services/*/dist)\n');
await build();

/**
 * LOCAL_DB_ROLES=true: each service's migration entry run as the owner role (`urls.owner`), as the
 * migration Job does, granting the service's role; returns each service's environment on its role.
 */
function migrateAsOwner(urls, env) {
  const { roles } = localRoles();
  process.stderr.write(`[start] LOCAL_DB_ROLES=true: migrating as ${roles.owner}; each service on its own role\n`);
  const serviceEnv = {};
  for (const service of DATABASE_SERVICES) {
    execFileSync(process.execPath, ['--enable-source-maps', path.join(ROOT, 'services', service, 'dist', 'migrate.js')], {
      cwd: ROOT,
      env: { ...env, DATABASE_URL: urls.owner, DATABASE_RUNTIME_ROLE: roles[service], DATABASE_CREATE: 'false' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    serviceEnv[service] = { DATABASE_URL: urls[service], MIGRATE_ON_START: 'false', DATABASE_CREATE: 'false' };
  }
  return serviceEnv;
}

const started = {};
const children = [];
let stopping = false;

// The local servers, started (or found running) before the services; a stop while they are
// still starting waits for them, so that it can stop the ones this run started.
let infra = Promise.resolve([]);
const startedBy = (settled) => settled.map((r) => (r.status === 'fulfilled' && r.value.started ? r.value : undefined));

async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  removeClusterState();
  process.stderr.write('\n[start] stopping the cluster (Ctrl-C again to force)\n');
  await Promise.all(children.reverse().map((c) => stopPid(c.pid, { name: c.name, graceMs: 20000 })));
  const [postgres, kafka] = startedBy(await infra);
  await stopInfra({ postgres, kafka });
  process.exit(code);
}

/** A second signal while stopping: SIGKILL to everything started, at once. */
function forceStop() {
  removeClusterState();
  process.stderr.write('\n[start] forced: killing every process it started\n');
  for (const pid of [...children.map((c) => c.pid), started.kafka?.pid, started.postgres?.pid]) {
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  process.exit(130);
}

// Ctrl-C reaches the whole foreground group; a supervisor or a closed terminal may signal
// npm or this process alone (npm passes SIGINT and SIGTERM on; SIGHUP is a closed terminal).
// One Ctrl-C arrives twice (from the terminal, and passed on by npm): a repeat within a second
// is that echo, not the second Ctrl-C that forces.
let firstSignalAt = 0;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    if (!stopping) {
      firstSignalAt = Date.now();
      return void stopAll(0);
    }
    if (Date.now() - firstSignalAt > 1000) forceStop();
  });

// Anything unforeseen (an error event nobody listens to, a rejected promise) stops what was started too.
for (const event of ['uncaughtException', 'unhandledRejection'])
  process.on(event, (err) => {
    process.stderr.write(`[start] ${err instanceof StartError ? err.message : err instanceof Error ? err.stack : err}\n`);
    void stopAll(1);
  });

// npm runs this script as its child (`exec`, so that npm's signals reach it). Should npm die
// without passing a signal on (SIGKILL), the cluster stops all the same: this process is re-parented.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stopAll(0);
}, 1000).unref();

try {
  infra = Promise.allSettled([ensurePostgres(), ensureKafka()]);
  const settled = await infra;
  [started.postgres, started.kafka] = startedBy(settled);
  if (stopping) await new Promise(() => {}); // stopAll stops them and exits
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  const [pg, kafka] = settled.map((r) => r.value);
  const db = new URL(pg.url);
  if (!process.env.DATABASE_URL) db.pathname = '/cluster';

  const gatewayPort = process.env.GATEWAY_PORT ?? '8080';
  const env = {
    // A local cluster: development keys, loopback receivers (readDevelopment in packages/platform/src/config/process.ts).
    CLUSTER_ENV: 'development',
    ...process.env,
    DATABASE_URL: db.toString(),
    // The local database is made on first use (production creates it beforehand: docs/deploy.md).
    DATABASE_CREATE: process.env.DATABASE_CREATE ?? 'true',
    KAFKA_BROKERS: kafka.brokers,
    GATEWAY_PORT: gatewayPort,
    WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: process.env.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS ?? 'true',
  };
  // LOCAL_DB_ROLES=true: the database roles as in production (docs/security.md, "Database roles"):
  // the migrations run here as the owner role, each service connects as its own role and only checks
  // its schema. Unset: everything as the local superuser.
  const serviceEnv = process.env.LOCAL_DB_ROLES === 'true' ? migrateAsOwner(await ensureLocalRoles(pg.url), env) : {};
  if (env.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS === 'true') {
    process.stderr.write(
      '[start] WARNING: WEBHOOK_ALLOW_PRIVATE_DESTINATIONS=true: webhooks may target loopback and private addresses (local use only)\n',
    );
  }

  const run = (name) => {
    const child = spawn(process.execPath, ['--enable-source-maps', path.join(ROOT, 'services', name, 'dist', 'main.js')], {
      cwd: ROOT,
      env: { ...env, ...serviceEnv[name] },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.on('error', (err) => {
      process.stderr.write(`[start] could not start ${name}: ${err.message}\n`);
      void stopAll(1);
    });
    if (child.pid) children.push({ name, pid: child.pid });
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[${name}] ${line}\n`));
    }
    child.on('exit', (code) => {
      if (!stopping) {
        process.stderr.write(`[start] ${name} exited with code ${code}; stopping\n`);
        void stopAll(1);
      }
    });
  };

  const waitReady = async (url, what, timeoutMs = 120000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      try {
        if ((await fetch(url, { signal: AbortSignal.timeout(2000) })).ok) return;
      } catch {
        /* not yet */
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    throw new StartError(`${what} did not become ready in ${timeoutMs / 1000} s (its lines above, prefixed [${what}])`);
  };

  run('core');
  await waitReady(`http://127.0.0.1:${env.CORE_PORT ?? 50051}/readyz`, 'core');
  run('delivery');
  run('evidence');
  run('gateway');
  // Readiness is local (docs/runbook.md): the gateway's says nothing of the backends, so wait for each.
  await Promise.all([
    waitReady(`http://127.0.0.1:${env.DELIVERY_PORT ?? 50052}/readyz`, 'delivery'),
    waitReady(`http://127.0.0.1:${env.EVIDENCE_PORT ?? 50053}/readyz`, 'evidence'),
    waitReady(`http://127.0.0.1:${gatewayPort}/readyz`, 'gateway'),
  ]);

  const demo = JSON.parse(
    execFileSync(process.execPath, ['--enable-source-maps', path.join(ROOT, 'services/core/dist/admin-cli.js'), 'demo'], {
      cwd: ROOT,
      env: { ...env, ...serviceEnv.core },
    }).toString(),
  );
  const base = `http://localhost:${gatewayPort}/api/v1`;
  // A one-time link to the integrator portal for the demo key (docs/portal.md): opens once, within 10 minutes.
  const portal = await fetch(`${base}/portal-sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${demo.apiKey.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ access: 'manage', lifetimeSeconds: 8 * 3600 }),
  })
    .then(async (res) => (res.ok ? `http://localhost:${gatewayPort}${(await res.json()).url}` : `not minted (${res.status})`))
    .catch((err) => `not minted (${err instanceof Error ? err.message : err})`);
  const topic = `${env.KAFKA_TOPIC_PREFIX ?? ''}cluster.domain-events.v1`;
  // For `npm run admin` (scripts/lib/cluster-state.mjs): this cluster's database and core, not the defaults'.
  writeClusterState({
    databaseUrl: env.DATABASE_URL,
    postgresUrl: pg.url,
    localDbRoles: process.env.LOCAL_DB_ROLES === 'true',
    kafkaBrokers: kafka.brokers,
    gatewayUrl: `http://localhost:${gatewayPort}`,
    coreUrl: env.CORE_URL ?? `http://127.0.0.1:${env.CORE_PORT ?? 50051}`,
    deliveryUrl: env.DELIVERY_URL ?? `http://127.0.0.1:${env.DELIVERY_PORT ?? 50052}`,
    evidenceUrl: env.EVIDENCE_URL ?? `http://127.0.0.1:${env.EVIDENCE_PORT ?? 50053}`,
    development: env.CLUSTER_ENV === 'development',
  });
  process.stdout.write(
    [
      '',
      '  Cluster is up.',
      `  Base URL:      ${base}`,
      `  Demo API key:  ${demo.apiKey.key}   (organization-scoped, role admin)`,
      `  Try:           curl -H "Authorization: Bearer ${demo.apiKey.key}" ${base}/me`,
      `  OpenAPI:       ${base}/openapi.json   (reference page: ${base}/docs)`,
      `  MCP:           http://localhost:${gatewayPort}/mcp   (same key, docs/mcp.md)`,
      `  Portal:        ${portal}`,
      `                 (webhooks in a browser, no key; opens once within 10 minutes; another: POST ${base}/portal-sessions, docs/portal.md)`,
      `  Kafka:         ${kafka.brokers}   (topic ${topic}; a consumer: docs/events.md)`,
      '  Admin CLI:     npm run --silent admin -- <command>',
      '  Stop:          Ctrl-C',
      '',
    ].join('\n') + '\n',
  );
} catch (err) {
  process.stderr.write(`[start] ${err instanceof StartError ? err.message : err instanceof Error ? err.stack : err}\n`);
  await stopAll(1);
}
