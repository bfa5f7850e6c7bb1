import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// A fake store stands in for a real one only as far as a contract test holds both to the same cases
// (docs/architecture.md): every `fake-<x>.ts` of a service has `<x>.contract.test.ts` beside it, or,
// for the core's plain stores, a row of the shared table (services/core/src/shared/crud-stores.contract.test.ts).
const ROOT = path.resolve(import.meta.dirname, '..');
const SHARED_TABLE = readFileSync(path.join(ROOT, 'services/core/src/shared/crud-stores.contract.test.ts'), 'utf8');

/** Every fake store of every service: its file, relative to the repository. */
function fakes(): string[] {
  const found: string[] = [];
  for (const service of readdirSync(path.join(ROOT, 'services'))) {
    const features = path.join(ROOT, 'services', service, 'src', 'features');
    if (!existsSync(features)) continue;
    for (const feature of readdirSync(features))
      for (const file of readdirSync(path.join(features, feature)))
        if (/^fake-.+\.ts$/.test(file)) found.push(path.join('services', service, 'src', 'features', feature, file));
  }
  return found;
}

describe('the contract of every fake store', () => {
  it('is tested: a contract test beside it, or a row of the core’s shared table', () => {
    const all = fakes();
    const untested = all.filter((fake) => {
      const real = fake.replace(/fake-(.+)\.ts$/, '$1.ts');
      if (existsSync(path.join(ROOT, real.replace(/\.ts$/, '.contract.test.ts')))) return false;
      const stores = [...readFileSync(path.join(ROOT, real), 'utf8').matchAll(/^export interface (\w+Store)\b/gm)].map(
        (m) => m[1],
      );
      return stores.length === 0 || stores.some((store) => !new RegExp(`^  ${store}: async`, 'm').test(SHARED_TABLE));
    });
    expect(all.length).toBeGreaterThan(20);
    expect(untested).toEqual([]);
  });
});
