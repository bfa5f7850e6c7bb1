import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { oauthTokenProvider } from './index.ts';

// The OAUTHBEARER token is read again at every login, never cached: what lets a sidecar that keeps
// a short-lived token fresh in a shared file (an MSK IAM token lives 15 minutes) carry the services'
// Kafka logins (k8s/components/kafka-token-sidecar; docs/deploy.md, "Managed Kafka and Postgres").
const dir = mkdtempSync(path.join(tmpdir(), 'oauth-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('oauthTokenProvider', () => {
  it('reads the token file at each call, so a refreshed token is used at the next login', async () => {
    const file = path.join(dir, 'token');
    const token = oauthTokenProvider({ tokenFile: file });
    writeFileSync(file, 'first-token\n');
    expect(await token()).toBe('first-token');
    writeFileSync(file, 'second-token');
    expect(await token()).toBe('second-token');
  });

  it('runs the command at each call and takes its trimmed standard output', async () => {
    const file = path.join(dir, 'counter');
    writeFileSync(file, '');
    const token = oauthTokenProvider({
      tokenCommand: `echo x >> ${file}; printf 'token-%s\\n' "$(wc -l < ${file} | tr -d ' ')"`,
    });
    expect(await token()).toBe('token-1');
    expect(await token()).toBe('token-2');
  });

  it('refuses an empty token, naming where it came from', async () => {
    const file = path.join(dir, 'empty');
    writeFileSync(file, '\n');
    await expect(oauthTokenProvider({ tokenFile: file })()).rejects.toThrow(`the OAuth token file ${file} gave no token`);
  });
});
