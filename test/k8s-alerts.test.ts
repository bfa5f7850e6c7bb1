import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { run } from './support/processes.ts';

// The alerts and the dashboard as Prometheus and Grafana read them: promtool parses every
// expression and runs the rule unit tests (k8s/tests/*.test.yaml, each file on its own: the SLO
// burn-rate tests run for simulated hours); each alert's runbook_url
// names a drill that exists. (test/observability.test.ts checks the metric names against a
// live scrape.) promtool comes from the Debian package `prometheus` (README, prerequisites).
const ROOT = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  annotations?: Record<string, string>;
}
/**
 * Every rule group Prometheus loads: the base's PrometheusRule and those of the recipes in
 * k8s/components (the edge's), as a namespace that includes them all has them.
 */
const ruleFiles = [
  'k8s/base/monitoring.yaml',
  ...readdirSync(path.join(ROOT, 'k8s/components'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => `k8s/components/${f}`),
];
const groups: { name: string; rules: Rule[] }[] = ruleFiles.flatMap((file) =>
  parseAllDocuments(read(file))
    .map((d) => d.toJSON())
    .filter((o) => o?.kind === 'PrometheusRule')
    .flatMap((o) => o.spec.groups),
);
const rules: Rule[] = groups.flatMap((g) => g.rules);
/** The names of the recorded series. */
const records = new Set(rules.filter((r) => r.record).map((r) => r.record!));
/** The rules as a Prometheus rule file. */
const rulesFile = () => stringify({ groups });
const dashboard = JSON.parse(read('k8s/base/dashboard.json'));

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'alerts-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs promtool in the work directory; its output when it fails. */
async function promtool(...args: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    return { ok: true, output: (await run('promtool', args, { cwd: work, encoding: 'utf8' })).stdout };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? e.message}` };
  }
}

/** GitHub's anchor of a Markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The rule unit test files. */
const testFiles = readdirSync(path.join(ROOT, 'k8s/tests')).filter((f) => f.endsWith('.test.yaml'));

describe('alert rules', () => {
  it('parse', async () => {
    expect(groups.map((g) => g.name)).toContain('feedback-api-edge');
    writeFileSync(path.join(work, 'rules.yaml'), rulesFile());
    const check = await promtool('check', 'rules', 'rules.yaml');
    expect(check.ok, check.output).toBe(true);
  });

  // The budget tests evaluate 30-day windows: tens of seconds of promtool, more with the other core busy.
  it.each(testFiles)(
    'pass their unit tests in %s',
    async (file) => {
      writeFileSync(path.join(work, 'rules.yaml'), rulesFile());
      copyFileSync(path.join(ROOT, 'k8s/tests', file), path.join(work, file));
      const tests = await promtool('test', 'rules', file);
      expect(tests.ok, tests.output).toBe(true);
    },
    300_000,
  );

  it('each have a unit test that makes them fire', () => {
    const tested = new Set(
      testFiles.flatMap((file) =>
        parse(read(`k8s/tests/${file}`)).tests.flatMap(
          (t: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }) =>
            (t.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname),
        ),
      ),
    );
    const untested = rules.filter((r) => r.alert && !tested.has(r.alert)).map((r) => r.alert);
    expect(untested).toEqual([]);
  });

  it('carry their namespace, as each unit test expects', () => {
    // A dev namespace's failure must not page as if it were prod: every alert keeps `namespace`.
    const expected = testFiles.flatMap((file) =>
      parse(read(`k8s/tests/${file}`)).tests.flatMap(
        (t: { alert_rule_test?: { alertname: string; exp_alerts: { exp_labels?: Record<string, string> }[] }[] }) =>
          (t.alert_rule_test ?? []).flatMap((a) => a.exp_alerts.map((e) => ({ alert: a.alertname, labels: e.exp_labels ?? {} }))),
      ),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.filter((e) => !e.labels.namespace).map((e) => e.alert)).toEqual([]);
  });

  it('point at a drill of docs/runbook.md that exists', () => {
    const anchors = new Set(
      read('docs/runbook.md')
        .split('\n')
        .filter((l) => /^#{1,6} /.test(l))
        .map((l) => anchorOf(l.replace(/^#+ /, ''))),
    );
    for (const r of rules.filter((x) => x.alert)) {
      const url = r.annotations?.runbook_url ?? '';
      expect(url, r.alert).toMatch(/^https:\/\/.+\/docs\/runbook\.md#[a-z0-9-]+$/);
      expect(anchors.has(url.split('#')[1]), `${r.alert}: ${url}`).toBe(true);
    }
  });
});

describe('the dashboard', () => {
  // Rows (type "row") only group the panels under them: no data source, no query.
  const panels: {
    type: string;
    title: string;
    datasource: { uid: string };
    fieldConfig: { defaults: { unit?: string } };
    targets: { expr: string }[];
  }[] = dashboard.panels.filter((p: { type: string }) => p.type !== 'row');

  it('chooses its data source, namespace and pod by variables', () => {
    expect(dashboard.templating.list.map((v: { name: string; type: string }) => `${v.name}:${v.type}`)).toEqual([
      'datasource:datasource',
      'namespace:query',
      'pod:query',
    ]);
    for (const p of panels) {
      expect(p.datasource.uid, p.title).toBe('${datasource}');
      expect(p.fieldConfig.defaults.unit, p.title).toBeTruthy();
      for (const t of p.targets) {
        // A recorded SLO series (per cluster and namespace) has no pod to choose.
        const recorded = /^[^{]*\bslo:[a-z_]+:[a-z_0-9]+\{namespace=~"\$namespace"\}/.test(t.expr.replace(/^1 - max\(/, ''));
        if (recorded) expect(records.has(/slo:[a-z_]+:[a-z_0-9]+/.exec(t.expr)![0]), `${p.title}: ${t.expr}`).toBe(true);
        else expect(t.expr, p.title).toContain('namespace=~"$namespace", pod=~"$pod"');
      }
    }
  });

  it('reads its 30-day budgets from recording rules, not a month of raw samples per refresh', () => {
    const exprs = panels.flatMap((p) => p.targets.map((t) => t.expr));
    expect(exprs.filter((e) => /\[30d\]/.test(e))).toEqual([]);
    expect(exprs.filter((e) => e.includes('error_ratio_rate30d')).length).toBe(3);
  });

  it('has queries Prometheus parses', async () => {
    // The variables as Grafana substitutes them with "All" selected.
    const exprs = panels.flatMap((p) => p.targets.map((t) => t.expr.replaceAll('$namespace', '.*').replaceAll('$pod', '.*')));
    const asRules = exprs.map((expr, i) => ({ record: `dashboard:panel_${i}`, expr }));
    writeFileSync(path.join(work, 'dashboard-rules.yaml'), stringify({ groups: [{ name: 'dashboard', rules: asRules }] }));
    const check = await promtool('check', 'rules', 'dashboard-rules.yaml');
    expect(check.ok, check.output).toBe(true);
    expect(exprs.length).toBeGreaterThan(10);
  });
});
