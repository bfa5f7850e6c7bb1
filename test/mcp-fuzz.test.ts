import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES } from '@cluster/contracts';
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
import { bodyText } from './support/hostile-values.ts';
import { projectKey } from './support/people.ts';
import type { JsonSchema, ValuePools } from './support/schema-arbitrary.ts';

/**
 * The tool-protocol endpoint under hostile input, as test/fuzz.test.ts does for the REST routes: for
 * every tool, `tools/call` arguments drawn from the tool's own input schema (tools/list) and then broken
 * (test/support/hostile-values.ts), and JSON-RPC envelopes that are themselves broken (wrong types,
 * unknown methods, batches, bodies that are no JSON), sent as real HTTP to a whole cluster with an
 * organization key or a project-scoped one. No answer is a 5xx; every answer is JSON: a JSON-RPC
 * response (a result, a tool error whose text is the spec's error body, or a protocol error) or, for
 * what the endpoint refuses before the protocol, the spec's error body. Same seeds and counts as the
 * REST fuzz (FUZZ_SEED, FUZZ_RUNS; `npm run fuzz` runs more).
 */

let c: TestCluster;
let org: SeededOrg;
let scopedKey: string;
let mcpUrl: string;
let pools: ValuePools;
let tools: { name: string; inputSchema: JsonSchema }[] = [];
/** Every tools/call answer: whether the tool ran (a result that is not a tool error). */
const ran: boolean[] = [];

/** One raw POST to /mcp, as a careless client sends it. */
async function post(key: 'organization' | 'project', body: string) {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key === 'organization' ? org.key : scopedKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  return wireAnswer(res);
}

/** One JSON-RPC response: a result or an error with an integer code and a message. */
function expectJsonRpc(message: unknown, where: string): void {
  expect(isObject(message), `${where}: a JSON-RPC object`).toBe(true);
  const m = message as Record<string, unknown>;
  expect(m.jsonrpc, where).toBe('2.0');
  if ('error' in m) {
    const error = m.error as Record<string, unknown>;
    expect(Number.isInteger(error.code), where).toBe(true);
    expect(typeof error.message, where).toBe('string');
  } else {
    expect(isObject(m.result), `${where}: a result`).toBe(true);
  }
}

/**
 * Any answer of the endpoint: below 500 and JSON; 2xx a JSON-RPC response (or a batch of them, or
 * nothing for a notification), 4xx a JSON-RPC error or the spec's error body.
 */
function expectAnswer(answer: WireAnswer, where: string): unknown {
  const at = `${where} answered ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, at).toBeLessThan(500);
  if (answer.text === '') {
    expect(answer.status, at).toBe(202);
    return undefined;
  }
  const body = jsonOf(answer, at);
  if (answer.status >= 400 && isObject(body) && !('jsonrpc' in body)) {
    expectSpecError(body, at);
    return body;
  }
  for (const message of Array.isArray(body) ? body : [body]) expectJsonRpc(message, at);
  return body;
}

/** A tools/call result's own rule: a tool error's text is the spec's error body; a success's text is JSON. */
function expectToolResult(body: unknown, where: string): void {
  if (!isObject(body) || !isObject(body.result)) return;
  const result = body.result as { content?: { type: string; text?: string }[]; isError?: boolean };
  const text = (result.content ?? []).map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${where}: the tool's text is not JSON: ${text.slice(0, 300)}`);
  }
  if (result.isError) expectSpecError(parsed, `${where}: tool error`);
  ran.push(!result.isError);
}

