// `npm run lint`: ESLint (typescript-eslint with type information), the Prettier
// check and `buf lint` on proto/. Runs all three, then names the ones that failed;
// exits 1 if any did. `npm test` runs it after the type-check.
import { spawnSync } from 'node:child_process';
import { ROOT } from './lib/bootstrap.mjs';

const STEPS = [
  { name: 'eslint', args: ['eslint', '.'] },
  { name: 'prettier', args: ['prettier', '--check', '--log-level=warn', '.'], hint: 'npm run format' },
  { name: 'buf lint', args: ['buf', 'lint'] },
];

const failed = [];
for (const step of STEPS) {
  process.stderr.write(`[lint] ${step.name}\n`);
  const res = spawnSync('npx', ['--no-install', ...step.args], { cwd: ROOT, stdio: 'inherit' });
  if (res.status !== 0) failed.push(step.hint ? `${step.name} (fix with \`${step.hint}\`)` : step.name);
}
if (failed.length) {
  process.stderr.write(`[lint] FAILED: ${failed.join(', ')}\n`);
  process.exit(1);
}
process.stderr.write('[lint] eslint, prettier and buf lint: clean\n');
