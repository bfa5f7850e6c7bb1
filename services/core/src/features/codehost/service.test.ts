import { createHmac, randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { entryNumbersIn } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, TEST_ORG, reasonOf } from '../../shared/test-kit.ts';
import { codehostSecretBox } from './box.ts';
import { stageOfEnvironment } from './github.ts';
import { createCodeHostService, type CodeHostDelivery } from './service.ts';

describe('entry references', () => {
  it('are E-<number>, any case, on word boundaries, each once, ascending', () => {
    expect(entryNumbersIn('Fix E-12 and e-3; E-12 again', 'body: (E-7).')).toEqual([3, 7, 12]);
    expect(entryNumbersIn('XE-1 E-1x E-0 E- #4 E_5 E-2.', null, undefined)).toEqual([2]);
  });
});

describe('deployment environments', () => {
  it('map to a stage by a word of their name; production wins; others name none', () => {
    expect(
      ['Production', 'prod-eu', 'live', 'staging', 'pre_prod', 'uat', 'qa', 'review/pr-12', 'github-pages', 'prod-preview'].map(
        stageOfEnvironment,
      ),
    ).toEqual([
      'production',
      'production',
      'production',
      'staging',
      'staging',
      'staging',
      'testing',
      'testing',
      null,
      'production',
    ]);
  });
});

const PROJECT = '00000000-0000-4000-8000-0000000000aa';
const REPO = 'octo/app';

async function setup() {
  const stores = createFakeStores();
  const box = codehostSecretBox(['unit-test-key-material']);
  const service = createCodeHostService(stores, box);
  await stores.organizations.insert('Acme');
  const org = stores.organizations.rows[0].id;
  stores.entries.rows.push(
    { id: 'e1', entryNumber: 1, projectId: PROJECT, organizationId: org, title: 'one', deploymentStage: null } as never,
    { id: 'e2', entryNumber: 2, projectId: PROJECT, organizationId: org, title: 'two', deploymentStage: null } as never,
  );
  await stores.integrationLinks.insertExternalLink({
    organizationId: org,
    projectId: PROJECT,
    ref: { provider: 'github', externalType: 'repository', externalId: REPO },
    alignEntityType: 'project',
    alignEntityId: PROJECT,
  });
  const { secret } = await service.rotateSecret(org, 'github');
  /** Delivers `text` as the body, signed with the organization's secret. */
  const deliverText = async (event: string, text: string, over: Partial<CodeHostDelivery> = {}) =>
    service.receive({
      organizationId: org,
      provider: 'github',
      event,
      deliveryId: randomUUID(),
      signature: await sign(secret, text),
      body: Buffer.from(text),
      ...over,
    });
  const deliver = (event: string, payload: unknown, over: Partial<CodeHostDelivery> = {}) =>
    deliverText(event, JSON.stringify(payload), over);
  const eventNames = () => stores.written.flatMap((w) => w.events.map((e) => e.eventName));
  return { stores, service, org, secret, deliver, deliverText, eventNames };
}

const SHA = 'a1'.repeat(20);
const push = (message: string, sha = SHA) => ({
  repository: { full_name: 'Octo/App' },
  commits: [{ id: sha, message, url: null, timestamp: '2026-11-01T00:00:00Z', author: { name: 'Ada' } }],
});

