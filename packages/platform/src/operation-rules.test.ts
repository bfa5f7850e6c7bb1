import { describe, expect, it } from 'vitest';
import { EntryCreate, EntryUpdate, OPERATIONS, type Operation } from '@cluster/contracts';
import { OPERATION_RULES, operationRules, RPC_METHODS, rpcOf } from './operation-rules.ts';

const find = (rpc: string): Operation => {
  const found = OPERATIONS.find((o) => o.operation === rpc);
  if (!found) throw new Error(`no operation runs ${rpc}`);
  return found;
};

describe('the operation table and the generated descriptors', () => {
  it('names, for every operation with an RPC, one the generated descriptors have', () => {
    for (const operation of OPERATIONS.filter((o) => o.operation))
      expect(RPC_METHODS.has(operation.operation!), `${operation.method} ${operation.path}: ${operation.operation}`).toBe(true);
    expect(RPC_METHODS.get('cluster.core.v1.EntryService/CreateEntry')?.input.typeName).toBe('cluster.common.v1.WriteRequest');
  });

  it('refuses an operation naming an RPC no descriptor has', () => {
    const made = { ...find('cluster.core.v1.EntryService/CreateEntry'), operation: 'cluster.core.v1.EntryService/CreateEntri' };
    expect(() => rpcOf(made)).toThrow(
      /POST \/projects\/:id\/entries: no generated RPC is cluster.core.v1.EntryService\/CreateEntri/,
    );
    expect(() => operationRules([made])).toThrow(/no generated RPC/);
  });
});

describe('the rules the backends enforce (OPERATION_RULES, folded from the table)', () => {
  it('cover every RPC an operation runs, with the operation’s permission and scope', () => {
    for (const operation of OPERATIONS.filter((o) => o.operation)) {
      const rule = OPERATION_RULES[operation.operation!];
      expect(rule, operation.operation).toBeDefined();
      expect(rule?.permission, `${operation.method} ${operation.path}`).toBe(operation.permission);
    }
    expect(Object.keys(OPERATION_RULES).every((rpc) => OPERATIONS.some((o) => o.operation === rpc))).toBe(true);
    expect(OPERATION_RULES['cluster.core.v1.ProjectService/CreateProject']).toMatchObject({ orgKeyOnly: true });
    expect(OPERATION_RULES['cluster.core.v1.ProjectService/DeleteProject']?.roles).toEqual(['admin', 'platform_admin']);
  });

  it('carry the body schema where the request carries the body as a Struct: the same schema, not a copy', () => {
    expect(OPERATION_RULES['cluster.core.v1.EntryService/CreateEntry']?.body).toBe(EntryCreate);
    for (const operation of OPERATIONS.filter((o) => o.operation && o.body))
      expect(OPERATION_RULES[operation.operation!]?.body, `${operation.method} ${operation.path}`).toBe(operation.body);
    // A list's query: its filters, which the list's query schema admits; a query the request carries otherwise has no rule.
    expect(OPERATION_RULES['cluster.core.v1.EntryService/ListEntries']?.query).toEqual(
      find('cluster.core.v1.EntryService/ListEntries').query,
    );
    expect(OPERATION_RULES['cluster.evidence.v1.EvidenceService/GetReleaseEvidence']?.query).toBeUndefined();
  });

  it('demand of an RPC that operations share only what all of them demand', () => {
    // GET /time-entries is organization-wide, GET /projects/:id/time-entries is not: the RPC is not.
    expect(OPERATION_RULES['cluster.core.v1.TimeEntryService/ListTimeEntries']?.orgKeyOnly).toBeUndefined();
    const list = find('cluster.core.v1.EntryService/ListEntries');
    expect(
      operationRules([list, { ...list, path: '/entries', orgKeyOnly: true }])['cluster.core.v1.EntryService/ListEntries'],
    ).not.toHaveProperty('orgKeyOnly');
  });

  it('refuse operations that share an RPC with different permissions, body or query schemas', () => {
    const create = find('cluster.core.v1.EntryService/CreateEntry');
    expect(() => operationRules([create, { ...create, path: '/entries', body: EntryUpdate }])).toThrow(
      /CreateEntry: its operations have different body schemas/,
    );
    expect(() => operationRules([create, { ...create, path: '/entries', permission: 'write:comment' }])).toThrow(
      /CreateEntry: its operations need different permissions/,
    );
    const list = find('cluster.core.v1.EntryService/ListEntries');
    expect(() =>
      operationRules([list, { ...list, path: '/entries', query: find('cluster.core.v1.ProjectService/ListProjects').query }]),
    ).toThrow(/ListEntries: its operations have different query schemas/);
  });
});
