import { describe, expect, it } from 'vitest';
import { jsonBytes, jsonPage } from '@cluster/platform';
import { list, ok, upserted } from './results.ts';

const text = (body: Uint8Array | undefined) => Buffer.from(body ?? []).toString();

describe('route results from JSON bytes', () => {
  it('answers a resource with the backend bytes themselves', () => {
    const resource = jsonBytes({ id: 'p1', name: 'Ünïcode ✓' });
    expect(ok(resource)).toEqual({ status: 200, body: resource });
    expect(ok(resource).body).toBe(resource);
    expect(upserted({ resource, created: true }).status).toBe(201);
    expect(upserted({ resource, created: false }).status).toBe(200);
  });

  it('assembles the list answer around the page array without parsing it, in the order the spec shows', () => {
    const rows = [
      { id: 'e1', title: 'A "quoted" title' },
      { id: 'e2', tags: ['x'], nested: { n: null } },
    ];
    const page = jsonPage({ data: rows, page: 2, pageSize: 2, total: 7 });
    const body = text(list(page).body);
    expect(body).toBe(JSON.stringify({ data: rows, page: 2, pageSize: 2, total: 7 }));
    expect(text(list(jsonPage({ data: [], page: 1, pageSize: 25, total: 0 })).body)).toBe(
      '{"data":[],"page":1,"pageSize":25,"total":0}',
    );
  });

  it('refuses bytes a backend did not set (an older backend, or a bug) instead of answering an empty or broken 200', () => {
    const empty = new Uint8Array();
    expect(() => ok(empty)).toThrow('a backend answered without its JSON');
    expect(() => upserted({ resource: empty, created: true })).toThrow('a backend answered without its JSON');
    expect(() => list({ data: empty, page: 1, pageSize: 25, total: 0 })).toThrow('a backend answered without its JSON');
  });
});
