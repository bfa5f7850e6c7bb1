import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '@cluster/contracts';

// docs/mcp.md's tool table is the operation table's tools (issue 36, item 5): a tool added, renamed
// or given another permission without its row fails here.
const PAGE = readFileSync(path.resolve(import.meta.dirname, '..', 'docs', 'mcp.md'), 'utf8');

describe('docs/mcp.md, "Tools"', () => {
  it('has one row per tool of the operation table, with its title, route, permission and hints', () => {
    const section = PAGE.split(/^## /m).find((s) => s.startsWith('Tools'));
    const rows = [
      ...(section ?? '').matchAll(
        /^\| `(\w+)` \| (.+?) \| `(\w+) \/api\/v1(\S+)` \| (\S+) \| (true|false) \| (true|false) \|$/gm,
      ),
    ]
      .map((m) => m.slice(1).join(' | '))
      .sort();
    const tools = OPERATIONS.flatMap((o) =>
      o.tool
        ? [
            [
              o.tool.name,
              o.tool.title,
              o.method,
              o.path,
              o.permission ?? '-',
              String(o.method === 'GET'),
              String(o.tool.destructive === true),
            ].join(' | '),
          ]
        : [],
    ).sort();
    expect(tools.length).toBeGreaterThan(20);
    expect(rows).toEqual(tools);
  });
});
