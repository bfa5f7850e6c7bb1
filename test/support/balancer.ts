import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { sleep } from './poll.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** How a balancer judges a backend, as a Kubernetes readiness probe does. */
export interface ReadinessProbe {
  path: string;
  periodMs: number;
  timeoutMs: number;
  /** Failed probes in a row before the backend leaves the rotation. */
  failureThreshold: number;
}

/** The readiness probe of a service's Deployment in k8s/base (what decides, in production, who gets traffic). */
export function manifestProbe(service: 'core' | 'delivery' | 'evidence' | 'gateway'): ReadinessProbe {
  const docs = parseAllDocuments(readFileSync(path.join(ROOT, 'k8s', 'base', `${service}.yaml`), 'utf8'));
  const deployment = docs.map((d) => d.toJS() as Manifest).find((m) => m?.kind === 'Deployment');
  const probe = deployment?.spec.template.spec.containers[0]?.readinessProbe;
  if (!probe) throw new Error(`k8s/base/${service}.yaml: no Deployment with a readinessProbe`);
  // Kubernetes' defaults where the manifest says nothing.
  return {
    path: probe.httpGet.path,
    periodMs: (probe.periodSeconds ?? 10) * 1000,
    timeoutMs: (probe.timeoutSeconds ?? 1) * 1000,
    failureThreshold: probe.failureThreshold ?? 3,
  };
}

interface Manifest {
  kind: string;
  spec: {
    template: {
      spec: {
        containers: {
          readinessProbe?: {
            httpGet: { path: string };
            periodSeconds?: number;
            timeoutSeconds?: number;
            failureThreshold?: number;
          };
        }[];
      };
    };
  };
}

/** A backend of a balancer: a name and a port on 127.0.0.1. */
export interface Backend {
  name: string;
  port: number;
}

/**
 * A layer-4 load balancer on 127.0.0.1, as a Kubernetes Service (kube-proxy) or a cloud network
 * balancer is: each new connection goes round-robin to a backend whose readiness probe passes,
 * and to the next one when the connection is refused; an accepted connection stays with its
 * backend (a frozen backend holds it). A soak puts one in front of each set of replicas.
 */
export interface Balancer {
  port: number;
  url: string;
  /** The backends in the rotation now. */
  ready(): string[];
  /** Every change of a backend's place in the rotation since the start (its first entry included), and failed probes. */
  history(): { transitions: { name: string; ready: boolean; at: number }[]; failedProbes: Record<string, number> };
  /** Waits (bounded) until every backend is in the rotation. */
  waitForAll(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startBalancer(backends: Backend[], probe: ReadinessProbe): Promise<Balancer> {
  const health = backends.map((b) => ({ ...b, ready: false, failures: 0 }));
  const transitions: { name: string; ready: boolean; at: number }[] = [];
  const failedProbes: Record<string, number> = Object.fromEntries(backends.map((b) => [b.name, 0]));
  let next = 0;
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };

  /** The ready backends, starting at the round-robin cursor. */
  const candidates = () => {
    const ready = health.filter((h) => h.ready);
    next = (next + 1) % Math.max(ready.length, 1);
    return [...ready.slice(next), ...ready.slice(0, next)];
  };

  const forward = (client: net.Socket, list: Backend[]): void => {
    const backend = list.shift();
    if (!backend) return void client.destroy(); // no endpoint: the client sees the connection drop
    const upstream = net.connect({ port: backend.port, host: '127.0.0.1', noDelay: true });
    track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream);
      upstream.pipe(client);
    });
    // Refused before it connected: the next backend, as a balancer moves on from a dead endpoint.
    upstream.on('error', () => (connected ? client.destroy() : forward(client, list)));
    client.once('close', () => upstream.destroy());
  };

  const server = net.createServer({ noDelay: true }, (client) => {
    track(client);
    client.on('error', () => client.destroy());
    forward(client, candidates());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  const timers = health.map((h) => {
    const check = async () => {
      const ok = await fetch(`http://127.0.0.1:${h.port}${probe.path}`, { signal: AbortSignal.timeout(probe.timeoutMs) })
        .then((res) => res.ok)
        .catch(() => false);
      h.failures = ok ? 0 : h.failures + 1;
      const was = h.ready;
      if (ok) h.ready = true;
      else if (h.failures >= probe.failureThreshold) h.ready = false;
      if (!ok) failedProbes[h.name]++;
      if (h.ready !== was) transitions.push({ name: h.name, ready: h.ready, at: Date.now() });
    };
    void check();
    return setInterval(() => void check(), probe.periodMs).unref();
  });

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    ready: () => health.filter((h) => h.ready).map((h) => h.name),
    history: () => ({ transitions: [...transitions], failedProbes: { ...failedProbes } }),
    async waitForAll(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (health.some((h) => !h.ready)) {
        if (Date.now() > deadline)
          throw new Error(
            `balancer: not ready within ${timeoutMs} ms: ${health
              .filter((h) => !h.ready)
              .map((h) => h.name)
              .join(', ')}`,
          );
        await sleep(100);
      }
    },
    async close() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
