import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES } from '@cluster/contracts';
import { routes } from '@cluster/gateway';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import {
  FUZZ_RUNS as RUNS,
  FUZZ_SEED as SEED,
  cut,
  expectSpecError,
  fuzzFailure,
  isObject,
  jsonOf,
  wireAnswer,
  type WireAnswer,
} from './support/fuzz.ts';
import { bodyText, pathSegment, queryText } from './support/hostile-values.ts';
import { projectKey } from './support/people.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import type { JsonSchema, ValuePools } from './support/schema-arbitrary.ts';

/**
 * The proof that bad input is never a 5xx (issue 18): for every route of the table, bodies and query
 * strings drawn from the route's own schemas and then broken (test/support/hostile-values.ts: wrong types,
 * NUL, numbers past every bound, deep nesting, 100k strings, lone surrogates and other odd unicode), path
 * params that are the organization's own ids, random uuids or garbage, sent as real HTTP to a whole
 * cluster with an organization admin key or a project-scoped one. Every answer is below 500, every error
 * has the spec's shape, and every 2xx body is JSON. `npm test` runs FUZZ_RUNS (15) cases per route from
 * the fixed FUZZ_SEED; `npm run fuzz` runs more from a fresh seed, printed so a failure can be replayed.
 */

let c: TestCluster;
let org: SeededOrg;
let scopedKey: string;
let receiver: Receiver;
/** The organization's own records, by the path segment that names their kind (`entries` for /entries/:id). */
const own: Record<string, string[]> = {};
let pools: ValuePools;
/** Every answer's status, for the check that the fuzz reached the handlers. */
const statuses: number[] = [];

type Route = (typeof routes)[number];

/** The kind of record (its path segment) an id property names, by the property's name without `Id`/`Ids`. */
const KIND_OF_ID: Record<string, string> = {
  project: 'projects',
  user: 'users',
  assignedTo: 'users',
  actor: 'users',
  entry: 'entries',
  release: 'releases',
  dependsOnRelease: 'releases',
};

/** One fuzzed request: which key, the path with its params, the query text and the body text. */
interface FuzzRequest {
  key: 'organization' | 'project';
  path: string;
  query: string;
  body: string | undefined;
}

/** What came back, as read off the wire. */
type Answer = WireAnswer;

