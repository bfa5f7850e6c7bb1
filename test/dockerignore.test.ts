import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerContextFiles } from './support/dockerfile.ts';
import { run } from './support/processes.ts';

// `docker build -f k8s/Dockerfile .` sends the whole checkout as its context, git-ignored files
// included, and the build stage's `COPY . .` keeps it in a layer: a secret left in the checkout
// would ship in the image. .dockerignore must exclude every file that may hold one.
const ROOT = path.resolve(import.meta.dirname, '..');

/** A file that holds, or may hold, a secret (or local state) and must never be in the context. */
function secretLike(file: string): boolean {
  return (
    /^k8s\/overlays\/[^/]+\/(secrets\/|secrets\.env$|signing-keys\.env$)/.test(file) ||
    /^\.(data|cache)\//.test(file) ||
    /(^|\/)\.env(\..*)?$/.test(file) ||
    /\.(env|pem|key)$/.test(file)
  );
}

let work: string | undefined;
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the image build context (.dockerignore)', () => {
  it('leaves out every generated secret file, even where a checkout has them', async () => {
    // The tracked files (empty) and .dockerignore, plus what a working checkout also holds: both
    // overlays' Secrets as scripts/k8s-secrets.mjs writes them, the files of the layout before one
    // Secret per service, a local database and cache, a developer's .env.
    work = mkdtempSync(path.join(tmpdir(), 'context-'));
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
    for (const file of tracked) {
      mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
      writeFileSync(path.join(work, file), '');
    }
    copyFileSync(path.join(ROOT, '.dockerignore'), path.join(work, '.dockerignore'));
    for (const overlay of ['dev', 'prod'])
      await run(process.execPath, [path.join(ROOT, 'scripts/k8s-secrets.mjs'), path.join(work, 'k8s/overlays', overlay)]);
    const planted = [
      'k8s/overlays/dev/secrets.env',
      'k8s/overlays/dev/signing-keys.env',
      'k8s/overlays/prod/secrets.env',
      'k8s/overlays/prod/signing-keys.env',
      '.data/postgres/PG_VERSION',
      '.cache/tool/state.json',
      '.env',
      'services/core/.env.local',
      'test/fixtures-ca/server.key',
    ];
    for (const file of planted) {
      mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
      writeFileSync(path.join(work, file), 'SECRET=1\n');
    }

    const context = dockerContextFiles(work);
    expect(context.filter(secretLike)).toEqual([]);
    // The rules leave the sources in: the build needs them.
    for (const file of ['package.json', 'package-lock.json', 'services/core/src/main.ts', 'k8s/Dockerfile'])
      expect(context, file).toContain(file);
    expect(context.length).toBeGreaterThan(tracked.length / 2);
  });

  it('holds no secret file in this checkout either', () => {
    expect(dockerContextFiles(ROOT).filter(secretLike)).toEqual([]);
  });
});