describe('a delivery (fake stores)', () => {
  it('is refused without a valid signature, before anything is read', async () => {
    const { deliver, stores, secret } = await setup();
    expect(await reasonOf(deliver('push', push('E-1'), { signature: '' }))).toBe('unauthorized');
    expect(await reasonOf(deliver('push', push('E-1'), { signature: await sign(`${secret}x`, '{}') }))).toBe('unauthorized');
    expect(await reasonOf(deliver('push', push('E-1'), { organizationId: OTHER_ORG }))).toBe('unauthorized');
    expect(await reasonOf(deliver('push', push('E-1'), { organizationId: TEST_ORG }))).toBe('unauthorized');
    expect(stores.written.filter((w) => w.events.length)).toEqual([]);
  });

  it('links a commit once, and a redelivered id is a duplicate', async () => {
    const { deliver, eventNames } = await setup();
    const deliveryId = randomUUID();
    expect(await deliver('push', push('E-1 and E-2 and E-3'), { deliveryId })).toEqual({
      outcome: 'processed',
      reason: '',
      events: 2,
    });
    expect(await deliver('push', push('E-1 and E-2 and E-3'), { deliveryId })).toMatchObject({ outcome: 'duplicate' });
    // The same signed body under a new delivery id (which GitHub does not sign) is a duplicate too.
    expect(await deliver('push', push('E-1 and E-2 and E-3'))).toMatchObject({ outcome: 'duplicate' });
    expect(await deliver('push', push('E-1 again'))).toMatchObject({ outcome: 'processed', events: 0 });
    expect(eventNames()).toEqual(['commit.linked', 'commit.linked']);
  });

  it('moves deploymentStage forward only, and only on success', async () => {
    const { deliver, stores, eventNames } = await setup();
    await deliver('push', push('E-1'));
    const deploy = (environment: string, state = 'success') =>
      deliver('deployment_status', {
        repository: { full_name: REPO },
        deployment: { sha: SHA, environment },
        deployment_status: { state, environment },
      });
    await deploy('production', 'failure');
    expect(stores.entries.rows[0].deploymentStage).toBeNull();
    await deploy('staging');
    await deploy('qa');
    await deploy('production');
    expect(stores.entries.rows[0].deploymentStage).toBe('production');
    expect(eventNames().filter((n) => n === 'entry.updated')).toHaveLength(2);
  });

  it('stores no NUL character (Postgres text cannot hold one), wherever a payload puts it', async () => {
    const { deliver, stores } = await setup();
    expect(await deliver('push', push('Fix\u0000 E-1'))).toMatchObject({ outcome: 'processed', events: 1 });
    expect(stores.codehost.commits.map((c) => [c.sha, c.message])).toEqual([[SHA, 'Fix E-1']]);
    // A sha is 40 (or 64) hex digits: one with a NUL is no sha.
    expect(await reasonOf(deliver('push', push('E-1', `${SHA.slice(1)}\u0000`)))).toBe('validation_error');
  });

  it('ignores an unused event and an unlinked repository; refuses an unknown event and a missing field', async () => {
    const { deliver } = await setup();
    expect(await deliver('star', {})).toMatchObject({ outcome: 'ignored', reason: 'the star event is not used' });
    expect(await deliver('push', { ...push('E-1'), repository: { full_name: 'x/y' } })).toMatchObject({ outcome: 'ignored' });
    expect(await reasonOf(deliver('nonsense', {}))).toBe('validation_error');
    expect(await reasonOf(deliver('push', { commits: [] }))).toBe('validation_error');
  });
});