const envelope = (method: string, paramsText: string, id: unknown = 1) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${paramsText}}`;

beforeAll(async () => {
  c = await startTestCluster({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  org = await c.seedOrg('MCP Fuzz Org');
  scopedKey = await projectKey(c, org);
  mcpUrl = c.baseUrl.replace('/api/v1', '/mcp');
  const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { type: 'bug_report', title: 'Fuzz' });
  const own: Record<string, string[]> = { project: [org.projectId], entry: [String(entry.body.id)], user: [org.adminId] };
  pools = {
    idsFor: (property) => own[property.replace(/Ids?$/, '')] ?? Object.values(own).flat(),
    urlBase: 'http://127.0.0.1:9',
    words: [EVENT_NAMES, ['project', 'entry', 'release', 'comment', 'user']],
  };
  const listed = jsonOf(await post('organization', envelope('tools/list', '{}')), 'tools/list') as {
    result: { tools: { name: string; inputSchema: JsonSchema }[] };
  };
  tools = listed.result.tools;
}, 120_000);
afterAll(async () => {
  await c?.stop();
});

describe(`MCP fuzz: every tool, ${RUNS} cases each from seed ${SEED}`, () => {
  it('lists tools to fuzz', () => {
    expect(tools.length).toBeGreaterThan(10);
  });

  it(
    'answers broken tools/call arguments of every tool below 500, in JSON-RPC, tool errors in the spec’s shape',
    async () => {
      for (const [i, tool] of tools.entries()) {
        const cases = fc.record({
          key: fc.oneof({ weight: 3, arbitrary: fc.constant('organization' as const) }, fc.constant('project' as const)),
          args: bodyText(tool.inputSchema, pools),
        });
        const property = fc.asyncProperty(cases, async ({ key, args }) => {
          const where = `tools/call ${tool.name} with the ${key} key, arguments ${args.slice(0, 300)}`;
          const body = expectAnswer(
            await post(key, envelope('tools/call', `{"name":${JSON.stringify(tool.name)},"arguments":${args}}`)),
            where,
          );
          expectToolResult(body, where);
        });
        const run = await fc.check(property, { seed: SEED + i, numRuns: RUNS });
        if (run.failed) {
          const request = run.counterexample
            ? `tools/call ${tool.name} with the ${run.counterexample[0].key} key, arguments ${cut(run.counterexample[0].args)}`
            : '(no counterexample)';
          throw fuzzFailure(run, request, `(tool ${tool.name}, seed ${SEED + i})`);
        }
      }
      // The fuzz reached the tools: some calls ran (valid enough), not only refusals.
      expect(ran.filter(Boolean).length).toBeGreaterThan(0);
    },
    120_000 + RUNS * 30_000,
  );

  it(
    'answers broken JSON-RPC envelopes below 500, as JSON',
    async () => {
      const names = tools.map((t) => t.name);
      const id = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.constant({ a: 1 }), fc.constant([1]));
      const method = fc.oneof(
        fc.constantFrom(
          'tools/call',
          'tools/list',
          'initialize',
          'ping',
          'resources/list',
          'prompts/list',
          'notifications/initialized',
        ),
        fc.string({ maxLength: 30 }),
      );
      const params = fc.oneof(
        bodyText({}, pools),
        fc.constantFrom('null', '[]', '"x"', '1', '{"name":null}', '{"name":"nope"}'),
        fc.constantFrom(...names).map((n) => `{"name":${JSON.stringify(n)},"arguments":[]}`),
        fc.constantFrom(...names).map((n) => `{"name":${JSON.stringify(n)},"arguments":"x"}`),
      );
      const body = fc.oneof(
        { weight: 4, arbitrary: fc.tuple(method, params, id).map(([m, p, i]) => envelope(m, p, i)) },
        { weight: 1, arbitrary: fc.tuple(method, params).map(([m, p]) => `[${envelope(m, p, 1)},${envelope('ping', '{}', 2)}]`) },
        { weight: 1, arbitrary: bodyText({}, pools) },
        { weight: 1, arbitrary: fc.constantFrom('', '[]', '{}', '{"jsonrpc":"1.0"}', '{"jsonrpc":"2.0","id":1}', 'null') },
      );
      const cases = fc.record({
        key: fc.oneof({ weight: 3, arbitrary: fc.constant('organization' as const) }, fc.constant('project' as const)),
        body,
      });
      const run = await fc.check(
        fc.asyncProperty(cases, async ({ key, body: text }) => {
          expectAnswer(await post(key, text), `POST /mcp with the ${key} key, body ${text.slice(0, 300)}`);
        }),
        { seed: SEED, numRuns: RUNS * 20 },
      );
      if (run.failed) {
        const request = run.counterexample
          ? `POST /mcp with the ${run.counterexample[0].key} key, body ${cut(run.counterexample[0].body)}`
          : '(no counterexample)';
        throw fuzzFailure(run, request, `(seed ${SEED})`);
      }
    },
    120_000 + RUNS * 20_000,
  );
});
