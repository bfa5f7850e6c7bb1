import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DOMAIN_EVENT_PARTITIONS } from '@cluster/kafka';

// The manifests as an SRE applies them: every overlay rendered by `kubectl kustomize`, each
// object validated offline against the Kubernetes, prometheus-operator and KEDA schemas
// (kubernetes-models), and every pod checked against the `restricted` Pod Security level.
const ROOT = path.resolve(import.meta.dirname, '..');
const OVERLAYS = ['dev', 'prod'] as const;

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  data?: Record<string, string>;
  [key: string]: unknown;
};

let work: string;
const rendered: Record<string, Obj[]> = {};

/** Renders a kustomization directory of the working copy. */
function render(dir: string): Obj[] {
  const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(out).map((d) => d.toJSON() as Obj);
}

beforeAll(() => {
  // A copy, because the dev overlay's Secrets come from git-ignored env files that
  // scripts/k8s-secrets.mjs writes (as docs/deploy.md tells a newcomer to do).
  work = mkdtempSync(path.join(tmpdir(), 'k8s-'));
  cpSync(path.join(ROOT, 'k8s'), work, { recursive: true });
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/k8s-secrets.mjs'), path.join(work, 'overlays/dev'), '--force']);
  rendered.base = render(path.join(work, 'base'));
  for (const o of OVERLAYS) rendered[o] = render(path.join(work, 'overlays', o));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The kubernetes-models module that holds an apiVersion's classes. */
function modelModule(apiVersion: string): string {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  if (group === 'monitoring.coreos.com') return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  if (group === 'keda.sh') return `@kubernetes-models/keda/${apiVersion}`;
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

describe.each(OVERLAYS)('the %s overlay', (overlay) => {
  const objs = () => rendered[overlay];

  it('validates every object against its schema', async () => {
    const problems: string[] = [];
    for (const o of objs()) {
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
    // Prometheus scrapes every service; only the gateway takes traffic from the ingress controller.
    expect(fromOutside.filter((x) => !x.endsWith('<-monitoring'))).toEqual(['gateway<-ingress-nginx']);
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

  it('exposes only the public paths through the Ingress; Prometheus scrapes the gateway on its own port', () => {
    const ingress = objs().find((o) => o.kind === 'Ingress')!;
    type Path = { path: string; backend: { service: { port: { name: string } } } };
    const paths: Path[] = ingress.spec!.rules.flatMap((r: { http: { paths: Path[] } }) => r.http.paths);
    expect(paths.map((p) => p.path).sort()).toEqual(['/.well-known', '/api', '/hooks', '/mcp']);
    expect(new Set(paths.map((p) => p.backend.service.port.name))).toEqual(new Set(['http']));
    const monitor = objs().find((o) => o.kind === 'ServiceMonitor' && o.metadata.name === 'gateway')!;
    expect(monitor.spec!.endpoints.map((e: { port: string }) => e.port)).toEqual(['metrics']);
    const policy = objs().find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'gateway')!;
    const portsFrom = (ns: string) =>
      policy
        .spec!.ingress.filter((r: { from: { namespaceSelector: { matchLabels: Record<string, string> } }[] }) =>
          r.from.some((f) => f.namespaceSelector.matchLabels['kubernetes.io/metadata.name'] === ns),
        )
        .flatMap((r: { ports: { port: number }[] }) => r.ports.map((p) => p.port));
    expect(portsFrom('ingress-nginx')).toEqual([8080]);
    expect(portsFrom('monitoring')).toEqual([9464]);
  });

  it('refers only to ConfigMaps and Secrets it carries, or, in prod, the two Secrets made out of band', () => {
    const names = new Set(objs().map((o) => `${o.kind}/${o.metadata.name}`));
    const outOfBand = overlay === 'prod' ? new Set(['Secret/cluster-secrets', 'Secret/service-signing-keys']) : new Set();
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
      const data = rendered[overlay].find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('cluster-config'))!.data!;
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
      rendered[overlay].find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('cluster-config'))!.data!;
    expect(config('prod').OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector.monitoring.svc:4318');
    expect(config('dev').OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    const otlp = rendered.prod.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'allow-otlp')!;
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
