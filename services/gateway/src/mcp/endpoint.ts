import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Next } from 'koa';
import { PERMISSIONS } from '@cluster/contracts';
import { DomainError, allows, createAjv, fromConnectError, toProblems, validation, type Logger } from '@cluster/platform';
import type { Clients } from '../clients.ts';
import type { Authenticator } from '../http/authenticate.ts';
import { readRequestBody } from '../http/body.ts';
import { nameRequest, type GatewayContext } from '../http/context.ts';
import { runOperation } from '../http/pipeline.ts';
import { enforceRateLimit, type RateLimiter } from '../http/rate-limit.ts';
import type { RouteDef } from '../http/route.ts';
import { INSTRUCTIONS, listHint, outputSchemaOf, TOOL_PAGE_SIZE, toolRoutes } from './tools.ts';
import { toolInput, type ToolInput } from './tool-input.ts';

/** Settings of the tool-protocol endpoint (gateway config: MCP_ALLOWED_ORIGINS, PRIVACY_POLICY_URL, ...). */
export interface McpSettings {
  /** Origins a browser may call /mcp from; a request without Origin (server to server) is always allowed. */
  allowedOrigins: readonly string[];
  /** Loopback origins allowed too (development default, config.ts). */
  allowLoopbackOrigins?: boolean;
  privacyPolicyUrl: string;
  /** OAuth authorization servers of the protected-resource metadata (none: the gateway's own, mcp/oauth.ts). */
  authorizationServers: readonly string[];
  /**
   * This gateway's public origin. Unset only in development (config.ts requires it elsewhere): then
   * the request's Host, when it is a loopback host (developmentBaseUrl).
   */
  publicBaseUrl?: string;
}

/**
 * A JSON-RPC batch (issue 37): at most this many messages, each one unit of the key's rate limit, paid
 * before any runs; their answers together at most MCP_BATCH_ANSWER_BYTES (a message whose answer would
 * pass it is answered with an error instead). A lone message answers what its route answers.
 */
export const MCP_BATCH_MAX_MESSAGES = 20;
export const MCP_BATCH_ANSWER_BYTES = 1024 * 1024;

export const MCP_PATH = '/mcp';
export const PRIVACY_PATH = '/mcp/privacy';
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** A tool of the endpoint: what it advertises, the route it runs, and its argument check. */
interface RouteTool {
  tool: Tool;
  route: RouteDef;
  input: ToolInput;
  check: (args: unknown) => boolean;
  errors: () => ReturnType<typeof toProblems>;
}

/**
 * The tool-protocol endpoint (Model Context Protocol, Streamable HTTP) with the official SDK's
 * server and transport, stateless: a server and transport per HTTP request (docs/decisions.md).
 * Order of refusals: an Origin outside the allow-list 403 before anything else; no, a bad or a
 * revoked key 401 with WWW-Authenticate pointing at the protected-resource metadata (a key that
 * fails counts against the address's failure limit, as on the REST API); then the key's rate limit
 * for the request, whatever its method (429), and once more for each message after the first of a batch
 * (at most MCP_BATCH_MAX_MESSAGES, else 400), all before any runs; then per tool call its permissions and
 * scope and the arguments, as tool errors. A batch's answers are bounded together (MCP_BATCH_ANSWER_BYTES).
 */
