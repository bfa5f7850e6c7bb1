import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The repository documents itself: a clone made anywhere has every page its Markdown links to.
// Relative links must land inside the repository, on a file that exists.
const ROOT = path.resolve(import.meta.dirname, '..');
const pages = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);

describe('documentation links', () => {
  it('stay inside the repository and point at files that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(path.join(ROOT, page), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1].split('#')[0];
        if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // an anchor, or http(s):, mailto:
        const resolved = path.resolve(path.dirname(path.join(ROOT, page)), target);
        if (!resolved.startsWith(`${ROOT}${path.sep}`) || !existsSync(resolved)) broken.push(`${page}: ${m[1]}`);
      }
      for (const m of text.matchAll(/`(\.\.\/shared\/[^`]+)`/g)) broken.push(`${page}: ${m[1]} (outside the repository)`);
    }
    expect(pages.length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it('cited in source files are pages of the repository (no comment cites a document a clone does not have)', () => {
    const tracked = new Set(pages);
    const names = new Set(pages.map((p) => path.basename(p)));
    const sources = execFileSync(
      'git',
      ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mts', '*.mjs', '*.js'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter((f) => f && !f.includes('/gen/'));
    const missing: string[] = [];
    for (const file of sources)
      for (const [cited] of readFileSync(path.join(ROOT, file), 'utf8').matchAll(/[\w./-]+\.md\b/g)) {
        // A path from the root (docs/evidence.md) or from the file; a bare name (README.md) anywhere.
        const known = cited.includes('/')
          ? tracked.has(path.normalize(cited)) || tracked.has(path.relative(ROOT, path.resolve(ROOT, path.dirname(file), cited)))
          : names.has(cited);
        if (!known) missing.push(`${file}: ${cited}`);
      }
    expect(sources.length).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });
});
