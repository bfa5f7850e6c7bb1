import { execFile } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import examples from '@octokit/webhooks-examples';
import type { TestCluster } from './cluster.ts';
import { distArgs } from './processes.ts';

// GitHub deliveries for the code-host tests (docs/codehost.md): GitHub's own example payloads
// (@octokit/webhooks-examples), an organization's secret from the admin CLI, and signed POSTs.

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

export type Payload = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A copy of GitHub's example of `event` (the first one `pick` accepts), to adapt to the scenario. */
export function githubExample(event: string, pick: (p: Payload) => boolean = () => true): Payload {
  const found = (examples as unknown as { name: string; examples: Payload[] }[])
    .find((e) => e.name === event)
    ?.examples.find(pick);
  if (!found) throw new Error(`no GitHub example of ${event}`);
  return structuredClone(found);
}

/** `admin codehost secret`: creates (or rotates) the organization's GitHub secret and returns it. */
export async function codehostSecret(c: TestCluster, orgId: string): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [...distArgs('core', 'admin-cli'), 'codehost', 'secret', '--org', orgId, '--provider', 'github'],
    { cwd: ROOT, env: { ...process.env, DATABASE_URL: c.databaseUrl, LOG_LEVEL: 'silent' } },
  );
  return (JSON.parse(stdout) as { secret: string }).secret;
}

/** GitHub's X-Hub-Signature-256 of exactly these bytes. */
export function githubSignature(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** POSTs `body` (bytes sent as they are) to an organization's hook URL; the answer's status and text. */
export async function postHook(
  c: TestCluster,
  orgId: string,
  event: string,
  body: string | Uint8Array,
  headers: { signature: string; deliveryId?: string },
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${c.baseUrl.replace('/api/v1', '')}/hooks/github/${orgId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/test',
      'x-github-event': event,
      'x-github-delivery': headers.deliveryId ?? randomUUID(),
      'x-hub-signature-256': headers.signature,
    },
    // A copy with its own ArrayBuffer, the type fetch takes: the same bytes.
    body: typeof body === 'string' ? body : new Uint8Array(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, text: await res.text() };
}
