import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '@cluster/contracts';
import { allows } from '@cluster/platform';
import { routes, TOOL_SPECS } from '@cluster/gateway';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

// The tool-protocol endpoint as an AI assistant uses it: the official SDK's client over
// Streamable HTTP, against the real cluster, with the same API keys as the REST API.
let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
let mcpUrl: URL;
const clients: Client[] = [];

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Assistant');
  other = await c.seedOrg('Elsewhere');
  mcpUrl = new URL(c.baseUrl.replace('/api/v1', '/mcp'));
}, 120_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await c?.stop();
});

/** An SDK client connected with `key`. */
async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'test-assistant', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  clients.push(client);
  return client;
}

/**
 * The JSON a tool answered (its first text part), whether it was a tool error, and the text parts
 * after it (a list's next-page hint). The SDK's client has checked `structuredContent` against the
 * tool's outputSchema.
 */
async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const texts = res.content.map((p) => (p.type === 'text' ? p.text : ''));
  return { isError: res.isError === true, body: JSON.parse(texts[0]) as Record<string, unknown>, more: texts.slice(1) };
}

/** A raw POST to /mcp (initialize), for the refusals that come before the protocol. */
function rawPost(headers: Record<string, string>) {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  });
}

describe('the tool-protocol endpoint', () => {
  it('lists a tool per spec, each with the four annotations and an object input schema from the route', async () => {
    const client = await connect(org.key);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(routes.filter((r) => r.tool).length);
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_SPECS.map((t) => t.name).sort());
    for (const t of TOOL_SPECS)
      expect(
        routes.some((r) => r.method === t.method && r.path === t.path),
        t.name,
      ).toBe(true);
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({
        title: expect.any(String),
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        openWorldHint: false,
      });
      expect(tool.inputSchema.type, tool.name).toBe('object');
      const spec = TOOL_SPECS.find((t) => t.name === tool.name)!;
      expect(tool.annotations!.readOnlyHint, tool.name).toBe(spec.method === 'GET');
    }
    const create = tools.find((t) => t.name === 'create_entry')!;
    expect(create.inputSchema.required).toEqual(expect.arrayContaining(['projectId', 'title', 'type', 'description']));
  });

  it('reads and writes as the REST API does: the write is visible over REST and its event reaches Kafka', async () => {
    const client = await connect(org.key);
    const projects = await callTool(client, 'list_projects');
    expect(projects.isError).toBe(false);
    expect((projects.body.data as { id: string }[]).map((p) => p.id)).toContain(org.projectId);

    const created = await callTool(client, 'create_entry', {
      projectId: org.projectId,
      title: 'Made by an assistant',
      type: 'feature_request',
      description: 'through create_entry',
    });
    expect(created.body).not.toHaveProperty('reason');
    expect(created.isError).toBe(false);
    const id = created.body.id as string;
    const rest = await c.api(org.key, 'GET', `/entries/${id}`);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ title: 'Made by an assistant', projectId: org.projectId });
    const [event] = await c.events.waitFor((e) => e.eventName === 'entry.created' && e.entityId === id);
    expect(event.organizationId).toBe(org.orgId);
    const audit = await c.api(org.key, 'GET', `/audit-events?entityType=entry`);
    expect(JSON.stringify(audit.body)).toContain(id);
  });

  it('refuses another origin with 403 before anything else, even with a valid key; no Origin is fine', async () => {
    const refused = await rawPost({ authorization: `Bearer ${org.key}`, origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect((await refused.json()).reason).toBe('forbidden');
    const noKeyEither = await rawPost({ origin: 'https://evil.example' });
    expect(noKeyEither.status).toBe(403);
    expect((await rawPost({ authorization: `Bearer ${org.key}` })).status).toBe(200);
  });

  it('answers hostile bodies and other methods with 4xx, never 500', async () => {
    const post = (body: string) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${org.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      });
    for (const body of [
      'not json',
      '[]',
      '{"jsonrpc":"2.0"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}',
    ]) {
      const res = await post(body);
      expect(res.status, body).toBeGreaterThanOrEqual(200);
      expect(res.status, body).toBeLessThan(500);
    }
    const get = await fetch(mcpUrl, { headers: { authorization: `Bearer ${org.key}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('answers 401 with WWW-Authenticate naming the metadata for no key, a bad key and a revoked key', async () => {
    const { id, key } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    expect((await rawPost({ authorization: `Bearer ${key}` })).status).toBe(200);
    await c.admin.revokeKey(id);
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer fbk_not_a_key' },
      { authorization: `Bearer ${key}` },
    ];
    for (const headers of attempts) {
      const res = await rawPost(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${c.baseUrl.replace('/api/v1', '')}/.well-known/oauth-protected-resource"`,
      );
    }
  });

  it('keeps a project-scoped key in its project through every tool', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'project', project: org.projectId });
    const client = await connect(key);
    const theirs = await c.api(other.key, 'POST', `/projects/${other.projectId}/entries`, {
      title: 'Theirs',
      type: 'bug_report',
      description: 'not yours',
    });
    const reached = [
      await callTool(client, 'get_project', { projectId: other.projectId }),
      await callTool(client, 'get_entry', { entryId: theirs.body.id }),
      await callTool(client, 'update_entry', { entryId: theirs.body.id, title: 'Mine now' }),
      await callTool(client, 'list_entries', { projectId: other.projectId }),
    ];
    for (const r of reached) {
      expect(r.isError, JSON.stringify(r.body)).toBe(true);
      expect(['not_found', 'scope_violation'], JSON.stringify(r.body)).toContain(r.body.reason);
      expect(['not_found', 'scope_violation']).toContain(r.body.reason);
    }
    expect(reached[1].body.reason).toBe('not_found');
    expect((await c.api(other.key, 'GET', `/entries/${theirs.body.id}`)).body.title).toBe('Theirs');
  });

  it('shows a webhook subscription’s health and statistics; another organization’s is not found', async () => {
    const hook = await c.api(org.key, 'POST', '/webhooks', {
      destinationUrl: 'https://example.com/in',
      eventNames: ['webhook.test'],
    });
    expect(hook.status).toBe(201);
    const client = await connect(org.key);
    const listed = await callTool(client, 'list_webhooks');
    expect(listed.isError).toBe(false);
    expect((listed.body.data as { id: string }[]).map((w) => w.id)).toContain(hook.body.id);
    const stats = await callTool(client, 'webhook_stats', { webhookId: hook.body.id, window: '7d' });
    expect(stats).toMatchObject({
      isError: false,
      body: { subscriptionId: hook.body.id, window: '7d', deliveries: { total: 0 } },
    });
    const theirs = await callTool(await connect(other.key), 'webhook_stats', { webhookId: hook.body.id });
    expect(theirs).toMatchObject({ isError: true, body: { reason: 'not_found' } });
  });

  it('answers bad arguments as a tool error with the reason; an unknown tool, or one the key may not call, as a JSON-RPC error', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization', permissions: 'read:entry,read:project' });
    const client = await connect(key);
    await expect(
      client.callTool({
        name: 'create_entry',
        arguments: { projectId: org.projectId, title: 'x', type: 'feedback', description: 'd' },
      }),
    ).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('write:entry') as string });

    const admin = await connect(org.key);
    const invalid = await callTool(admin, 'create_entry', { projectId: 'not-a-uuid', type: 'saga' });
    expect(invalid).toMatchObject({ isError: true, body: { reason: 'validation_error' } });
    const paths = (invalid.body.details as { errors: { path: string }[] }).errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['/projectId', '/title', '/type']));
    await expect(admin.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('no tool named no_such_tool') as string,
    });
  });

  it('lists only the tools a key may call, and only reads on a read-only connection (issue 40)', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization', permissions: 'read:entry,read:project' });
    const reader = (await (await connect(key)).listTools()).tools.map((t) => t.name);
    const actor = { scope: 'organization', role: 'admin', permissions: ['read:entry', 'read:project'] };
    const readable = routes.filter((r) => r.tool && allows(r, actor)).map((r) => (r.tool as { name: string }).name);
    expect(reader.sort()).toEqual(readable.sort());
    expect(reader).toEqual(expect.arrayContaining(['whoami', 'list_projects', 'get_entry']));
    expect(reader).not.toContain('create_entry');

    const readOnly = new Client({ name: 'read-only-assistant', version: '1.0.0' });
    const url = new URL(mcpUrl);
    url.searchParams.set('mode', 'read-only');
    await readOnly.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${org.key}` } } }),
    );
    clients.push(readOnly);
    const { tools } = await readOnly.listTools();
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    await expect(
      readOnly.callTool({
        name: 'create_entry',
        arguments: { projectId: org.projectId, title: 't', type: 'bug_report', description: 'd' },
      }),
    ).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('read-only') as string });
  });

  it('fits a model: instructions, every argument described, no server-set argument, outputSchema held, short pages with a next-page hint', async () => {
    const client = await connect(org.key);
    expect(client.getInstructions()).toMatch(/whoami/);
    const { tools } = await client.listTools();
    for (const tool of tools)
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {}))
        expect((schema as { description?: string }).description, `${tool.name}.${name}`).toEqual(expect.any(String));
    const create = tools.find((t) => t.name === 'create_entry')!;
    expect(Object.keys(create.inputSchema.properties ?? {})).not.toContain('deploymentStage');
    expect(create.outputSchema?.type).toBe('object');
    expect(tools.find((t) => t.name === 'list_entries')!.outputSchema?.properties).toHaveProperty('data');

    // Twelve entries: a page of ten (the SDK's client checked it against list_entries' outputSchema), and a hint for the next.
    const { body: project } = await c.api(org.key, 'POST', '/projects', { name: 'Paged', description: 'for the hint' });
    for (let i = 0; i < 12; i++)
      await c.api(org.key, 'POST', `/projects/${project.id}/entries`, { type: 'bug_report', title: `E${i}`, description: 'd' });
    const first = await callTool(client, 'list_entries', { projectId: project.id });
    expect(first.isError).toBe(false);
    expect(first.body).toMatchObject({ page: 1, pageSize: 10, total: 12 });
    expect(first.more).toEqual([
      expect.stringContaining(`call list_entries with {"projectId":"${project.id}","pageSize":10,"page":2}`),
    ]);
    const second = await callTool(client, 'list_entries', { projectId: project.id, pageSize: 10, page: 2 });
    expect((second.body.data as unknown[]).length).toBe(2);
    expect(second.more).toEqual([]);
  });

  it('counts every request against the key like a REST call, the handshake included', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    const before = Number((await c.api(key, 'GET', '/me')).headers.get('x-ratelimit-remaining'));
    const client = await connect(key); // initialize and notifications/initialized: two requests
    await callTool(client, 'whoami');
    await callTool(client, 'whoami');
    const after = Number((await c.api(key, 'GET', '/me')).headers.get('x-ratelimit-remaining'));
    expect(before - after).toBe(5);
  });

  it('refuses a request over the key’s limit with 429, a tool call included', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    const client = await connect(key);
    for (let i = 0; i < 600; i += 50) await Promise.all(Array.from({ length: 50 }, () => c.api(key, 'GET', '/me')));
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow(/429|rate limit/i);
  });

  it('publishes RFC 9728 protected-resource metadata, and a privacy link', async () => {
    const base = c.baseUrl.replace('/api/v1', '');
    const meta = await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json();
    expect(meta).toMatchObject({
      resource: `${base}/mcp`,
      authorization_servers: [`${base}/`], // the gateway's own sign-in (test/mcp-oauth.test.ts)
      bearer_methods_supported: ['header'],
      resource_documentation: `${base}/api/v1/docs`,
    });
    expect(meta.scopes_supported).toEqual([...PERMISSIONS]);
    const privacy = await fetch(`${base}/mcp/privacy`, { redirect: 'manual' });
    expect(privacy.status).toBe(302);
    expect(privacy.headers.get('location')).toMatch(/^https:\/\//);
  });
});
