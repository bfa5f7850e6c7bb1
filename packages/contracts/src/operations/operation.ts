import type { TObject, TSchema } from '@sinclair/typebox';
import type { Permission, Role } from '../permissions.ts';

/**
 * An operation's exposure on the tool-protocol endpoint (/mcp, docs/mcp.md): the tool's name, title
 * and description. Its input schema is the operation's own validation (path ids, query and body), its
 * hints follow from the method (GET reads only; GET and PATCH are idempotent); `destructive` marks a
 * write that overwrites data already there (updates), which an assistant should confirm first.
 */
export interface ToolExposure {
  name: string;
  title: string;
  description: string;
  destructive?: boolean;
}

/**
 * One public operation of the API (a method on a path), declared once: the gateway's router,
 * authorization and validation, the MCP tools, the OpenAPI document and every backend's rule
 * enforcement read it (docs/adding-a-resource.md). Its handler, when it needs one of its own, is
 * the gateway's; the common shapes are derived from the method, the path and the RPC.
 */
export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under /api/v1 with :params. */
  path: string;
  summary: string;
  tag: string;
  /**
   * The backend RPC the operation runs, `package.Service/Method` as the generated descriptors name
   * it (`cluster.core.v1.EntryService/CreateEntry`); the process that serves it follows from the
   * package (`cluster.<backend>.v1`). None for an operation the gateway answers itself.
   */
  operation?: string;
  permission?: Permission;
  /** Role gate on the key's creating user, on top of the permission. */
  roles?: readonly Role[];
  /** Organization-wide operation: a project-scoped key gets 403 scope_violation. */
  orgKeyOnly?: boolean;
  /** Whether, and as which tool, the operation is offered to AI assistants on /mcp; `false`: not a tool. */
  tool: ToolExposure | false;
  body?: TSchema;
  query?: TObject;
  response: {
    status: number;
    schema?: TSchema;
    description?: string;
    /** The answer's media type when it is not JSON: `text/event-stream` (a stream, written as it comes). */
    contentType?: 'text/event-stream';
    /** An upsert: 201 when the backend created the record, 200 when an existing one matched. */
    upsert?: true;
  };
}
