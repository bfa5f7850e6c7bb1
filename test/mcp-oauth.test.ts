import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allows } from '@cluster/platform';
import { routes } from '@cluster/gateway';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

// The tool-protocol endpoint's sign-in (docs/mcp.md, "Signing in") as an OAuth-capable assistant meets
// it: the official SDK's client discovers the authorization server from the 401, registers itself,
// sends the user to the consent page with PKCE, and connects with the access token it gets. The user
// (this test) answers the consent page as a browser would: the form's own fields, their API key, the
// scopes they tick.
let c: TestCluster;
let org: SeededOrg;
let origin: string;
let mcpUrl: URL;
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Signing in');
  origin = new URL(c.baseUrl).origin;
  mcpUrl = new URL(`${origin}/mcp`);
}, 120_000);
afterAll(async () => {
  await c?.stop();
});

/** An assistant's OAuth client state, kept in memory as the SDK's examples do; the consent URL it was sent to. */
class AssistantAuth implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test Assistant',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The consent page's form fields (hidden ones and scope checkboxes), as a browser would send them. */
async function consentForm(url: URL): Promise<{ html: string; fields: [string, string][] }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  const html = await res.text();
  const fields: [string, string][] = [];
  for (const m of html.matchAll(/<input type="(?:hidden|checkbox)" name="([a-z_]+)" value="([^"]*)"/g))
    fields.push([m[1], m[2].replace(/&amp;/g, '&').replace(/&quot;/g, '"')]);
  return { html, fields };
}

/** Sends the consent form: `decision`, the key, and the scopes ticked (undefined: as the page offers). */
async function answerConsent(
  fields: [string, string][],
  opts: { key: string; scopes?: string[]; decision?: 'approve' | 'deny' },
): Promise<Response> {
  const body = new URLSearchParams();
  for (const [k, v] of fields) if (k !== 'scope' || !opts.scopes) body.append(k, v);
  for (const s of opts.scopes ?? []) body.append('scope', s);
  body.set('api_key', opts.key);
  body.set('decision', opts.decision ?? 'approve');
  return fetch(`${origin}/oauth/consent`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
    redirect: 'manual',
  });
}

