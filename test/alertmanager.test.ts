import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from './support/processes.ts';

// The example Alertmanager configuration (k8s/alertmanager/alertmanager.yaml) as Alertmanager reads
// it: amtool checks it and tests its routes, and a real Alertmanager (Debian's
// prometheus-alertmanager, on a loopback port) is sent the alerts each incident fires, as the rule
// unit tests (k8s/tests/) have them: one page is left active per incident, the others are
// inhibited. docs/runbook.md, "Pages and tickets".
const ROOT = path.resolve(import.meta.dirname, '..');
const CONFIG = path.join(ROOT, 'k8s/alertmanager/alertmanager.yaml');
const ALERTMANAGER = '/usr/bin/prometheus-alertmanager';

/** amtool's answer, or its error output. */
async function amtool(...args: string[]): Promise<string> {
  try {
    return (await run('amtool', args, { encoding: 'utf8' })).stdout.trim();
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}`.trim();
  }
}

describe('the example Alertmanager configuration', () => {
  it('passes amtool check-config', async () => {
    expect(await amtool('check-config', CONFIG)).toContain('SUCCESS');
  });

  it.each([
    [{ severity: 'page', namespace: 'feedback-api', alertname: 'OutboxBacklogOld' }, 'pager'],
    [{ severity: 'page', namespace: 'feedback-api-dev', alertname: 'OutboxBacklogOld' }, 'tickets'],
    [{ severity: 'ticket', namespace: 'feedback-api', alertname: 'DependencyDown' }, 'tickets'],
  ])('routes %o to %s', async (labels, receiver) => {
    const args = Object.entries(labels).map(([k, v]) => `${k}=${v}`);
    expect(await amtool('config', 'routes', 'test', `--config.file=${CONFIG}`, ...args)).toBe(receiver);
  });

  it("pages one notification group per namespace, so that an outage's pages make one incident", () => {
    const pager = parse(readFileSync(CONFIG, 'utf8')).route.routes.find((r: { receiver: string }) => r.receiver === 'pager');
    expect(pager.group_by).toEqual(['cluster', 'namespace']);
  });
});

type Labels = Record<string, string>;
/**
 * What each incident fires (labels as the rules set them), and the one page that must stay. Each runs
 * under a cluster label of its own, so the incidents do not inhibit one another.
 */
const INCIDENTS: { name: string; alerts: Labels[]; page: string }[] = [
  {
    name: 'Kafka down',
    page: 'OutboxBacklogOld',
    alerts: [
      { alertname: 'OutboxBacklogOld', severity: 'page' },
      { alertname: 'OutboxPublishFailing', severity: 'ticket' },
      { alertname: 'DependencyDown', severity: 'ticket', service: 'core', dependency: 'kafka' },
      { alertname: 'DependencyDown', severity: 'ticket', service: 'delivery', dependency: 'kafka' },
      // Held back by the rules already; inhibited too should a long outage outlast the rules' window.
      { alertname: 'WebhookLatencyFastBurn', severity: 'page', slo: 'webhook-latency' },
      { alertname: 'WebhookLatencySlowBurn', severity: 'page', slo: 'webhook-latency' },
    ],
  },
  {
    name: 'Postgres down',
    page: 'ApiAvailabilityFastBurn',
    alerts: [
      { alertname: 'DependencyDown', severity: 'ticket', service: 'core', dependency: 'postgres' },
      { alertname: 'DependencyDown', severity: 'ticket', service: 'delivery', dependency: 'postgres' },
      { alertname: 'DependencyDown', severity: 'ticket', service: 'evidence', dependency: 'postgres' },
      { alertname: 'ApiAvailabilityFastBurn', severity: 'page', slo: 'api-availability' },
      { alertname: 'ApiAvailabilitySteadyBurn', severity: 'ticket', slo: 'api-availability' },
      { alertname: 'ApiLatencyFastBurn', severity: 'page', slo: 'api-latency' },
      { alertname: 'WebhookDeliveriesOverdue', severity: 'page' },
    ],
  },
  {
    name: 'every gateway pod down',
    page: 'ServiceDown',
    alerts: [
      { alertname: 'ServiceDown', severity: 'page', job: 'gateway' },
      { alertname: 'ServiceTargetDown', severity: 'ticket', job: 'gateway', pod: 'gateway-a' },
      { alertname: 'ServiceTargetDown', severity: 'ticket', job: 'gateway', pod: 'gateway-b' },
      { alertname: 'EdgeDown', severity: 'page' },
    ],
  },
  {
    name: 'every core pod down',
    page: 'ServiceDown',
    alerts: [
      { alertname: 'ServiceDown', severity: 'page', job: 'core' },
      { alertname: 'ServiceTargetDown', severity: 'ticket', job: 'core', pod: 'core-a' },
      { alertname: 'ApiAvailabilityFastBurn', severity: 'page', slo: 'api-availability' },
      { alertname: 'ApiLatencyFastBurn', severity: 'page', slo: 'api-latency' },
    ],
  },
  {
    name: 'every delivery pod down',
    page: 'ServiceDown',
    alerts: [
      { alertname: 'ServiceDown', severity: 'page', job: 'delivery' },
      { alertname: 'WebhookDeliveriesOverdue', severity: 'page' },
      { alertname: 'WebhookLatencyFastBurn', severity: 'page', slo: 'webhook-latency' },
    ],
  },
  {
    name: 'the edge down (its proxies or the load balancer), the gateway healthy',
    page: 'EdgeDown',
    alerts: [
      { alertname: 'EdgeDown', severity: 'page' },
      { alertname: 'EdgeProxiesDegraded', severity: 'ticket' },
    ],
  },
];

/** A free loopback port (Alertmanager cannot report the one it picked). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a real Alertmanager with the example configuration', () => {
  let am: ChildProcess | undefined;
  let dir: string;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'alertmanager-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}/api/v2`;
    am = spawn(
      ALERTMANAGER,
      [
        `--config.file=${CONFIG}`,
        `--storage.path=${dir}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--cluster.listen-address=', // one instance: no gossip port
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      const ready = await fetch(`${base}/status`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${ALERTMANAGER} did not answer on ${base}`);
  }, 20_000);
  afterAll(() => {
    am?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(INCIDENTS.map((incident, i) => ({ ...incident, cluster: `incident-${i}` })))(
    '$name: one page stays active ($page), the others are inhibited',
    async ({ alerts, page, cluster }) => {
      const now = Date.now();
      const body = alerts.map((labels) => ({
        labels: { ...labels, cluster, namespace: 'feedback-api' },
        startsAt: new Date(now).toISOString(),
        endsAt: new Date(now + 3_600_000).toISOString(),
      }));
      const posted = await fetch(`${base}/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(posted.status).toBe(200);
      type Status = { labels: Labels; status: { state: string } };
      // Inhibition follows the alerts as they arrive: wait until every alert has been seen.
      let active: string[] = [];
      for (let i = 0; i < 50; i++) {
        const listed = (await (await fetch(`${base}/alerts?filter=cluster%3D%22${cluster}%22`)).json()) as Status[];
        active = listed.filter((a) => a.labels.severity === 'page' && a.status.state === 'active').map((a) => a.labels.alertname);
        if (listed.length === alerts.length && active.length <= 1) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(active).toEqual([page]);
    },
  );

  it("keeps namespaces apart: one namespace's cause does not hold back another's page", async () => {
    const now = Date.now();
    const alert = (labels: Labels) => ({
      labels: { ...labels, cluster: 'apart' },
      startsAt: new Date(now).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
    });
    await fetch(`${base}/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        alert({ alertname: 'OutboxBacklogOld', severity: 'page', namespace: 'feedback-api-dev' }),
        alert({ alertname: 'WebhookLatencyFastBurn', severity: 'page', slo: 'webhook-latency', namespace: 'feedback-api' }),
      ]),
    });
    await new Promise((r) => setTimeout(r, 500));
    const listed = (await (await fetch(`${base}/alerts?filter=cluster%3D%22apart%22`)).json()) as {
      labels: Labels;
      status: { state: string };
    }[];
    expect(listed.map((a) => `${a.labels.namespace} ${a.labels.alertname} ${a.status.state}`).sort()).toEqual([
      'feedback-api WebhookLatencyFastBurn active',
      'feedback-api-dev OutboxBacklogOld active',
    ]);
  });
});
