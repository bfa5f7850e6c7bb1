import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { run } from './support/processes.ts';

// Upgrading an installation made with the manifests of before the autoscalers owned the replica
// count (their Deployments set `spec.replicas`) with a client-side `kubectl apply`. The real kubectl
// talks to a small fake API server (discovery, and GET, LIST and PATCH of Deployments, applying JSON
// merge patches as the API server does for these fields and defaulting a deleted `replicas` to 1), so
// what is checked is the patch kubectl itself computes from its last-applied annotation:
// docs/deploy.md, "Upgrading from manifests with replicas".
const ROOT = path.resolve(import.meta.dirname, '..');
const ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

/** A JSON merge patch (RFC 7386), skipping strategic-merge directives ($setElementOrder, ...). */
function mergePatch(target: Obj, patch: Obj): Obj {
  const out: Obj = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    if (value === null) delete out[key];
    else if (typeof value === 'object' && !Array.isArray(value) && typeof out[key] === 'object' && !Array.isArray(out[key]))
      out[key] = mergePatch(out[key], value);
    else out[key] = value;
  }
  return out;
}

/** Just enough of an API server for `kubectl apply`, `get` and `annotate` on Deployments. */
function fakeApiServer() {
  const deployments = new Map<string, Obj>();
  const patches: { name: string; type: string; body: Obj }[] = [];
  const send = (res: http.ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const notFound = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const { pathname } = new URL(req.url!, 'http://fake');
      if (pathname === '/version') return send(res, 200, { major: '1', minor: '32', gitVersion: 'v1.32.0' });
      if (pathname === '/api') return send(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
      if (pathname === '/api/v1') return send(res, 200, { kind: 'APIResourceList', groupVersion: 'v1', resources: [] });
      if (pathname === '/apis')
        return send(res, 200, {
          kind: 'APIGroupList',
          apiVersion: 'v1',
          groups: [
            {
              name: 'apps',
              versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
              preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
            },
          ],
        });
      if (pathname === '/apis/apps/v1')
        return send(res, 200, {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: 'apps/v1',
          resources: [
            {
              name: 'deployments',
              singularName: 'deployment',
              namespaced: true,
              kind: 'Deployment',
              verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
            },
          ],
        });
      const m = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments(?:\/([^/]+))?$/.exec(pathname);
      if (!m) return send(res, 404, notFound);
      const [, namespace, name] = m;
      if (!name && req.method === 'GET')
        return send(res, 200, {
          kind: 'DeploymentList',
          apiVersion: 'apps/v1',
          metadata: {},
          items: [...deployments.values()].filter((d) => d.metadata.namespace === namespace),
        });
      const live = deployments.get(name);
      if (!live) return send(res, 404, notFound);
      if (req.method === 'GET') return send(res, 200, live);
      if (req.method === 'PATCH') {
        const patch = JSON.parse(body) as Obj;
        patches.push({ name, type: req.headers['content-type'] ?? '', body: patch });
        const next = mergePatch(live, patch);
        next.spec.replicas ??= 1; // the API server's default for a Deployment without replicas
        deployments.set(name, next);
        return send(res, 200, next);
      }
      return send(res, 405, notFound);
    });
  });
  return { server, deployments, patches };
}

let work: string;
let fake: ReturnType<typeof fakeApiServer>;
let server: string;
/** The prod overlay's Deployments and PodDisruptionBudgets, as this version renders them. */
let current: Obj[];
let budgets: Map<string, number>;
let minReplicas: Map<string, number>;

/**
 * Runs a command against the fake API server. Asynchronously: the server answers from this process's
 * event loop, which a synchronous child would block.
 */