/** The whole sign-in with the SDK's client: returns the connected client and the provider (its tokens). */
async function signIn(scopes: string[]): Promise<{ client: Client; auth: AssistantAuth }> {
  const auth = new AssistantAuth();
  const first = new Client({ name: 'test-assistant', version: '1.0.0' });
  await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }))).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  expect(auth.authorizationUrl?.origin).toBe(origin);
  expect(auth.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
  const { html, fields } = await consentForm(auth.authorizationUrl!);
  expect(html).toContain('Test Assistant');
  const answer = await answerConsent(fields, { key: org.key, scopes });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  expect(back.searchParams.get('state')).toBe(auth.authorizationUrl!.searchParams.get('state'));
  expect(back.searchParams.get('iss')).toBe(`${origin}/`);
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth });
  await transport.finishAuth(back.searchParams.get('code')!);
  const client = new Client({ name: 'test-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }));
  return { client, auth };
}

const tokenRequest = (params: Record<string, string>) =>
  fetch(`${origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });

describe('signing in to the tool-protocol endpoint with OAuth', () => {
  it('publishes the authorization server in the protected-resource metadata and its own (RFC 8414)', async () => {
    const prm = (await (await fetch(`${origin}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(prm.authorization_servers).toEqual([`${origin}/`]);
    const as = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: `${origin}/`,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      revocation_endpoint: `${origin}/revoke`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('the SDK client completes the flow, and a read-only grant lists only the read tools it allows', async () => {
    const { client, auth } = await signIn(['read:project', 'read:entry']);
    expect(auth.saved?.scope?.split(' ').sort()).toEqual(['read:entry', 'read:project']);
    expect(auth.saved?.access_token).toMatch(/^fbk_at_/);
    const { tools } = await client.listTools();
    const offered = tools.map((t) => t.name);
    // What the key (an admin's) may call, narrowed to the two scopes: reads of projects and entries, and
    // the few tools that need no permission at all (who am I).
    const granted = { scope: 'organization', role: 'admin', permissions: ['read:project', 'read:entry'] };
    const allowed = routes.filter((r) => r.tool && allows(r, granted));
    expect(allowed.every((r) => r.method === 'GET')).toBe(true);
    expect(offered.sort()).toEqual(allowed.map((r) => (r.tool ? r.tool.name : '')).sort());
    expect(offered).not.toContain('create_project');
    const listed = await client.callTool({ name: 'list_projects', arguments: {} });
    expect(listed.isError).toBeFalsy();
    await expect(client.callTool({ name: 'create_project', arguments: { name: 'x' } })).rejects.toThrow(
      /read:project|write:project|create_project/,
    );
    await client.close();
  });

  it('an access token is for /mcp only: the REST API refuses it', async () => {
    const { client, auth } = await signIn(['read:project']);
    await client.close();
    const res = await fetch(`${c.baseUrl}/projects`, { headers: { authorization: `Bearer ${auth.saved!.access_token}` } });
    expect(res.status).toBe(401);
  });

  it('rotates the refresh token; a reused one revokes the grant, and its access token stops working', async () => {
    const { client, auth } = await signIn(['read:project']);
    await client.close();
    const clientId = auth.info!.client_id;
    const first = auth.saved!;
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token!,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as OAuthTokens;
    expect(next.refresh_token).not.toBe(first.refresh_token);
    const again = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: clientId });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
    auth.saved = next;
    await expect(
      new Client({ name: 'x', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth })),
    ).rejects.toThrow();
  });

  it('a code works once; revoking an access token ends it', async () => {
    const auth = new AssistantAuth();
    await expect(
      new Client({ name: 'a', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const { fields } = await consentForm(auth.authorizationUrl!);
    const back = new URL((await answerConsent(fields, { key: org.key, scopes: ['read:project'] })).headers.get('location')!);
    const code = back.searchParams.get('code')!;
    const exchange = () =>
      tokenRequest({
        grant_type: 'authorization_code',
        code,
        code_verifier: auth.verifier,
        redirect_uri: REDIRECT,
        client_id: auth.info!.client_id,
      });
    const ok = await exchange();
    expect(ok.status).toBe(200);
    const tokens = (await ok.json()) as OAuthTokens;
    expect((await exchange()).status).toBe(400);
    const mcp = (token: string) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    // The code used twice revoked its grant (RFC 6749 4.1.2): the tokens it gave no longer work.
    expect((await mcp(tokens.access_token)).status).toBe(401);

    const { client, auth: fresh } = await signIn(['read:project']);
    await client.close();
    expect((await mcp(fresh.saved!.access_token)).status).toBe(200);
    const revoked = await fetch(`${origin}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: fresh.saved!.access_token, client_id: fresh.info!.client_id }),
    });
    expect(revoked.status).toBe(200);
    const after = await mcp(fresh.saved!.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('the consent page: a wrong key shows the page again with why, a denial goes back with access_denied, a forged redirect is refused', async () => {
    const auth = new AssistantAuth();
    await expect(
      new Client({ name: 'a', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const { fields } = await consentForm(auth.authorizationUrl!);
    const wrong = await answerConsent(fields, { key: 'fbk_AAAAAAAA_' + 'A'.repeat(40) });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('API key not recognised');
    const denied = await answerConsent(fields, { key: org.key, decision: 'deny' });
    expect(denied.status).toBe(302);
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    const forged = fields.map(([k, v]): [string, string] => [k, k === 'redirect_uri' ? 'https://attacker.example/cb' : v]);
    const refused = await answerConsent(forged, { key: org.key });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    const noScope = await answerConsent(fields, { key: org.key, scopes: ['not:a-scope'] });
    expect(noScope.status).toBe(400);
    expect(await noScope.text()).toContain('none of the scopes');
  });
});
