import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from './support/cluster.ts';

// What SREs were handed (dashboard, alerts, runbook) must name metrics the services really export:
// an alert on a misspelt metric never fires.
const ROOT = path.resolve(import.meta.dirname, '..');
let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster();
});
afterAll(async () => {
  await c?.stop();
});

/** Every series name the services export, from their /metrics TYPE lines (histograms with their suffixes). */
async function exportedNames(): Promise<Set<string>> {
  const names = new Set<string>();
  const ports = [c.ports.gatewayMetrics, c.ports.core, c.ports.delivery, c.ports.evidence];
  for (const port of ports) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const line of text.split('\n')) {
      const m = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (!m) continue;
      names.add(m[1]);
      if (m[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${m[1]}${s}`);
      if (m[2] === 'summary') for (const s of ['_sum', '_count']) names.add(`${m[1]}${s}`);
    }
  }
  return names;
}

/** Metric names (of the pattern's shape) mentioned in a file. */
function mentioned(file: string, pattern: RegExp): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...new Set([...text.matchAll(pattern)].map((m) => m[1]))];
}

describe('observability hand-over', () => {
  it('the dashboard, the alerts and the runbook name only metrics the services export', async () => {
    const exported = await exportedNames();
    // Our prefixed metrics, and the default Node metrics under their standard names.
    const inQueries = /\b((?:gateway|core|delivery|evidence|process|nodejs)_[a-z0-9_]+)\b/g;
    // Backticked names in docs (wildcards like `delivery_*` and bare prefixes aside).
    const backticked = /`((?:gateway|core|delivery|evidence)_[a-z0-9_]*[a-z0-9])(?:\{[^`]*\})?`/g;
    const referenced = {
      'k8s/base/dashboard.json': mentioned('k8s/base/dashboard.json', inQueries),
      'k8s/base/monitoring.yaml': mentioned('k8s/base/monitoring.yaml', inQueries),
      'k8s/tests/alerts.test.yaml': mentioned('k8s/tests/alerts.test.yaml', inQueries),
      'k8s/tests/slo.test.yaml': mentioned('k8s/tests/slo.test.yaml', inQueries),
      'docs/runbook.md': mentioned('docs/runbook.md', backticked),
      'docs/decisions-webhooks.md': mentioned('docs/decisions-webhooks.md', backticked),
    };
    for (const [file, names] of Object.entries(referenced)) {
      expect(names.length, `${file} names no metric`).toBeGreaterThan(0);
      expect(
        names.filter((n) => !exported.has(n)),
        `${file} names metrics no service exports`,
      ).toEqual([]);
    }
  });
});