async function against(command: string, args: string[]): Promise<string> {
  const env = { ...process.env, HOME: work, KUBECONFIG: '/dev/null' };
  return (await run(command, args, { encoding: 'utf8', env })).stdout;
}
const kubectl = (...args: string[]) => against('kubectl', ['--server', server, ...args]);
const forgetReplicas = async () =>
  JSON.parse(
    await against(process.execPath, [
      path.join(ROOT, 'scripts/k8s-forget-replicas.mjs'),
      '--namespace',
      'feedback-api',
      '--',
      '--server',
      server,
    ]),
  ) as { deployments: { name: string; action: string }[] };

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'k8s-upgrade-'));
  const rendered = parseAllDocuments(
    (await run('kubectl', ['kustomize', path.join(ROOT, 'k8s/overlays/prod')], { encoding: 'utf8' })).stdout,
  ).map((d) => d.toJSON() as Obj);
  current = rendered.filter((o) => o.kind === 'Deployment');
  writeFileSync(path.join(work, 'deployments.yaml'), current.map((d) => stringify(d)).join('---\n'));
  budgets = new Map(
    rendered
      .filter((o) => o.kind === 'PodDisruptionBudget')
      .map((p) => [p.spec.selector.matchLabels['app.kubernetes.io/name'], p.spec.minAvailable]),
  );
  minReplicas = new Map(
    rendered
      .filter((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'ScaledObject')
      .map((s) => [s.spec.scaleTargetRef.name, s.spec.minReplicas ?? s.spec.minReplicaCount]),
  );
  fake = fakeApiServer();
  await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  server = `http://127.0.0.1:${(fake.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => fake?.server.close(resolve));
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * An installation of the previous manifests: each Deployment as this version has it plus the
 * `replicas` the old one set (the autoscaler's minimum), applied client-side (the annotation holds
 * what was applied), and scaled up by its autoscaler since.
 */
beforeEach(() => {
  fake.deployments.clear();
  fake.patches.length = 0;
  for (const d of current) {
    const replicas = minReplicas.get(d.metadata.name)!;
    const applied = { ...d, spec: { replicas, ...d.spec } };
    fake.deployments.set(d.metadata.name, {
      ...applied,
      metadata: { ...d.metadata, annotations: { [ANNOTATION]: `${JSON.stringify(applied)}\n` } },
      spec: { ...applied.spec, replicas: replicas + 1 },
    });
  }
});

describe('upgrading from manifests with spec.replicas (client-side kubectl apply)', () => {
  it('without the step, kubectl deletes replicas: every Deployment drops to 1 pod, the gateway below its PodDisruptionBudget', async () => {
    await kubectl('apply', '--validate=false', '-f', path.join(work, 'deployments.yaml'));
    for (const d of current) {
      const patch = fake.patches.find((p) => p.name === d.metadata.name)!;
      expect(patch.body.spec?.replicas, d.metadata.name).toBeNull();
      expect(fake.deployments.get(d.metadata.name)!.spec.replicas, d.metadata.name).toBe(1);
    }
    expect(budgets.get('gateway')).toBeGreaterThan(1);
  });

  it('with scripts/k8s-forget-replicas.mjs first, the apply keeps every live count, at or above its PodDisruptionBudget', async () => {
    const before = new Map([...fake.deployments].map(([name, d]) => [name, d.spec.replicas as number]));
    const out = await forgetReplicas();
    expect(out.deployments.map((d) => d.action)).toEqual(
      current.map(() => 'forgot spec.replicas in the last-applied annotation'),
    );
    // Only the annotation changed: no live count moved.
    for (const [name, d] of fake.deployments) expect(d.spec.replicas, name).toBe(before.get(name));
    fake.patches.length = 0;
    await kubectl('apply', '--validate=false', '-f', path.join(work, 'deployments.yaml'));
    for (const d of current) {
      const name = d.metadata.name;
      const patch = fake.patches.find((p) => p.name === name);
      expect(patch?.body.spec?.replicas, name).toBeUndefined();
      const live = fake.deployments.get(name)!;
      expect(live.spec.replicas, name).toBe(before.get(name));
      expect(live.spec.replicas, name).toBeGreaterThanOrEqual(budgets.get(name)! + 1);
      expect(JSON.parse(live.metadata.annotations[ANNOTATION]).spec.replicas, name).toBeUndefined();
    }
    // A second run finds nothing to do.
    const again = await forgetReplicas();
    expect(new Set(again.deployments.map((d) => d.action))).toEqual(new Set(['none: the annotation has no replicas']));
  });
});