export function createMcpEndpoint(deps: {
  routes: readonly RouteDef[];
  clients: Clients;
  authenticator: Authenticator;
  limiter: RateLimiter;
  settings: McpSettings;
  logger: Logger;
}) {
  const { settings } = deps;
  const ajv = createAjv();
  const tools: RouteTool[] = [];
  for (const { spec, route } of toolRoutes(deps.routes)) {
    const input = toolInput(route);
    const validate = ajv.compile(input.schema);
    tools.push({
      route,
      input,
      check: (args) => validate(args),
      errors: () => toProblems(validate.errors),
      tool: {
        name: spec.name,
        title: spec.title,
        description: `${spec.description} (${spec.method} /api/v1${spec.path}${route.permission ? `; needs ${route.permission}` : ''})`,
        inputSchema: input.schema as Tool['inputSchema'],
        ...outputSchemaOf(route),
        annotations: {
          title: spec.title,
          readOnlyHint: spec.method === 'GET',
          destructiveHint: spec.method !== 'GET' && spec.destructive === true,
          idempotentHint: spec.method === 'GET' || spec.method === 'PATCH',
          openWorldHint: false,
        },
      },
    });
  }

  const baseUrl = (ctx: GatewayContext) => settings.publicBaseUrl?.replace(/\/$/, '') ?? developmentBaseUrl(ctx);
  const metadataUrl = (ctx: GatewayContext) => `${baseUrl(ctx)}${METADATA_PATH}`;

  /**
   * The tools `auth`'s key may call: those whose operation's rule admits its actor (permission, scope,
   * roles), only the reads when the connection asks for `?mode=read-only`.
   */
  function toolsFor(auth: Awaited<ReturnType<Authenticator['authenticate']>>, readOnly: boolean): RouteTool[] {
    return tools.filter((t) => allows(t.route, auth.actor) && (!readOnly || t.route.method === 'GET'));
  }

  /**
   * Runs one tool call through the REST call's pipeline (runOperation): `charge` is its rate limit, the
   * arguments its input. A tool the credential was not offered is a JSON-RPC error (invalid params), as
   * the protocol has it for an unknown tool; what goes wrong once it runs is a tool result with isError.
   */
  async function call(
    auth: Awaited<ReturnType<Authenticator['authenticate']>>,
    offered: readonly RouteTool[],
    readOnly: boolean,
    charge: () => Promise<void>,
    name: string,
    args: unknown,
  ): Promise<CallToolResult> {
    const found = offered.find((t) => t.tool.name === name);
    if (!found) throw new McpError(ErrorCode.InvalidParams, whyNotOffered(name, auth, readOnly));
    const given = { ...((args ?? {}) as Record<string, unknown>) };
    // A list answers a short page unless asked for more: a model reads every byte of it.
    const accepted = found.input.schema.properties as Record<string, unknown>;
    if ('pageSize' in accepted && given.pageSize === undefined) given.pageSize = TOOL_PAGE_SIZE;
    try {
      const result = await runOperation(
        {
          route: found.route,
          auth,
          rateLimit: charge,
          async decode() {
            if (!found.check(given)) throw validation(found.errors());
            return found.input.split(given);
          },
        },
        deps.clients,
      );
      const text = result.body ? Buffer.from(result.body).toString('utf8') : '';
      const structured = text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      const hint = structured && listHint(name, given, structured);
      return {
        content: [
          { type: 'text', text: text || JSON.stringify({ status: result.status }) },
          ...(hint ? [{ type: 'text' as const, text: hint }] : []),
        ],
        ...(structured ? { structuredContent: structured } : {}),
      };
    } catch (err) {
      const known = err instanceof DomainError ? err : fromConnectError(err);
      if (!known) {
        deps.logger.error({ err, tool: name }, 'tool call failed');
        return toolError({ reason: 'internal_error', message: 'internal error' });
      }
      if (known.status === 401) throw known; // the key was revoked meanwhile: the whole request is refused
      return toolError({ reason: known.reason, message: known.message, ...(known.details ? { details: known.details } : {}) });
    }
  }

  /** Why `name` is not among the tools offered: unknown, a write on a read-only connection, or what the key lacks. */
  function whyNotOffered(name: string, auth: Awaited<ReturnType<Authenticator['authenticate']>>, readOnly: boolean): string {
    const tool = tools.find((t) => t.tool.name === name);
    if (!tool) return `no tool named ${name}`;
    if (readOnly && tool.route.method !== 'GET') return `${name} writes, and this connection is read-only (mode=read-only)`;
    const { route } = tool;
    if (route.orgKeyOnly && auth.actor.scope === 'project') return `${name} needs an organization-scoped key`;
    if (route.permission && !auth.actor.permissions.includes(route.permission))
      return `${name} needs the permission ${route.permission}, which this key does not have`;
    return `${name} needs the role ${(route.roles ?? []).filter((r) => r !== 'platform_admin').join(' or ')}`;
  }

  async function serveMcp(ctx: GatewayContext): Promise<void> {
    let auth;
    try {
      auth = await deps.authenticator.authenticate(ctx, { fresh: true, accessTokens: true });
    } catch (err) {
      if (err instanceof DomainError && err.status === 401)
        ctx.set('WWW-Authenticate', `Bearer resource_metadata="${metadataUrl(ctx)}"`);
      throw err;
    }
    // Every authenticated request counts against the key, whatever its method (initialize, tools/list,
    // ping, notifications): none is free to flood with. The request's own hit pays for its first message;
    // each further message of a batch is one more, all paid before any runs (a batch over the limit is 429).
    await enforceRateLimit(ctx, deps.limiter, auth.actor.apiKeyId);
    const json = ctx.method === 'POST' ? (await readRequestBody(ctx)).json : undefined;
    const messages = Array.isArray(json) ? json.length : 1;
    if (messages > MCP_BATCH_MAX_MESSAGES) {
      throw validation([{ path: '', message: `a batch holds at most ${MCP_BATCH_MAX_MESSAGES} messages` }]);
    }
    for (let paid = 1; paid < messages; paid++) await enforceRateLimit(ctx, deps.limiter, auth.actor.apiKeyId);
    // Each tool call is a message, paid above: its operation's own charge is free.
    const charge = async () => {};
    // A batch's answers share one bound; a message whose answer would pass it is answered with an error.
    let answerBytes = 0;
    const bounded = <T extends object>(answer: T, tooLarge: () => T): T => {
      if (messages === 1) return answer;
      const size = Buffer.byteLength(JSON.stringify(answer));
      if (answerBytes + size > MCP_BATCH_ANSWER_BYTES) return tooLarge();
      answerBytes += size;
      return answer;
    };
    const tooLarge = `the batch's answers would pass ${MCP_BATCH_ANSWER_BYTES} bytes: send this message on its own`;

    const readOnly = ctx.query.mode === 'read-only';
    const offered = toolsFor(auth, readOnly);
    const server = new Server(
      { name: 'feedback-api', version: '1.0.0' },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, () =>
      bounded({ tools: offered.map((t) => t.tool) }, () => {
        throw new McpError(ErrorCode.InvalidRequest, tooLarge);
      }),
    );
    server.setRequestHandler(CallToolRequestSchema, async (req) =>
      bounded(await call(auth, offered, readOnly, charge, req.params.name, req.params.arguments), () =>
        toolError({ reason: 'payload_too_large', message: tooLarge }),
      ),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(ctx.req, ctx.res, json);
  }

  /** Koa middleware: /mcp, /mcp/privacy and the protected-resource metadata; anything else goes on. */
  return async function mcpEndpoint(ctx: GatewayContext, next: Next): Promise<void> {
    if (ctx.path === METADATA_PATH && ctx.method === 'GET') {
      nameRequest(ctx, METADATA_PATH);
      ctx.body = {
        resource: `${baseUrl(ctx)}${MCP_PATH}`,
        // The gateway's own sign-in (oauth.ts) unless MCP_AUTHORIZATION_SERVERS names others.
        authorization_servers: settings.authorizationServers.length
          ? settings.authorizationServers
          : [new URL(baseUrl(ctx)).href],
        scopes_supported: [...PERMISSIONS],
        bearer_methods_supported: ['header'],
        resource_name: 'Feedback platform developer API (tool-protocol endpoint)',
        resource_documentation: `${baseUrl(ctx)}/api/v1/docs`,
        resource_policy_uri: settings.privacyPolicyUrl,
      };
      return;
    }
    if (ctx.path !== MCP_PATH && ctx.path !== PRIVACY_PATH) return void (await next());
    nameRequest(ctx, ctx.path);
    // DNS-rebinding protection: a browser page of another origin is refused before anything else.
    const origin = ctx.get('origin');
    if (origin && !settings.allowedOrigins.includes(origin) && !(settings.allowLoopbackOrigins && isLoopbackOrigin(origin)))
      throw new DomainError('forbidden', `origin ${origin} may not call the tool-protocol endpoint`);
    if (ctx.path === PRIVACY_PATH) {
      if (ctx.method !== 'GET') throw methodNotAllowed(ctx, 'GET');
      return ctx.redirect(settings.privacyPolicyUrl);
    }
    if (ctx.method !== 'POST') throw methodNotAllowed(ctx, 'POST');
    await serveMcp(ctx);
  };
}

function methodNotAllowed(ctx: GatewayContext, allow: string): DomainError {
  ctx.set('Allow', allow);
  return new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
}

/**
 * A tool result with isError: the REST error body as text. Not as structuredContent, which a client
 * checks against the tool's outputSchema (the answer's), error or not (the SDK's client does).
 */
function toolError(body: { reason: string; message: string; details?: unknown }): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/**
 * The base URL in development without PUBLIC_BASE_URL: the request's Host when it is a loopback host
 * (a local client's), otherwise localhost at the same port: a Host a client made up is never echoed
 * into the metadata or WWW-Authenticate (which would point an assistant at another server).
 */
export function developmentBaseUrl(ctx: GatewayContext): string {
  const host = ctx.host;
  if (LOOPBACK_HOST.test(host)) return `${ctx.protocol}://${host}`;
  const port = /:(\d+)$/.exec(host)?.[1];
  return `${ctx.protocol}://localhost${port ? `:${port}` : ''}`;
}

const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

/** `http(s)://localhost`, `127.0.0.1` or `[::1]`, with or without a port. */
function isLoopbackOrigin(origin: string): boolean {
  return /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin);
}