/** Creates one record through the API (a POST) and files its id under `kind`. */
async function make(kind: string, path: string, body: unknown, idField = 'id'): Promise<string> {
  const res = await c.api(org.key, 'POST', path, body);
  if (res.status >= 300) throw new Error(`fuzz setup: POST ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
  const id = String(res.body[idField]);
  (own[kind] ??= []).push(id);
  return id;
}

beforeAll(async () => {
  // The fuzz sends far more than 600 requests a minute with one key; the limit itself is tested elsewhere.
  c = await startTestCluster({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  receiver = await startReceiver();
  org = await c.seedOrg('Fuzz Org');
  scopedKey = await projectKey(c, org);
  own.projects = [org.projectId];
  const member = await c.admin.createUser(org.orgId, `member-${randomUUID()}@fuzz.example`, 'Member', 'developer');
  own.users = [org.adminId, member.id];
  const project = `/projects/${org.projectId}`;
  await make('members', `${project}/members`, { userId: member.id });
  const entryId = await make('entries', `${project}/entries`, { type: 'bug_report', title: 'Fuzz', description: 'd' });
  const releaseId = await make('releases', `${project}/releases`, {
    name: 'R',
    startDate: '2026-05-01T00:00:00Z',
    endDate: '2026-06-01T00:00:00Z',
  });
  await make('comments', `/entries/${entryId}/comments`, { content: 'fuzz' });
  const file = { fileName: 'f.txt', fileSize: '3', fileType: 'text/plain', objectPath: 'fuzz/f.txt' };
  await make('attachments', `/entries/${entryId}/attachments`, file);
  const link = {
    provider: 'github',
    externalType: 'issue',
    externalId: 'fuzz-1',
    alignEntityType: 'entry',
    alignEntityId: entryId,
  };
  await make('integration-links', '/integration-links', link);
  const time = { userId: org.adminId, workDate: '2026-03-05', minutes: 30, entryId, releaseId };
  await make('time-entries', `${project}/time-entries`, time);
  await make('wiki-pages', `${project}/wiki-pages`, { title: 'Fuzz' });
  const webhookId = await make('webhooks', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
  await make('deliveries', `/webhooks/${webhookId}/test`, {}, 'deliveryId');
  pools = {
    idsFor: (property) => own[KIND_OF_ID[property.replace(/Ids?$/, '')] ?? ''] ?? Object.values(own).flat(),
    urlBase: new URL(receiver.url).origin,
    words: [
      EVENT_NAMES,
      ['project', 'entry', 'release', 'comment', 'attachment', 'user', 'time_entry', 'wiki_page'],
      ['github', 'toggl'],
    ],
  };
});
afterAll(async () => {
  await c?.stop();
  await receiver?.close();
});

/** A route's path with each :param drawn from the records of its kind (the segment before it), uuids and garbage. */
function pathOf(route: Route): fc.Arbitrary<string> {
  const segments = route.path.split('/');
  return fc
    .tuple(...segments.map((s, i) => (s.startsWith(':') ? pathSegment(own[segments[i - 1]] ?? []) : fc.constant(s))))
    .map((parts) => parts.join('/'));
}

/** Requests for one route: GET and DELETE carry no body; a write without a body schema sometimes carries one anyway. */
function requestsOf(route: Route): fc.Arbitrary<FuzzRequest> {
  const withoutBody = route.method === 'GET' || route.method === 'DELETE';
  const body: fc.Arbitrary<string | undefined> = withoutBody
    ? fc.constant(undefined)
    : route.body
      ? bodyText(route.body as JsonSchema, pools)
      : fc.option(bodyText({}, pools));
  return fc.record({
    key: fc.oneof({ weight: 3, arbitrary: fc.constant('organization' as const) }, fc.constant('project' as const)),
    path: pathOf(route),
    query: queryText(route.query as JsonSchema | undefined, pools),
    body,
  });
}

/** Sends one request as a client would. */
async function send(route: Route, r: FuzzRequest): Promise<Answer> {
  const res = await fetch(`${c.baseUrl}${r.path}${r.query ? `?${r.query}` : ''}`, {
    method: route.method,
    headers: {
      authorization: `Bearer ${r.key === 'organization' ? org.key : scopedKey}`,
      ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: r.body,
    signal: AbortSignal.timeout(30_000),
  });
  return wireAnswer(res);
}

/**
 * The spec's rules for any answer: below 500; an error is `{reason, message, details?}` with strings and an
 * object (or, for unknown webhook event names, the spec's `{error: 'unknown_event_names', invalid}`); a 2xx
 * body is JSON.
 */
function expectSpecAnswer(route: Route, answer: Answer): void {
  const where = `${route.method} ${route.path} answered ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  if (answer.status >= 400) {
    const body = jsonOf(answer, where);
    if (isObject(body) && body.error === 'unknown_event_names' && route.path.startsWith('/webhooks')) {
      expect(Array.isArray(body.invalid), where).toBe(true);
      return;
    }
    expectSpecError(body, where);
  } else if (answer.text !== '') {
    jsonOf(answer, where);
  }
}

/** A request as a failure reports it: long values cut, so a 100k string does not bury the message. */
function describeRequest(route: Route, r: FuzzRequest): string {
  return `${route.method} ${cut(r.path)}${r.query ? `?${cut(r.query)}` : ''} with the ${r.key} key${r.body === undefined ? '' : `, body ${cut(r.body)}`}`;
}

// Deletes last, in reverse table order (a project last of all), so each record serves every other route first.
const order = [...routes.filter((r) => r.method !== 'DELETE'), ...routes.filter((r) => r.method === 'DELETE').reverse()];

describe(`fuzz: every route, ${RUNS} cases each from seed ${SEED}`, () => {
  for (const route of order) {
    // Each route's seed is fixed by its place in the table, so `-t` on one route replays the same cases.
    const seed = SEED + routes.indexOf(route);
    it(
      `${route.method} ${route.path}`,
      async () => {
        const property = fc.asyncProperty(requestsOf(route), async (request) => {
          const answer = await send(route, request);
          statuses.push(answer.status);
          expectSpecAnswer(route, answer);
        });
        const run = await fc.check(property, { seed, numRuns: RUNS });
        if (run.failed) {
          const request = run.counterexample ? describeRequest(route, run.counterexample[0]) : '(no counterexample)';
          throw fuzzFailure(run, request, `(seed ${seed}, path ${run.counterexamplePath})`);
        }
      },
      60_000 + RUNS * 2_000,
    );
  }

  it('reached the handlers: a good share of the answers were 2xx', () => {
    const ok = statuses.filter((s) => s < 300).length;
    expect(ok / statuses.length).toBeGreaterThan(0.1);
  });
});
