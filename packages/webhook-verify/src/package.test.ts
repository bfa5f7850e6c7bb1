import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The package as npm would publish it: `npm pack` of the dist scripts/build.mjs built (the test run's
// global setup; --ignore-scripts, so prepack does not rewrite dist under other tests), unpacked
// into a fresh node_modules, imported by plain Node from outside the repository.

const root = path.resolve(import.meta.dirname, '..');
const work = mkdtempSync(path.join(tmpdir(), 'webhook-verify-pack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the published package', () => {
  it('packs dist (ESM and .d.ts), src and the README, no tests; has no dependencies; imports from a clean directory', () => {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { filename: string; files: { path: string }[] }[];
    const files = packed.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'src/verify.ts']),
    );
    expect(files.filter((f) => f.includes('.test.') || f.includes('sources-sha256'))).toEqual([]);

    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.private).toBeUndefined();

    const target = path.join(work, 'app', 'node_modules', '@cluster', 'webhook-verify');
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(work, packed.filename), '-C', target, '--strip-components=1']);
    expect(existsSync(path.join(target, 'dist', 'verify.d.ts'))).toBe(true);
    const script = `import { sign, verify } from '@cluster/webhook-verify';
      const s = 'whsec_' + Buffer.alloc(24, 1).toString('base64');
      const h = sign('{"ok":true}', s, { id: 'p1' });
      console.log(JSON.stringify(verify('{"ok":true}', h, s).payload));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: path.join(work, 'app'),
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('{"ok":true}');
  });
});
