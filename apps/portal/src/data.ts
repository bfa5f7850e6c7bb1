import { useQuery } from '@tanstack/react-query';
import { client } from './api.ts';
import type { EventType, Page, Webhook } from './types.ts';

/** The endpoints page's page size: the list pages through more. */
export const ENDPOINTS_PER_PAGE = 10;

/** One page of the endpoints; by default the first 100 (the most a page holds), for the other pages' pickers. */
export const useWebhooks = (page = 1, pageSize = 100) =>
  useQuery({
    queryKey: ['webhooks', page, pageSize],
    queryFn: async () =>
      (await client.request('get', '/api/v1/webhooks', { query: { page, pageSize } })) as unknown as Page<Webhook>,
    placeholderData: (previous) => previous,
  });

export const useCatalogue = () =>
  useQuery({
    queryKey: ['event-types'],
    queryFn: async () => (await client.request('get', '/api/v1/webhooks/event-types', {})) as unknown as Page<EventType>,
    staleTime: Infinity,
  });

/** An example value of a JSON Schema: the first enum value, a value by format, or a plain one. */
export function exampleOf(schema: Record<string, unknown>): unknown {
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, exampleOf(v)]));
    }
    case 'array':
      return [exampleOf((schema.items ?? {}) as Record<string, unknown>)];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'uuid') return '3f0c6d0e-8f0a-4c1e-9a59-0b0f3f7c1a2d';
      if (schema.format === 'date-time') return '2026-11-22T12:50:00.000Z';
      if (schema.format === 'date') return '2026-11-22';
      return 'example';
    default:
      return null;
  }
}
