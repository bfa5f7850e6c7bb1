import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import type { Json } from './support/json.ts';

/**
 * No existence oracle across tenants (issue 18, item 3): with A's key, a reference to
 * one of organization B's records answers exactly as a random id does (same status,
 * same body), for every reference field of every write; and A's key on B's project or
 * record answers 404 whatever the body references. The order of checks behind it is
 * in docs/decisions.md ("Tenant isolation").
 */

let c: TestCluster;
let a: SeededOrg;
let b: SeededOrg;

/** A's records, and B's (the ids A's key must learn nothing about). */
const mine = { entryId: '', releaseId: '', timeEntryId: '', linkId: '', userId: '' };
const theirs = {
  projectId: '',
  entryId: '',
  releaseId: '',
  userId: '',
  timeEntryId: '',
  commentId: '',
  attachmentId: '',
  linkId: '',
  wikiPageId: '',
  memberId: '',
  webhookId: '',
};

/** What a client sees of an answer. */
interface Answer {
  status: number;
  body: Json;
}

/** A call with A's key. */
async function asA(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await c.api(a.key, method, path, body);
  return { status: res.status, body: res.body };
}

/** A call with B's key that must succeed; its body. */
async function asB(method: string, path: string, body: unknown): Promise<Record<string, Json>> {
  const res = await c.api(b.key, method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

const today = '2026-03-05';
const entryBody = { type: 'bug_report', title: 'Probe', description: 'd' };
const timeBody = () => ({ userId: mine.userId, workDate: today, minutes: 30 });
const syncBody = () => ({ ...timeBody(), projectId: a.projectId, externalSystem: 'toggl', externalId: `probe-${randomUUID()}` });
const linkBody = (alignEntityType: string, alignEntityId: string) => ({
  provider: 'github',
  externalType: 'issue',
  externalId: `probe-${randomUUID()}`,
  alignEntityType,
  alignEntityId,
});

beforeAll(async () => {
  c = await startTestCluster();
  a = await c.seedOrg('Org A');
  b = await c.seedOrg('Org B');
  mine.userId = a.adminId;
  mine.entryId = (await c.api(a.key, 'POST', `/projects/${a.projectId}/entries`, entryBody)).body.id;
  const release = { name: 'R', startDate: '2026-05-01T00:00:00Z', endDate: '2026-06-01T00:00:00Z' };
  mine.releaseId = (await c.api(a.key, 'POST', `/projects/${a.projectId}/releases`, release)).body.id;
  mine.timeEntryId = (await c.api(a.key, 'POST', `/projects/${a.projectId}/time-entries`, timeBody())).body.id;
  mine.linkId = (await c.api(a.key, 'POST', '/integration-links', linkBody('entry', mine.entryId))).body.id;

  theirs.projectId = b.projectId;
  theirs.userId = b.adminId;
  theirs.entryId = (await asB('POST', `/projects/${b.projectId}/entries`, entryBody)).id;
  theirs.releaseId = (await asB('POST', `/projects/${b.projectId}/releases`, release)).id;
  const timeEntry = { userId: b.adminId, workDate: today, minutes: 15, entryId: theirs.entryId, releaseId: theirs.releaseId };
  theirs.timeEntryId = (await asB('POST', `/projects/${b.projectId}/time-entries`, timeEntry)).id;
  theirs.commentId = (await asB('POST', `/entries/${theirs.entryId}/comments`, { content: 'theirs' })).id;
  const file = { fileName: 'f.txt', fileSize: '3', fileType: 'text/plain', objectPath: 'b/f.txt' };
  theirs.attachmentId = (await asB('POST', `/entries/${theirs.entryId}/attachments`, file)).id;
  theirs.linkId = (await asB('POST', '/integration-links', linkBody('entry', theirs.entryId))).id;
  theirs.wikiPageId = (await asB('POST', `/projects/${b.projectId}/wiki-pages`, { title: 'Theirs' })).id;
  const member = await c.admin.createUser(b.orgId, `member-${randomUUID()}@b.test`, 'Member', 'developer');
  theirs.memberId = (await asB('POST', `/projects/${b.projectId}/members`, { userId: member.id })).id;
  // An event no write of this file emits: nothing is ever sent to the (unreachable) destination.
  const hook = { destinationUrl: 'http://127.0.0.1:9/hook', eventNames: ['agreement.signed'] };
  theirs.webhookId = (await asB('POST', '/webhooks', hook)).id;
});
afterAll(async () => c?.stop());

/** One reference field of one write, made with A's key on A's own path, and the refusal it must get. */
interface ReferenceCase {
  name: string;
  /** B's record the field names. */
  foreign: () => string;
  call: (id: string) => Promise<Answer>;
  status: number;
}

const alignTargets: [string, () => string][] = [
  ['project', () => theirs.projectId],
  ['entry', () => theirs.entryId],
  ['release', () => theirs.releaseId],
  ['comment', () => theirs.commentId],
  ['attachment', () => theirs.attachmentId],
  ['user', () => theirs.userId],
  ['time_entry', () => theirs.timeEntryId],
  ['wiki_page', () => theirs.wikiPageId],
];

const referenceCases: ReferenceCase[] = [
  {
    name: 'entry create: releaseId',
    foreign: () => theirs.releaseId,
    call: (id) => asA('POST', `/projects/${a.projectId}/entries`, { ...entryBody, releaseId: id }),
    status: 400,
  },
  {
    name: 'entry create: assignedToId',
    foreign: () => theirs.userId,
    call: (id) => asA('POST', `/projects/${a.projectId}/entries`, { ...entryBody, assignedToId: id }),
    status: 400,
  },
  {
    name: 'entry update: releaseId',
    foreign: () => theirs.releaseId,
    call: (id) => asA('PATCH', `/entries/${mine.entryId}`, { releaseId: id }),
    status: 400,
  },
  {
    name: 'entry update: assignedToId',
    foreign: () => theirs.userId,
    call: (id) => asA('PATCH', `/entries/${mine.entryId}`, { assignedToId: id }),
    status: 400,
  },
  {
    name: 'time entry create: entryId',
    foreign: () => theirs.entryId,
    call: (id) => asA('POST', `/projects/${a.projectId}/time-entries`, { ...timeBody(), entryId: id }),
    status: 400,
  },
  {
    name: 'time entry create: releaseId',
    foreign: () => theirs.releaseId,
    call: (id) => asA('POST', `/projects/${a.projectId}/time-entries`, { ...timeBody(), releaseId: id }),
    status: 400,
  },
  {
    name: 'time entry create: userId',
    foreign: () => theirs.userId,
    call: (id) => asA('POST', `/projects/${a.projectId}/time-entries`, { ...timeBody(), userId: id }),
    status: 404,
  },
  {
    name: 'time entry update: releaseId',
    foreign: () => theirs.releaseId,
    call: (id) => asA('PATCH', `/time-entries/${mine.timeEntryId}`, { releaseId: id }),
    status: 400,
  },
  {
    name: 'time entry sync: projectId',
    foreign: () => theirs.projectId,
    call: (id) => asA('POST', '/time-entries/sync', { ...syncBody(), projectId: id }),
    status: 404,
  },
  {
    name: 'time entry sync: entryId',
    foreign: () => theirs.entryId,
    call: (id) => asA('POST', '/time-entries/sync', { ...syncBody(), entryId: id }),
    status: 400,
  },
  {
    name: 'time entry sync: userId',
    foreign: () => theirs.userId,
    call: (id) => asA('POST', '/time-entries/sync', { ...syncBody(), userId: id }),
    status: 404,
  },
  ...alignTargets.flatMap(([type, foreign]): ReferenceCase[] => [
    {
      name: `integration link create: alignEntityId of a ${type}`,
      foreign,
      call: (id) => asA('POST', '/integration-links', linkBody(type, id)),
      status: 400,
    },
    {
      name: `integration link update: alignEntityId of a ${type}`,
      foreign,
      call: (id) => asA('PATCH', `/integration-links/${mine.linkId}`, { alignEntityType: type, alignEntityId: id }),
      status: 400,
    },
  ]),
  {
    name: 'member add: userId',
    foreign: () => theirs.userId,
    call: (id) => asA('POST', `/projects/${a.projectId}/members`, { userId: id }),
    status: 404,
  },
  {
    name: 'member update: memberId',
    foreign: () => theirs.memberId,
    call: (id) => asA('PATCH', `/projects/${a.projectId}/members/${id}`, { roleOverride: 'tech_lead' }),
    status: 404,
  },
  {
    name: 'invite: projectIds',
    foreign: () => theirs.projectId,
    call: (id) => asA('POST', '/users/invite', { email: `probe-${randomUUID()}@a.test`, name: 'Probe', projectIds: [id] }),
    status: 400,
  },
];

describe("A reference to another organization's record answers as a random id does", () => {
  for (const rc of referenceCases) {
    it(rc.name, async () => {
      const foreign = await rc.call(rc.foreign());
      expect(foreign.status, JSON.stringify(foreign.body)).toBe(rc.status);
      expect(await rc.call(randomUUID())).toEqual(foreign);
    });
  }
});

/** A write A's key makes on one of B's records (or on a random id), with the references its body names. */
interface PathCase {
  name: string;
  /** B's project or record in the path. */
  target: () => string;
  call: (target: string, body: Record<string, unknown>) => Promise<Answer>;
  /** Bodies naming B's records, A's own, and random ids: none may change the answer. */
  bodies: () => Record<string, unknown>[];
}

const random = () => randomUUID();

const pathCases: PathCase[] = [
  {
    name: 'POST /projects/:id/entries',
    target: () => theirs.projectId,
    call: (id, body) => asA('POST', `/projects/${id}/entries`, { ...entryBody, ...body }),
    bodies: () => [
      {},
      { releaseId: theirs.releaseId },
      { releaseId: random() },
      { releaseId: mine.releaseId },
      { assignedToId: theirs.userId },
      { assignedToId: random() },
      { assignedToId: mine.userId, releaseId: random() },
    ],
  },
  {
    name: 'PATCH /entries/:id',
    target: () => theirs.entryId,
    call: (id, body) => asA('PATCH', `/entries/${id}`, body),
    bodies: () => [
      { title: 'x' },
      { releaseId: theirs.releaseId },
      { releaseId: random() },
      { releaseId: mine.releaseId },
      { assignedToId: theirs.userId },
      { assignedToId: random() },
    ],
  },
  {
    name: 'POST /projects/:id/time-entries',
    target: () => theirs.projectId,
    call: (id, body) => asA('POST', `/projects/${id}/time-entries`, { ...timeBody(), ...body }),
    bodies: () => [
      {},
      { entryId: theirs.entryId },
      { entryId: random() },
      { releaseId: theirs.releaseId },
      { releaseId: random() },
      { userId: theirs.userId },
      { userId: random() },
    ],
  },
  {
    name: 'PATCH /time-entries/:id',
    target: () => theirs.timeEntryId,
    call: (id, body) => asA('PATCH', `/time-entries/${id}`, body),
    bodies: () => [{ minutes: 5 }, { releaseId: theirs.releaseId }, { releaseId: random() }, { releaseId: mine.releaseId }],
  },
  {
    name: 'POST /time-entries/sync (projectId)',
    target: () => theirs.projectId,
    call: (id, body) => asA('POST', '/time-entries/sync', { ...syncBody(), projectId: id, ...body }),
    bodies: () => [{}, { entryId: theirs.entryId }, { entryId: random() }, { userId: theirs.userId }, { userId: random() }],
  },
  {
    name: 'POST /entries/:id/comments',
    target: () => theirs.entryId,
    call: (id, body) => asA('POST', `/entries/${id}/comments`, { content: 'probe', ...body }),
    bodies: () => [{}],
  },
  {
    name: 'PATCH /comments/:id',
    target: () => theirs.commentId,
    call: (id, body) => asA('PATCH', `/comments/${id}`, { content: 'probe', ...body }),
    bodies: () => [{}],
  },
  {
    name: 'POST /entries/:id/attachments',
    target: () => theirs.entryId,
    call: (id, body) =>
      asA('POST', `/entries/${id}/attachments`, {
        fileName: 'p',
        fileSize: '1',
        fileType: 'text/plain',
        objectPath: 'p',
        ...body,
      }),
    bodies: () => [{}],
  },
  {
    name: 'PATCH /integration-links/:id',
    target: () => theirs.linkId,
    call: (id, body) => asA('PATCH', `/integration-links/${id}`, body),
    bodies: () => [
      { alignEntityType: 'entry', alignEntityId: theirs.entryId },
      { alignEntityType: 'entry', alignEntityId: mine.entryId },
      { alignEntityType: 'entry', alignEntityId: random() },
    ],
  },
  {
    name: 'POST /projects/:id/releases',
    target: () => theirs.projectId,
    call: (id, body) =>
      asA('POST', `/projects/${id}/releases`, {
        name: 'P',
        startDate: '2026-05-01T00:00:00Z',
        endDate: '2026-06-01T00:00:00Z',
        ...body,
      }),
    bodies: () => [{}],
  },
  {
    name: 'PATCH /releases/:id',
    target: () => theirs.releaseId,
    call: (id, body) => asA('PATCH', `/releases/${id}`, body),
    bodies: () => [{ name: 'x' }, { endDate: '2020-01-01T00:00:00Z' }],
  },
  {
    name: 'POST /projects/:id/members',
    target: () => theirs.projectId,
    call: (id, body) => asA('POST', `/projects/${id}/members`, body),
    bodies: () => [{ userId: theirs.userId }, { userId: mine.userId }, { userId: random() }],
  },
  {
    name: 'PATCH /projects/:id/members/:memberId',
    target: () => theirs.projectId,
    call: (id, body) => asA('PATCH', `/projects/${id}/members/${theirs.memberId}`, body),
    bodies: () => [{ roleOverride: 'tech_lead' }],
  },
  {
    name: 'POST /projects/:id/wiki-pages',
    target: () => theirs.projectId,
    call: (id, body) => asA('POST', `/projects/${id}/wiki-pages`, { title: 'P', ...body }),
    bodies: () => [{}],
  },
  {
    name: 'PATCH /wiki-pages/:id',
    target: () => theirs.wikiPageId,
    call: (id, body) => asA('PATCH', `/wiki-pages/${id}`, body),
    bodies: () => [{ title: 'x' }],
  },
  {
    name: 'PATCH /projects/:id',
    target: () => theirs.projectId,
    call: (id, body) => asA('PATCH', `/projects/${id}`, body),
    bodies: () => [{ name: 'x' }],
  },
  {
    name: 'PATCH /webhooks/:id',
    target: () => theirs.webhookId,
    call: (id, body) => asA('PATCH', `/webhooks/${id}`, body),
    bodies: () => [{ enabled: false }],
  },
  {
    name: 'POST /webhooks/:id/rotate-secret',
    target: () => theirs.webhookId,
    call: (id) => asA('POST', `/webhooks/${id}/rotate-secret`),
    bodies: () => [{}],
  },
];

describe("A's key on B's project or record: 404, the same as a random id, whatever the body references", () => {
  for (const pc of pathCases) {
    it(pc.name, async () => {
      const bodies = pc.bodies();
      const expected = await pc.call(random(), bodies[0]);
      expect(expected.status, JSON.stringify(expected.body)).toBe(404);
      expect(expected.body.reason).toBe('not_found');
      for (const body of bodies) {
        expect(await pc.call(pc.target(), body), JSON.stringify(body)).toEqual(expected);
        expect(await pc.call(random(), body), JSON.stringify(body)).toEqual(expected);
      }
    });
  }

  it("left B's records as they were", async () => {
    const entry = await c.api(b.key, 'GET', `/entries/${theirs.entryId}`);
    expect(entry.body).toMatchObject({ title: 'Probe', releaseId: null, assignedToId: null });
    const page = await c.api(b.key, 'GET', `/projects/${b.projectId}/entries`);
    expect(page.body.data).toHaveLength(1);
    expect((await c.api(b.key, 'GET', `/webhooks/${theirs.webhookId}`)).body.enabled).toBe(true);
  });
});