describe('the signature', () => {
  const hmac = (secret: string, bytes: Uint8Array) => `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

  it('is over the exact body bytes: bytes that are not UTF-8 verify only when signed as they are, then are a 400', async () => {
    const { service, org, secret } = await setup();
    const bytes = Buffer.concat([Buffer.from('{"zen":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const receive = (signature: string) =>
      service.receive({
        organizationId: org,
        provider: 'github',
        event: 'ping',
        deliveryId: randomUUID(),
        signature,
        body: bytes,
      });
    // Signed over the text a UTF-8 decoder makes of them (U+FFFD for each bad byte): refused.
    expect(await reasonOf(receive(hmac(secret, Buffer.from(bytes.toString('utf8')))))).toBe('unauthorized');
    expect(await reasonOf(receive(hmac(secret, bytes)))).toBe('validation_error');
  });

  it('accepts a body with a byte-order mark, signed with it; not one signed without it', async () => {
    const { service, org, secret } = await setup();
    const json = Buffer.from('{"zen":"Keep it logically awesome."}');
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]);
    const receive = (signature: string) =>
      service.receive({
        organizationId: org,
        provider: 'github',
        event: 'ping',
        deliveryId: randomUUID(),
        signature,
        body: bytes,
      });
    expect(await reasonOf(receive(hmac(secret, json)))).toBe('unauthorized');
    expect(await receive(hmac(secret, bytes))).toMatchObject({ outcome: 'pong' });
    // Upper-case hex is the same signature; a truncated one is not.
    expect(await receive(hmac(secret, bytes).toUpperCase().replace('SHA256=', 'sha256='))).toMatchObject({ outcome: 'pong' });
    expect(await reasonOf(receive(hmac(secret, bytes).slice(0, -2)))).toBe('unauthorized');
  });
});

describe('order (fake stores)', () => {
  const checkRun = (status: string, conclusion: string | null, completedAt: string | null, id = 7) => ({
    action: status === 'completed' ? 'completed' : 'created',
    repository: { full_name: REPO },
    check_run: {
      id,
      name: 'lint',
      head_sha: SHA,
      status,
      conclusion,
      started_at: '2026-11-01T10:00:00Z',
      completed_at: completedAt,
    },
  });

  it('a CI run moves only forward by its payloads’ times: an earlier success after a later failure changes nothing', async () => {
    const { deliver, stores, eventNames } = await setup();
    await deliver('push', push('E-1'));
    expect(await deliver('check_run', checkRun('completed', 'failure', '2026-11-01T10:05:00Z'))).toMatchObject({ events: 1 });
    expect(await deliver('check_run', checkRun('completed', 'success', '2026-11-01T10:02:00Z'))).toMatchObject({ events: 0 });
    expect(await deliver('check_run', checkRun('in_progress', null, null))).toMatchObject({ events: 0 });
    const evidence = await stores.codehost.evidenceOf(stores.organizations.rows[0].id, ['e1']);
    expect(evidence.ciRuns.map((r) => [r.status, r.conclusion])).toEqual([['completed', 'failure']]);
    expect(eventNames().filter((n) => n === 'ci.run.attributed')).toHaveLength(1);
  });

  it('a workflow run: a higher run_attempt wins whatever its time; within an attempt, updated_at', async () => {
    const { deliver, stores } = await setup();
    await deliver('push', push('E-1'));
    const run = (attempt: number, updatedAt: string, conclusion: string) =>
      deliver('workflow_run', {
        action: 'completed',
        repository: { full_name: REPO },
        workflow_run: {
          id: 9,
          name: 'CI',
          head_sha: SHA,
          status: 'completed',
          conclusion,
          run_attempt: attempt,
          updated_at: updatedAt,
        },
      });
    expect(await run(1, '2026-11-01T10:00:00Z', 'failure')).toMatchObject({ events: 1 });
    expect(await run(2, '2026-11-01T09:00:00Z', 'success')).toMatchObject({ events: 1 });
    expect(await run(1, '2026-11-01T11:00:00Z', 'failure')).toMatchObject({ events: 0 });
    const evidence = await stores.codehost.evidenceOf(stores.organizations.rows[0].id, ['e1']);
    expect(evidence.ciRuns.map((r) => r.conclusion)).toEqual(['success']);
  });

  it('a pull request moves only forward by updated_at: a late "reopened" after a newer "closed" emits nothing', async () => {
    const { deliver, stores, eventNames } = await setup();
    const pr = (action: string, state: string, updatedAt: string) =>
      deliver('pull_request', {
        action,
        repository: { full_name: REPO },
        pull_request: { number: 3, state, title: 'Fix E-1', updated_at: updatedAt, head: { sha: SHA } },
      });
    await pr('opened', 'open', '2026-11-01T10:00:00Z');
    await pr('closed', 'closed', '2026-11-01T10:10:00Z');
    expect(await pr('reopened', 'open', '2026-11-01T10:05:00Z')).toMatchObject({ outcome: 'processed', events: 0 });
    const evidence = await stores.codehost.evidenceOf(stores.organizations.rows[0].id, ['e1']);
    expect(evidence.pullRequests.map((p) => p.state)).toEqual(['closed']);
    expect(await pr('reopened', 'open', '2026-11-01T10:20:00Z')).toMatchObject({ events: 1 });
    expect(eventNames()).toEqual(['commit.linked', 'pr.reopened']);
  });
});

describe('hostile signed payloads (fake stores)', () => {
  const prWith = (pullRequest: Record<string, unknown>) => ({
    action: 'opened',
    repository: { full_name: REPO },
    pull_request: { number: 1, state: 'open', title: 'E-1', updated_at: '2026-11-01T10:00:00Z', ...pullRequest },
  });

  it.each([
    ['a number past int4', prWith({ number: 2 ** 31 }), '/pull_request/number'],
    ['a number past safe integers', prWith({ number: 2 ** 53 + 2 }), '/pull_request/number'],
    ['year 0', prWith({ updated_at: '0000-01-01T00:00:00Z' }), '/pull_request/updated_at'],
    ['year +275760', prWith({ updated_at: '+275760-09-13T00:00:00Z' }), '/pull_request/updated_at'],
    ['a leap second JavaScript cannot parse', prWith({ merged_at: '2026-12-31T23:59:60Z' }), '/pull_request/merged_at'],
    ['a 6,000-character sha', prWith({ head: { sha: 'a'.repeat(6000) } }), '/pull_request/head/sha'],
    ['a missing updated_at', prWith({ updated_at: undefined }), '/pull_request/updated_at'],
    ['a wrong type', prWith({ title: ['E-1'] }), '/pull_request/title'],
  ])('%s is a 400 naming the field', async (_name, payload, path) => {
    const { deliver } = await setup();
    const err = await deliver('pull_request', payload).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'validation_error' });
    expect(JSON.stringify(err)).toContain(path);
  });

  it('a payload nested deeper than GitHub nests is a 400', async () => {
    const { deliverText } = await setup();
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const text = JSON.stringify(push('E-1')).replace(/}$/, `,"extra":${deep}}`);
    expect(await reasonOf(deliverText('push', text))).toBe('validation_error');
  });
});
