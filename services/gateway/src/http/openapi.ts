import type { TSchema } from '@sinclair/typebox';
import { ErrorBody } from '@cluster/contracts';
import type { RouteContract } from './route.ts';

const clean = (s: TSchema | undefined): unknown => (s ? JSON.parse(JSON.stringify(s)) : undefined);

/** The OpenAPI 3.1 document, generated from the same route table that validates requests. */
export function buildOpenApi(routes: readonly RouteContract[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: clean(ErrorBody) } } });
  for (const r of routes) {
    const oaPath = `/api/v1${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`;
    const params: unknown[] = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string', format: 'uuid' },
    }));
    for (const [name, schema] of Object.entries(r.query?.properties ?? {}))
      params.push({ name, in: 'query', required: false, schema: clean(schema) });
    if (r.method === 'POST') {
      params.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      });
    }
    const notes = [
      r.permission ? `Permission: \`${r.permission}\`.` : undefined,
      r.roles ? `Role of the key's creating user: ${r.roles.join(', ')}.` : undefined,
      r.orgKeyOnly ? 'Organization-scoped keys only (a project key gets 403 scope_violation).' : undefined,
    ]
      .filter(Boolean)
      .join(' ');
    (paths[oaPath] ??= {})[r.method.toLowerCase()] = {
      summary: r.summary,
      description: notes || undefined,
      tags: [r.tag],
      operationId: `${r.method.toLowerCase()}${r.path.replace(/[/:-](\w)/g, (_, c: string) => c.toUpperCase())}`,
      parameters: params,
      requestBody: r.body
        ? {
            required: r.method !== 'POST' || !r.path.endsWith('/test'),
            content: { 'application/json': { schema: clean(r.body) } },
          }
        : undefined,
      responses: {
        [r.response.status]: {
          description: r.response.description ?? 'OK',
          content: r.response.schema ? { 'application/json': { schema: clean(r.response.schema) } } : undefined,
        },
        400: errorResponse('validation_error'),
        401: errorResponse('missing_key, invalid_key or key_revoked'),
        403: errorResponse('forbidden or scope_violation'),
        404: errorResponse('not_found'),
        ...(r.body ? { 415: errorResponse('unsupported_media_type: a body declared as anything but application/json') } : {}),
        429: errorResponse('rate_limit'),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Developer API', version: '1.0.0', description: 'Public developer API v1 (see docs/).' },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
    security: [{ bearer: [] }, { apiKey: [] }],
    paths,
  };
}
