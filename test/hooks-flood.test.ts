import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcessCluster, type ProcessCluster } from './support/process-cluster.ts';
import { distArgs, run } from './support/processes.ts';

// Bounded before trusted (issue 37, item 1; docs/security.md): `/hooks/github/:org` takes no
// credentials, so anyone can send it 24 MiB bodies. The gateway, core and delivery run as processes with
// the heap settings of their Deployments (k8s/base), and the flood of the issue (8 concurrent 24 MiB
// deliveries, without a signature and then with bad ones) must keep each process's resident memory
// within its Deployment's limit, while a signed delivery still goes through afterwards.

const ROOT = path.resolve(import.meta.dirname, '..');
const MiB = 1024 * 1024;
/** The Deployments' memory limits (k8s/base/gateway.yaml, core.yaml). */
const LIMIT = { gateway: 256 * MiB, core: 384 * MiB };

let cluster: ProcessCluster;
let orgId: string;
let secret: string;

beforeAll(async () => {
  cluster = await startProcessCluster('flood', {
    perService: {
      gateway: { NODE_OPTIONS: '--max-old-space-size=192' },
      core: { NODE_OPTIONS: '--max-old-space-size=288' },
      delivery: { NODE_OPTIONS: '--max-old-space-size=288' },
    },
  });
  ({ orgId } = await cluster.newOrg('Flooded'));
  const { stdout } = await run(
    process.execPath,
    [...distArgs('core', 'admin-cli'), 'codehost', 'secret', '--org', orgId, '--provider', 'github'],
    { cwd: ROOT, env: { ...process.env, CLUSTER_ENV: 'development', DATABASE_URL: cluster.databaseUrl, LOG_LEVEL: 'silent' } },
  );
  secret = (JSON.parse(stdout) as { secret: string }).secret;
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
});

/** A process's resident memory now (VmRSS of /proc), in bytes. */
function rss(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Samples the peak resident memory of the gateway and the core while `run` runs. */
async function peakWhile(run: () => Promise<unknown>): Promise<{ gateway: number; core: number }> {
  const peak = { gateway: 0, core: 0 };
  const sample = () => {
    peak.gateway = Math.max(peak.gateway, rss(cluster.gateway.pid));
    peak.core = Math.max(peak.core, rss(cluster.core.pid));
  };
  sample();
  const timer = setInterval(sample, 20);
  try {
    await run();
    // What was read may be freed a little later: keep watching for a moment.
    for (let i = 0; i < 25; i++) {
      sample();
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    clearInterval(timer);
  }
  return peak;
}

/** POSTs `body` to the organization's hook; the status, or the socket error when the gateway cut the upload short. */
function post(body: Buffer, headers: Record<string, string>): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: cluster.gateway.port,
        path: `/hooks/github/${orgId}`,
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          'x-github-event': 'push',
          'x-github-delivery': randomUUID(),
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    req.end(body);
  });
}

/** A JSON body of `size` bytes (a push with a long field). */
function bigBody(size: number): Buffer {
  const head = '{"ref":"refs/heads/main","padding":"';
  const tail = '"}';
  const body = Buffer.alloc(size, 'a');
  body.write(head, 0);
  body.write(tail, size - tail.length);
  return body;
}

describe('the code-host hook under a flood of unsigned 24 MiB bodies', () => {
  const body = bigBody(24 * MiB);

  it('refuses a delivery without a signature before reading it: 8 concurrent ones keep memory within the limits', async () => {
    let answers: (number | string)[] = [];
    const peak = await peakWhile(async () => {
      answers = await Promise.all(Array.from({ length: 8 }, () => post(body, {})));
    });
    // Each is refused (401, or the connection closed with the upload unread), none served, none a 5xx.
    for (const a of answers) expect([401, 'EPIPE', 'ECONNRESET']).toContain(a);
    expect(peak.gateway, "the gateway's peak resident memory").toBeLessThan(LIMIT.gateway);
    expect(peak.core, "the core's peak resident memory").toBeLessThan(LIMIT.core);
  }, 120_000);

  it('bounds what is read of deliveries with bad signatures: 8 concurrent ones keep memory within the limits', async () => {
    let answers: (number | string)[] = [];
    const bad = `sha256=${'0'.repeat(64)}`;
    const peak = await peakWhile(async () => {
      answers = await Promise.all(Array.from({ length: 8 }, () => post(body, { 'x-hub-signature-256': bad })));
    });
    // Those admitted are read and refused by the core (401); the rest are refused before their body (429).
    for (const a of answers) expect([401, 429, 'EPIPE', 'ECONNRESET']).toContain(a);
    expect(answers.filter((a) => a === 401).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a !== 401).length).toBeGreaterThan(0);
    expect(peak.gateway, "the gateway's peak resident memory").toBeLessThan(LIMIT.gateway);
    expect(peak.core, "the core's peak resident memory").toBeLessThan(LIMIT.core);
  }, 120_000);

  it('still takes a signed delivery afterwards, and a large one within the limit', async () => {
    const ping = Buffer.from(JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 }));
    const sign = (b: Buffer) => `sha256=${createHmac('sha256', secret).update(b).digest('hex')}`;
    expect(await post(ping, { 'x-github-event': 'ping', 'x-hub-signature-256': sign(ping) })).toBe(200);
    // A signed 24 MiB body goes through the bounds (the core then refuses what the schema does not allow: 4xx, not 5xx).
    const large = await post(body, { 'x-hub-signature-256': sign(body) });
    expect(large).toBeGreaterThanOrEqual(200);
    expect(large).toBeLessThan(500);
    expect(large).not.toBe(429);
  }, 120_000);
});
