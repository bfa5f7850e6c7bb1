import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolExposure } from '@cluster/contracts';
import type { RouteDef } from '../http/route.ts';

/** A tool of the tool-protocol endpoint: a route's `tool` exposure with the route's method and path. */
export type ToolSpec = ToolExposure & Pick<RouteDef, 'method' | 'path'>;

/**
 * The tools of /mcp, in the operation table's order: every operation declared with a `tool`. A
 * tool is the route itself in another envelope: the same permission check, validation and handler
 * (so the same core operation, audit record and domain event) as the REST call. Two routes may
 * not share a tool name.
 */
export function toolRoutes(routes: readonly RouteDef[]): { spec: ToolSpec; route: RouteDef }[] {
  const seen = new Set<string>();
  return routes.flatMap((route) => {
    if (!route.tool) return [];
    if (seen.has(route.tool.name)) throw new Error(`two routes declare the tool ${route.tool.name}`);
    seen.add(route.tool.name);
    return [{ spec: { ...route.tool, method: route.method, path: route.path }, route }];
  });
}

/** The page size of a list tool called without `pageSize` (REST's default is 25): a model reads every byte. */
export const TOOL_PAGE_SIZE = 10;

/** What the endpoint tells a model when it connects (the initialize answer's `instructions`). */
export const INSTRUCTIONS = [
  'Tools of a client-feedback and project-management platform: projects hold entries (bugs, feature requests, tasks),',
  'releases, time entries and wiki pages. Start with whoami (who the key acts for and what it may do) and list_projects;',
  'most tools take the id of a project, entry or release from an earlier answer. Every tool is a REST operation of',
  '/api/v1 under the same rules: only the tools this key may call are listed, writes are audited and emit events.',
  'Lists answer a page (10 items unless pageSize says otherwise) with pagination; a hint says how to get the next.',
  'A failed call answers isError with {reason, message, details}: validation_error details point at the argument.',
].join(' ');

/**
 * The outputSchema of a route's tool: its answer's schema, when the answer is a JSON object (not for
 * 204s). The one format of ours that standard JSON Schema tools do not know (`date-or-date-time`) is
 * left out: a client's validator would refuse or ignore it.
 */
export function outputSchemaOf(route: RouteDef): { outputSchema?: Tool['outputSchema'] } {
  const schema = route.response.schema;
  if (!schema || route.response.status === 204) return {};
  const plain = JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    key === 'format' && value === 'date-or-date-time' ? undefined : value,
  ) as Record<string, unknown>;
  return plain.type === 'object' ? { outputSchema: plain as Tool['outputSchema'] } : {};
}

/** For a list answer (`{data, page, pageSize, total}`) with more pages: a line telling the model how to get the next one. */
export function listHint(tool: string, args: Record<string, unknown>, answer: Record<string, unknown>): string | undefined {
  const { page, pageSize, total } = answer;
  if (typeof page !== 'number' || typeof pageSize !== 'number' || typeof total !== 'number' || pageSize < 1) return undefined;
  const pages = Math.ceil(total / pageSize);
  if (page >= pages) return undefined;
  const next = { ...args, page: page + 1 };
  return `Page ${page} of ${pages} (${total} items): call ${tool} with ${JSON.stringify(next)} for the next.`;
}
