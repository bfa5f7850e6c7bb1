import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/**
 * The documented verifier (`node scripts/verify-evidence.mjs`, docs/evidence.md) with `args`, the
 * package file `input` on its standard input, as an auditor runs it: its exit code, standard output
 * and standard error (trimmed).
 */
export async function runVerifier(args: string[], input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      'sh',
      ['-c', `node scripts/verify-evidence.mjs ${args.map((a) => `'${a}'`).join(' ')} < '${input}'`],
      { cwd: ROOT },
    );
    return { code: 0, stdout: stdout.trim(), stderr: stderr.trim() };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout.trim(), stderr: e.stderr.trim() };
  }
}
