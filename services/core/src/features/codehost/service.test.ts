import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, TEST_ORG, reasonOf } from '../../shared/test-kit.ts';
import { codehostSecretBox } from './box.ts';
import { entryNumbersIn, stageOfEnvironment } from './github.ts';
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
  const deliver = async (event: string, payload: unknown, over: Partial<CodeHostDelivery> = {}) => {
    const text = JSON.stringify(payload);
    return service.receive({
      organizationId: org,
      provider: 'github',
      event,
      deliveryId: randomUUID(),
      signature: await sign(secret, text),
      body: Buffer.from(text),
      ...over,
    });
  };
  const eventNames = () => stores.written.flatMap((w) => w.events.map((e) => e.eventName));
  return { stores, service, org, secret, deliver, eventNames };
}

const push = (message: string, sha = 'a1') => ({
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
    expect(await deliver('push', push('E-1 again'))).toMatchObject({ outcome: 'processed', events: 0 });
    expect(eventNames()).toEqual(['commit.linked', 'commit.linked']);
  });

  it('moves deploymentStage forward only, and only on success', async () => {
    const { deliver, stores, eventNames } = await setup();
    await deliver('push', push('E-1', 'abc'));
    const deploy = (environment: string, state = 'success') =>
      deliver('deployment_status', {
        repository: { full_name: REPO },
        deployment: { sha: 'abc', environment },
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
    expect(await deliver('push', push('Fix\u0000 E-1', 'a\u0000b'))).toMatchObject({ outcome: 'processed', events: 1 });
    expect(stores.codehost.commits.map((c) => [c.sha, c.message])).toEqual([['ab', 'Fix E-1']]);
  });

  it('ignores an unused event and an unlinked repository; refuses an unknown event and a missing field', async () => {
    const { deliver } = await setup();
    expect(await deliver('star', {})).toMatchObject({ outcome: 'ignored', reason: 'the star event is not used' });
    expect(await deliver('push', { ...push('E-1'), repository: { full_name: 'x/y' } })).toMatchObject({ outcome: 'ignored' });
    expect(await reasonOf(deliver('nonsense', {}))).toBe('validation_error');
    expect(await reasonOf(deliver('push', { commits: [] }))).toBe('validation_error');
  });
});
