// `npm run new-resource -- <plural> [--parent projects|entries] [--fields name:string,color:string]`:
// adds a REST resource end to end in the shape docs/adding-a-resource.md describes, so that the
// result compiles, its unit test passes and it is on REST, /mcp (list and create as tools), the
// OpenAPI document and the event catalogue at once. It writes the new files and adds one line (or
// one entry) at each registration point, then prints what it touched; what is left is the
// resource's own rules, which the page lists as the hand-edited files.
//
// Field types: string (required, non-empty text), text (optional, nullable text), integer
// (required), boolean (required). `--root <dir>` writes into another checkout (the test does).
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';

const FIELD_TYPES = {
  string: { schema: 'NonEmptyString', column: 'text', required: true },
  text: { schema: 'NullableString', column: 'text', required: false },
  integer: { schema: 'Type.Integer()', column: 'integer', required: true },
  boolean: { schema: 'Type.Boolean()', column: 'boolean', required: true },
} as const;
type FieldType = keyof typeof FIELD_TYPES;
interface Field {
  name: string;
  type: FieldType;
}

/** What a resource lives under: the parent's path, its row's loader in the core and the columns it gives. */
const PARENTS = {
  projects: {
    loader: `import { projectInScope } from '../projects/scope.ts';`,
    /** Loads the parent in a list (no lock) or a create (locked while the child is written). */
    load: (stores: string, lock: boolean) =>
      `projectInScope(${stores}.projects, actor, parentId${lock ? ', { lock: true }' : ''})`,
    columns: ['projectId'],
    values: (parent: string) => `projectId: ${parent}.id`,
  },
  entries: {
    loader: `import { visibleEntry } from '../entries/scope.ts';`,
    load: (stores: string, lock: boolean) => `visibleEntry(${stores}.entries, actor, parentId${lock ? `, 'share'` : ''})`,
    columns: ['entryId', 'projectId'],
    values: (parent: string) => `entryId: ${parent}.id, projectId: ${parent}.projectId`,
  },
} as const;
type Parent = keyof typeof PARENTS;

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    parent: { type: 'string', default: 'projects' },
    fields: { type: 'string', default: 'name:string' },
    root: { type: 'string', default: path.resolve(import.meta.dirname, '..') },
  },
});
const plural = positionals[0];
if (!plural || !/^[a-z]+(-[a-z]+)*s$/.test(plural))
  fail('usage: npm run new-resource -- <plural, kebab-case, ending in s> [--parent projects|entries] [--fields name:string,...]');
if (!(opts.parent in PARENTS)) fail(`--parent: one of ${Object.keys(PARENTS).join(', ')}`);
const parent = PARENTS[opts.parent as Parent];
const fields: Field[] = opts.fields.split(',').map((spec) => {
  const [name, type] = spec.split(':');
  if (!/^[a-z][A-Za-z]*$/.test(name ?? '') || !(type in FIELD_TYPES))
    fail(`--fields: ${spec} is not name:${Object.keys(FIELD_TYPES).join('|')}`);
  return { name, type: type as FieldType };
});
const ROOT = opts.root;

// The names of the resource, from its plural: labels -> label, Label, LABEL, labels (camel), labels (table).
const singular = plural.replace(/ies$/, 'y').replace(/s$/, '');
const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const pascal = (s: string) => camel(s).replace(/^[a-z]/, (c) => c.toUpperCase());
const N = {
  plural, // labels (path, folder)
  singular, // label
  Pascal: pascal(singular), // Label
  Plural: pascal(plural), // Labels
  camelPlural: camel(plural), // labels (store key)
  camel: camel(singular), // label
  CONST: singular.replace(/-/g, '_').toUpperCase(), // LABEL
  table: plural.replace(/-/g, '_'), // labels
  entity: singular.replace(/-/g, '_'), // label (entityType, permission and event prefix)
  parentPath: opts.parent,
  parentSingular: opts.parent.replace(/ies$/, 'y').replace(/s$/, ''),
};
const titleField = fields.find((f) => f.type === 'string')?.name;

function fail(message: string): never {
  process.stderr.write(`new-resource: ${message}\n`);
  process.exit(2);
}

const touched: { file: string; how: 'new' | 'edited' }[] = [];
function create(file: string, text: string) {
  const full = path.join(ROOT, file);
  if (existsSync(full)) fail(`${file} exists already`);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
  touched.push({ file, how: 'new' });
}
/** Edits a registration point: `edit` gets the file's text and returns it changed; unchanged is a bug of this script. */
function edit(file: string, change: (text: string) => string) {
  const full = path.join(ROOT, file);
  const before = readFileSync(full, 'utf8');
  const after = change(before);
  if (after === before) fail(`${file}: its registration point was not found (has the file changed shape?)`);
  writeFileSync(full, after);
  touched.push({ file, how: 'edited' });
}
/** Inserts `line` before the first match of `anchor` (a line that closes a list, or the next declaration). */
const before = (anchor: RegExp, line: string) => (text: string) => {
  const m = anchor.exec(text);
  return m ? text.slice(0, m.index) + line + text.slice(m.index) : text;
};
/** Appends `line` after the last line matching `pattern`. */
const afterLast = (pattern: RegExp, line: string) => (text: string) => {
  const lines = text.split('\n');
  let i = lines.length - 1;
  while (i >= 0 && !pattern.test(lines[i])) i--;
  if (i < 0) return text;
  lines.splice(i + 1, 0, line);
  return lines.join('\n');
};

const parentColumns = parent.columns;
const q = (s: string) => `'${s}'`;

// ---------------------------------------------------------------- contract

create(
  `packages/contracts/src/resources/${plural}.ts`,
  `import { Type, type Static } from '@sinclair/typebox';
import { Body, DateTime, ${fields.some((f) => f.type === 'text') ? 'NullableString, ' : ''}Uuid, fieldsOf } from './common.ts';
${fields.some((f) => f.type === 'string') ? "import { NonEmptyString } from './external-ref.ts';\n" : ''}
/** Every field a ${N.singular} body may set, with its rules, in the order of \`changedFields\`: each written once, here. */
const ${N.camel}Fields = {
${fields.map((f) => `  ${f.name}: ${FIELD_TYPES[f.type].schema},`).join('\n')}
};

/** POST /${N.parentPath}/:id/${N.plural} body. */
export const ${N.Pascal}Create = Body(${N.camel}Fields, {
  required: [${fields
    .filter((f) => FIELD_TYPES[f.type].required)
    .map((f) => q(f.name))
    .join(', ')}],
  description: '${N.Pascal} create body',
});
export type ${N.Pascal}CreateBody = Static<typeof ${N.Pascal}Create>;

/** PATCH /${N.plural}/:id body. */
export const ${N.Pascal}Update = Body(${N.camel}Fields, { description: '${N.Pascal} update: only supplied fields change' });
export type ${N.Pascal}UpdateBody = Static<typeof ${N.Pascal}Update>;

/** The columns a ${N.singular} body may set, in the order of \`changedFields\`: the update body's fields. */
export const ${N.CONST}_WRITABLE_FIELDS = fieldsOf(${N.Pascal}Update);

/** A ${N.singular} of ${N.parentSingular === 'project' ? 'a project' : `an ${N.parentSingular}`}: its ids, every body field, its timestamps. */
export const ${N.Pascal} = Type.Object(
  {
    id: Uuid,
${parentColumns.map((c) => `    ${c}: Uuid,`).join('\n')}
    ...${N.camel}Fields,
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: false },
);
/** Every field of a ${N.singular} answer, in order (what the presenter gives). */
export const ${N.CONST}_FIELDS = fieldsOf(${N.Pascal});
`,
);
edit(
  'packages/contracts/src/index.ts',
  afterLast(/^export \* from '\.\/resources\//, `export * from './resources/${plural}.ts';`),
);
edit('packages/contracts/src/permissions.ts', (text) => {
  let out = before(
    /\] as const;\nexport type Permission\b/,
    `  'read:${N.entity}',\n  'write:${N.entity}',\n  'delete:${N.entity}',\n`,
  )(text);
  // Readers from the client role up, writers from the developer role up (change it in this file, and say why in docs/).
  out = before(/\];\nconst USER: Permission\[\]/, `  'read:${N.entity}',\n`)(out);
  out = before(/\];\nconst MANAGER: Permission\[\]/, `  'write:${N.entity}',\n  'delete:${N.entity}',\n`)(out);
  return out;
});
edit(
  'packages/contracts/src/events.ts',
  before(
    /\] as const;\nexport type EventName\b/,
    `  '${N.entity}.created',\n  '${N.entity}.updated',\n  '${N.entity}.deleted',\n`,
  ),
);
edit('packages/contracts/src/event-catalogue.ts', (text) => {
  const base = `{ ${N.camel}Id: Id, ${parentColumns.map((c) => `${c}: Id`).join(', ')}, organizationId: Id${titleField ? `, ${titleField}: Text` : ''} }`;
  const defs = (['created', 'updated', 'deleted'] as const)
    .map((action) => {
      const route = {
        created: `POST /${N.parentPath}/:id/${N.plural}`,
        updated: `PATCH /${N.plural}/:id`,
        deleted: `DELETE /${N.plural}/:id`,
      }[action];
      const payload =
        action === 'updated' ? `Payload({ ...${N.camel}Base, changedFields: ChangedFields })` : `Payload(${N.camel}Base)`;
      const when = action === 'updated' ? ' when a field really changed' : '';
      return `  '${N.entity}.${action}': {\n    group: '${N.entity}',\n    entityType: '${N.entity}',\n    description: '\`${route}\`${when}.',\n    payload: ${payload},\n  },\n`;
    })
    .join('');
  let out = before(/\} satisfies Record<string, EventDefinition>;/, defs)(text);
  out = before(
    /\n\/\*\* The vocabulary's groups/,
    `\n/** Fields of every ${N.entity}.* event. */\nconst ${N.camel}Base = ${base};\n`,
  )(out);
  out = before(/ {2}project: 'internal',\n\};/, `  ${N.entity}: '${N.entity}',\n`)(out);
  // The resource's own section of docs/events.md, before the internal one.
  out = before(
    / {2}\{\n {4}id: 'internal',/,
    `  {\n    id: '${N.entity}',\n    title: '${N.Plural}',\n    intro: 'Source: \`features/${plural}/service.ts\`. Envelope \`projectId\`: the project of the ${N.singular.replace(/-/g, ' ')}.',\n  },\n`,
  )(out);
  return out;
});

// ---------------------------------------------------------------- protobuf service

create(
  `proto/cluster/core/v1/${N.table}.proto`,
  `syntax = "proto3";

package cluster.core.v1;

import "cluster/common/v1/resource.proto";

// ${N.Plural} of ${N.parentPath}: the generic messages of resource.proto (docs/adding-a-resource.md).
service ${N.Pascal}Service {
  rpc List${N.Plural}(cluster.common.v1.ListRequest) returns (cluster.common.v1.ListResponse);
  rpc Create${N.Pascal}(cluster.common.v1.WriteRequest) returns (cluster.common.v1.ResourceResponse);
  rpc Get${N.Pascal}(cluster.common.v1.GetRequest) returns (cluster.common.v1.ResourceResponse);
  rpc Update${N.Pascal}(cluster.common.v1.WriteRequest) returns (cluster.common.v1.ResourceResponse);
  rpc Delete${N.Pascal}(cluster.common.v1.DeleteRequest) returns (cluster.common.v1.DeleteResponse);
}
`,
);
edit(
  'packages/proto/src/index.ts',
  afterLast(/^export \* from '\.\/gen\/cluster\/core\//, `export * from './gen/cluster/core/v1/${N.table}_pb.ts';`),
);

// ---------------------------------------------------------------- migration

const migrationsDir = path.join(ROOT, 'services/core/src/migrations');
const numbers = readdirSync(migrationsDir).flatMap((f) => (/^(\d{3})-/.exec(f) ? [Number(/^(\d{3})-/.exec(f)![1])] : []));
const migrationName = `${String(Math.max(...numbers) + 1).padStart(3, '0')}-${plural}`;
const migrationConst = camel(`add-${plural}`);
create(
  `services/core/src/migrations/${migrationName}.ts`,
  `import type { Knex, Migration } from '@cluster/db';

/** ${N.Plural} of ${N.parentPath}. */
export const ${migrationConst}: Migration = {
  name: '${migrationName}',
  async up(knex: Knex) {
    await knex.schema.createTable('${N.table}', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
${parentColumns.map((c) => `      t.uuid('${c}').notNullable().references('id').inTable('${c === 'projectId' ? 'projects' : 'entries'}').onDelete('CASCADE');`).join('\n')}
${fields.map((f) => `      t.${FIELD_TYPES[f.type].column}('${f.name}')${FIELD_TYPES[f.type].required ? '.notNullable()' : ''};`).join('\n')}
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['${parentColumns[0]}', 'createdAt', 'id']); // the list order
    });
  },
};
`,
);
edit('services/core/src/migrations/index.ts', (text) =>
  before(
    /\n\];/,
    `\n  ${migrationConst},`,
  )(afterLast(/^import .* from '\.\/\d{3}-/, `import { ${migrationConst} } from './${migrationName}.ts';`)(text)),
);

// ---------------------------------------------------------------- core feature

const feature = `services/core/src/features/${plural}`;
/** The generated feature's import path to the core's shared modules (services/core/src/shared). */
const SHARED = path.posix.relative(feature, 'services/core/src/shared');
const rowType = `${N.Pascal}Row`;
const parentKey = parentColumns[0];
create(
  `${feature}/store.ts`,
  `import type { ${N.Pascal}, RowOf } from '@cluster/contracts';
import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findRow, type RowLock } from '${SHARED}/find-by-id.ts';
import { columnValues, type Values } from '${SHARED}/rows.ts';

/** A ${N.singular} row: every field of its answer (timestamps as Dates), and the organization it belongs to. */
export type ${rowType} = RowOf<typeof ${N.Pascal}> & { organizationId: string };

/** ${N.Plural} in Postgres: all SQL of the feature. */
export interface ${N.Pascal}Store {
  /** One page of the ${N.plural} of a${/^[aeiou]/.test(N.parentSingular) ? 'n' : ''} ${N.parentSingular}, newest first. */
  list(${parentKey}: string, page: PageArgs): Promise<Page<${rowType}>>;
  /** A ${N.singular} by id, in any organization (the service checks visibility); non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: RowLock }): Promise<${rowType} | undefined>;
  insert(values: Values<${rowType}>): Promise<${rowType}>;
  update(id: string, values: Values<${rowType}>): Promise<${rowType}>;
  remove(id: string): Promise<void>;
}

/** The knex implementation of ${N.Pascal}Store. */
export function create${N.Pascal}Store(db: Knex): ${N.Pascal}Store {
  return {
    list: (${parentKey}, page) => paginate<${rowType}>(db<${rowType}>('${N.table}').where({ ${parentKey} }), page),
    find: (id, opts = {}) => findRow(db<${rowType}>('${N.table}'), id, opts.lock),
    async insert(values) {
      const [row] = await db<${rowType}>('${N.table}').insert(columnValues(values)).returning('*');
      return row;
    },
    async update(id, values) {
      const [row] = await db<${rowType}>('${N.table}')
        .where({ id })
        .update({ ...columnValues(values), updatedAt: db.fn.now() })
        .returning('*');
      return row;
    },
    async remove(id) {
      await db<${rowType}>('${N.table}').where({ id }).del();
    },
  };
}
`,
);
create(
  `${feature}/fake-store.ts`,
  `import { createFakeTable } from '${SHARED}/fake-table.ts';
import type { ${rowType}, ${N.Pascal}Store } from './store.ts';

/** An in-memory ${N.Pascal}Store for unit tests of the rules (no Postgres). */
export function createFake${N.Pascal}Store(): ${N.Pascal}Store & { rows: ${rowType}[] } {
  const table = createFakeTable<${rowType}>({});
  return {
    rows: table.rows,
    list: async (${parentKey}, page) => table.page((r) => r.${parentKey} === ${parentKey}, page),
    ...table.methods,
  };
}
`,
);
create(
  `${feature}/presenter.ts`,
  `import type { JsonObject } from '@bufbuild/protobuf';
import { ${N.CONST}_FIELDS } from '@cluster/contracts';
import { presentFields } from '${SHARED}/present.ts';
import type { ${rowType} } from './store.ts';

/** What leaves the core for a ${N.singular}: the fields of its contract (${N.CONST}_FIELDS), never an internal column. */
export function present${N.Pascal}(row: ${rowType}): JsonObject {
  return presentFields(row, ${N.CONST}_FIELDS);
}
`,
);
create(
  `${feature}/events.ts`,
  `import type { ActorEvent } from '${SHARED}/write.ts';
import type { ${rowType} } from './store.ts';

/** A ${N.entity}.* event of \`row\` (payloads: docs/events.md, from the event catalogue). */
export function ${N.camel}Event(
  eventName: '${N.entity}.created' | '${N.entity}.updated' | '${N.entity}.deleted',
  row: ${rowType},
  extra: { changedFields?: string[] } = {},
): ActorEvent {
  return {
    eventName,
    entityType: '${N.entity}',
    entityId: row.id,
    projectId: row.projectId,
    payload: {
      ${N.camel}Id: row.id,
${parentColumns.map((c) => `      ${c}: row.${c},`).join('\n')}
      organizationId: row.organizationId,
${titleField ? `      ${titleField}: row.${titleField},\n` : ''}      ...extra,
    },
  };
}
`,
);
const audit = (action: string, extra = '') =>
  `{ entityType: '${N.entity}', action: '${action}', entityId: row.id, projectId: row.projectId${extra} }`;
create(
  `${feature}/service.ts`,
  `import { ${N.CONST}_WRITABLE_FIELDS, type ${N.Pascal}CreateBody, type ${N.Pascal}UpdateBody } from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { presentPage, requireActor, type PageArgs } from '@cluster/platform';
import { assertVisible } from '${SHARED}/access.ts';
import { changedFields, pickFields } from '${SHARED}/fields.ts';
import { apiWrite } from '${SHARED}/write.ts';
import type { Stores } from '../../stores.ts';
${parent.loader}
import { ${N.camel}Event } from './events.ts';
import { present${N.Pascal} } from './presenter.ts';

/** ${N.Plural} of ${N.parentPath}: the rules (visibility, audit, events); SQL is in the store. */
export function create${N.Pascal}Service(stores: Stores) {
  return {
    async list(actorIn: Actor | undefined, parentId: string, page: PageArgs) {
      const actor = requireActor(actorIn);
      const parent = await ${parent.load('stores', false)};
      return presentPage(await stores.${N.camelPlural}.list(parent.id, page), present${N.Pascal});
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return present${N.Pascal}(assertVisible(actor, await stores.${N.camelPlural}.find(id), '${N.singular}'));
    },

    async create(actorIn: Actor | undefined, parentId: string, body: ${N.Pascal}CreateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const parent = await ${parent.load('tx', true)};
        const row = await tx.${N.camelPlural}.insert({
          ...pickFields(body, ${N.CONST}_WRITABLE_FIELDS),
          ${parent.values('parent')},
          organizationId: actor.organizationId,
        });
        await tx.record(apiWrite(actor, ${audit('created')}, [${N.camel}Event('${N.entity}.created', row)]));
        return present${N.Pascal}(row);
      });
    },

    async update(actorIn: Actor | undefined, id: string, body: ${N.Pascal}UpdateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const before = assertVisible(actor, await tx.${N.camelPlural}.find(id, { lock: 'update' }), '${N.singular}');
        const values = pickFields(body, ${N.CONST}_WRITABLE_FIELDS);
        const row = Object.keys(values).length ? await tx.${N.camelPlural}.update(id, values) : before;
        const changed = changedFields(before, row, ${N.CONST}_WRITABLE_FIELDS);
        await tx.record(
          apiWrite(
            actor,
            ${audit('updated', ', metadata: { changedFields: changed }')},
            changed.length ? [${N.camel}Event('${N.entity}.updated', row, { changedFields: changed })] : [],
          ),
        );
        return present${N.Pascal}(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await stores.transaction(async (tx) => {
        const row = assertVisible(actor, await tx.${N.camelPlural}.find(id, { lock: 'update' }), '${N.singular}');
        await tx.${N.camelPlural}.remove(id);
        await tx.record(apiWrite(actor, ${audit('deleted')}, [${N.camel}Event('${N.entity}.deleted', row)]));
      });
    },
  };
}
`,
);
create(
  `${feature}/rpc.ts`,
  `import type { ServiceImpl } from '@connectrpc/connect';
import type { ${N.Pascal}CreateBody, ${N.Pascal}UpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { ${N.Pascal}Service } from '@cluster/proto';
import type { create${N.Pascal}Service } from './service.ts';

/** ${N.Pascal}Service over Connect: unpacks requests, calls the rules, packs answers. */
export function ${N.camel}Rpc(${N.camelPlural}: ReturnType<typeof create${N.Pascal}Service>): ServiceImpl<typeof ${N.Pascal}Service> {
  return {
    list${N.Plural}: async (req) => jsonPage(await ${N.camelPlural}.list(req.actor, req.parentId, pageArgs(req))),
    create${N.Pascal}: async (req) => ({
      resource: jsonBytes(await ${N.camelPlural}.create(req.actor, req.parentId, bodyOf<${N.Pascal}CreateBody>(req.body))),
      created: true,
    }),
    get${N.Pascal}: async (req) => ({ resource: jsonBytes(await ${N.camelPlural}.get(req.actor, req.id)) }),
    update${N.Pascal}: async (req) => ({
      resource: jsonBytes(await ${N.camelPlural}.update(req.actor, req.id, bodyOf<${N.Pascal}UpdateBody>(req.body))),
    }),
    async delete${N.Pascal}(req) {
      await ${N.camelPlural}.remove(req.actor, req.id);
      return {};
    },
  };
}
`,
);
const sample = Object.fromEntries(
  fields.map((f) => [f.name, { string: `a ${f.name}`, text: `some ${f.name}`, integer: 3, boolean: true }[f.type]]),
);

// The store's row of the core's contract table: the fake and Postgres held to the same cases
// (test/store-contracts.test.ts fails for a fake store without one).
const contractParent =
  opts.parent === 'projects'
    ? { setup: 'const parent = await w.project(await w.organization());', columns: 'projectId: parent.id' }
    : {
        setup: 'const parent = await w.entry(await w.project(await w.organization()));',
        columns: 'entryId: parent.id, projectId: parent.projectId',
      };
const changed = Object.fromEntries(
  fields.slice(0, 1).map((f) => [f.name, { string: 'changed', text: 'changed', integer: 4, boolean: false }[f.type]]),
);
edit(
  'services/core/src/shared/crud-stores.contract.test.ts',
  before(
    /\n\};\n\nconst cases/,
    `
  ${N.Pascal}Store: async (w) => {
    ${contractParent.setup}
    const s = w.stores.${N.camelPlural};
    return {
      parent: parent.id,
      insert: () => s.insert({ organizationId: parent.organizationId, ${contractParent.columns}, ...${JSON.stringify(sample)} }),
      find: (id) => s.find(id),
      list: (p) => s.list(parent.id, p),
      update: { values: ${JSON.stringify(changed)}, run: (id) => s.update(id, ${JSON.stringify(changed)}) },
      remove: (id) => s.remove(id),
    };
  },`,
  ),
);
const parentSetup =
  opts.parent === 'projects'
    ? `const parent = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site', description: '' });`
    : `const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site', description: '' });
  await createEntryService(stores).create(testActor(), project.id, { type: 'bug_report', title: 'An entry', description: '' });
  const [parent] = stores.entries.rows;
  stores.written.length = 0;`;
create(
  `${feature}/service.test.ts`,
  `import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, TEST_ORG, reasonOf, testActor } from '${SHARED}/test-kit.ts';
${opts.parent === 'entries' ? "import { createEntryService } from '../entries/service.ts';\n" : ''}import { create${N.Pascal}Service } from './service.ts';

async function setup() {
  const stores = createFakeStores();
  ${parentSetup}
  return { stores, ${N.camelPlural}: create${N.Pascal}Service(stores), parentId: parent.id };
}

describe('${N.plural}', () => {
  it('creates, updates and deletes, each write audited with its event', async () => {
    const { stores, ${N.camelPlural}, parentId } = await setup();
    const made = await ${N.camelPlural}.create(testActor(), parentId, ${JSON.stringify(sample)});
    expect(made).toMatchObject(${JSON.stringify(sample)});
    const [{ id }] = stores.${N.camelPlural}.rows;
    await ${N.camelPlural}.update(testActor(), id, ${JSON.stringify(sample)});
    await ${N.camelPlural}.remove(testActor(), id);
    expect(stores.written.flatMap((w) => w.rows.map((r) => r.row.action))).toEqual(['created', 'updated', 'deleted']);
    expect(stores.written.flatMap((w) => w.events.map((e) => e.eventName))).toEqual(['${N.entity}.created', '${N.entity}.deleted']);
    expect(await reasonOf(${N.camelPlural}.get(testActor(), id))).toBe('not_found');
  });

  it("answers 404 for another organization's ${N.singular} and writes nothing", async () => {
    const { stores, ${N.camelPlural}, parentId } = await setup();
    await ${N.camelPlural}.create(testActor(), parentId, ${JSON.stringify(sample)});
    const [{ id }] = stores.${N.camelPlural}.rows;
    const other = testActor({ organizationId: OTHER_ORG });
    expect(await reasonOf(${N.camelPlural}.get(other, id))).toBe('not_found');
    expect(await reasonOf(${N.camelPlural}.remove(other, id))).toBe('not_found');
    expect(await reasonOf(${N.camelPlural}.create(other, parentId, ${JSON.stringify(sample)}))).toBe('not_found');
    expect(stores.written).toHaveLength(1);
  });
});
`,
);
edit('services/core/src/stores.ts', (text) => {
  let out = afterLast(
    /^import \{ create\w+Store, type \w+Store \} from '\.\/features\//,
    `import { create${N.Pascal}Store, type ${N.Pascal}Store } from './features/${plural}/store.ts';`,
  )(text);
  out = before(/ {2}\/\*\* Runs `work` in one transaction/, `  ${N.camelPlural}: ${N.Pascal}Store;\n`)(out);
  out = before(/ {4}transaction: \(work\) =>/, `    ${N.camelPlural}: create${N.Pascal}Store(db),\n`)(out);
  return out;
});
edit('services/core/src/fake-stores.ts', (text) => {
  let out = afterLast(
    /^import \{ createFake\w+Store \} from '\.\/features\//,
    `import { createFake${N.Pascal}Store } from './features/${plural}/fake-store.ts';`,
  )(text);
  out = before(/ {4}transaction<T>\(work/, `    ${N.camelPlural}: createFake${N.Pascal}Store(),\n`)(out);
  return out;
});
edit('services/core/src/app.ts', (text) => {
  let out = before(/\} from '@cluster\/proto';/, `  ${N.Pascal}Service,\n`)(text);
  out = afterLast(
    /^import \{ \w+Rpc \} from '\.\/features\//,
    `import { create${N.Pascal}Service } from './features/${plural}/service.ts';\nimport { ${N.camel}Rpc } from './features/${plural}/rpc.ts';`,
  )(out);
  out = before(/\n\}\n?$/, `\n  router.service(${N.Pascal}Service, ${N.camel}Rpc(create${N.Pascal}Service(stores)));`)(out);
  return out;
});

// ---------------------------------------------------------------- operations (the gateway derives their handlers)

const listPath = `/${N.parentPath}/:id/${N.plural}`;
const onePath = `/${N.plural}/:id`;
create(
  `packages/contracts/src/operations/${plural}.ts`,
  `import { ListOf, ListQuery } from '../resources/common.ts';
import { ${N.Pascal}, ${N.Pascal}Create, ${N.Pascal}Update } from '../resources/${plural}.ts';
import type { Operation } from './operation.ts';

/** ${N.Plural} of ${N.parentPath}. */
export const ${N.camel}Operations: Operation[] = [
  {
    method: 'GET',
    path: '${listPath}',
    summary: 'List ${N.plural.replace(/-/g, ' ')} of a${/^[aeiou]/.test(N.parentSingular) ? 'n' : ''} ${N.parentSingular}',
    tag: '${N.plural}',
    operation: 'cluster.core.v1.${N.Pascal}Service/List${N.Plural}',
    tool: { name: 'list_${N.table}', title: 'List ${N.plural.replace(/-/g, ' ')}', description: '${N.Plural} of a${/^[aeiou]/.test(N.parentSingular) ? 'n' : ''} ${N.parentSingular}, newest first.' },
    permission: 'read:${N.entity}',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(${N.Pascal}) },
  },
  {
    method: 'POST',
    path: '${listPath}',
    summary: 'Create a ${N.singular.replace(/-/g, ' ')}',
    tag: '${N.plural}',
    operation: 'cluster.core.v1.${N.Pascal}Service/Create${N.Pascal}',
    tool: { name: 'create_${N.entity}', title: 'Create a ${N.singular.replace(/-/g, ' ')}', description: 'Creates a ${N.singular.replace(/-/g, ' ')}.' },
    permission: 'write:${N.entity}',
    body: ${N.Pascal}Create,
    response: { status: 201, schema: ${N.Pascal} },
  },
  {
    method: 'GET',
    path: '${onePath}',
    summary: 'Get a ${N.singular.replace(/-/g, ' ')}',
    tag: '${N.plural}',
    operation: 'cluster.core.v1.${N.Pascal}Service/Get${N.Pascal}',
    tool: false,
    permission: 'read:${N.entity}',
    response: { status: 200, schema: ${N.Pascal} },
  },
  {
    method: 'PATCH',
    path: '${onePath}',
    summary: 'Update a ${N.singular.replace(/-/g, ' ')}',
    tag: '${N.plural}',
    operation: 'cluster.core.v1.${N.Pascal}Service/Update${N.Pascal}',
    tool: false,
    permission: 'write:${N.entity}',
    body: ${N.Pascal}Update,
    response: { status: 200, schema: ${N.Pascal} },
  },
  {
    method: 'DELETE',
    path: '${onePath}',
    summary: 'Delete a ${N.singular.replace(/-/g, ' ')}',
    tag: '${N.plural}',
    operation: 'cluster.core.v1.${N.Pascal}Service/Delete${N.Pascal}',
    tool: false,
    permission: 'delete:${N.entity}',
    response: { status: 204, description: 'Deleted' },
  },
];
`,
);
edit('packages/contracts/src/operations/index.ts', (text) =>
  before(
    /\n\];/,
    `\n  ...${N.camel}Operations,`,
  )(afterLast(/^import \{ \w+Operations \} from '\.\//, `import { ${N.camel}Operations } from './${plural}.ts';`)(text)),
);
edit(
  'services/gateway/src/http/openapi.ts',
  before(/\n\};\n\n\/\*\* Descriptions of path and query parameters/, `\n  '${N.plural}': '${N.Plural} of ${N.parentPath}',`),
);

// ---------------------------------------------------------------- end-to-end test

const parentIdOf = opts.parent === 'projects' ? 'org.projectId' : 'entryId';
create(
  `test/${plural}.test.ts`,
  `import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { errorPaths, keyLacking } from './support/people.ts';

let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
${opts.parent === 'entries' ? 'let entryId: string;\n' : ''}
beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('${N.Plural} Org');
  other = await c.seedOrg('Other ${N.Plural} Org');
${
  opts.parent === 'entries'
    ? `  const entry = await c.api(org.key, 'POST', \`/projects/\${org.projectId}/entries\`, { title: 'Has ${N.plural}', type: 'bug_report', description: 'x' });
  entryId = entry.body.id;
`
    : ''
}});
afterAll(async () => c?.stop());

describe('${N.plural}', () => {
  it('creates, reads, lists, updates and deletes, with its events', async () => {
    const made = await c.api(org.key, 'POST', \`/${N.parentPath}/\${${parentIdOf}}/${N.plural}\`, ${JSON.stringify(sample)});
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject(${JSON.stringify(sample)});
    await c.events.waitFor((e) => e.eventName === '${N.entity}.created' && e.entityId === made.body.id);
    expect((await c.api(org.key, 'GET', \`/${N.plural}/\${made.body.id}\`)).body).toEqual(made.body);
    const listed = await c.api(org.key, 'GET', \`/${N.parentPath}/\${${parentIdOf}}/${N.plural}\`);
    expect(listed.body.data.map((x: { id: string }) => x.id)).toContain(made.body.id);
    expect((await c.api(org.key, 'PATCH', \`/${N.plural}/\${made.body.id}\`, {})).status).toBe(200);
    expect((await c.api(org.key, 'DELETE', \`/${N.plural}/\${made.body.id}\`)).status).toBe(204);
    await c.events.waitFor((e) => e.eventName === '${N.entity}.deleted' && e.entityId === made.body.id);
    expect((await c.api(org.key, 'GET', \`/${N.plural}/\${made.body.id}\`)).status).toBe(404);
  });

  it('refuses bad bodies (400 with pointers), no key (401), a missing permission (403) and other organizations (404)', async () => {
    const path = \`/${N.parentPath}/\${${parentIdOf}}/${N.plural}\`;
    const bad = await c.api(org.key, 'POST', path, { unknown: 1 });
    expect(bad.status).toBe(400);
    expect(errorPaths(bad.body)).toContain('/unknown');
    expect((await c.api(undefined, 'GET', path)).status).toBe(401);
    const lacking = await c.api(await keyLacking(c, org, 'write:${N.entity}'), 'POST', path, ${JSON.stringify(sample)});
    expect(lacking.status).toBe(403);
    expect(JSON.stringify(lacking.body)).toContain('write:${N.entity}');
    expect((await c.api(other.key, 'GET', path)).status).toBe(404);
    expect((await c.api(org.key, 'GET', '/${N.plural}/not-a-uuid')).status).toBe(404);
  });
});
`,
);

// The generated code and documents that follow from the new files, and the house format.
const run = (command: string, args: string[]) => {
  const res = spawnSync(command, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (res.status !== 0) fail(`${command} ${args.join(' ')} failed`);
};
run('npx', ['--no-install', 'buf', 'generate']);
run('node', ['--import', 'tsx', 'scripts/openapi.ts']);
run('node', ['--import', 'tsx', 'scripts/event-docs.ts']);
run('npx', [
  '--no-install',
  'prettier',
  '--write',
  '--log-level=warn',
  ...touched.map((t) => t.file).filter((f) => !f.endsWith('.proto')),
]);

process.stdout.write(
  `${touched.map((t) => `${t.how === 'new' ? 'new   ' : 'edited'} ${t.file}`).join('\n')}\n` +
    `regenerated docs/openapi.json, docs/events.md, docs/asyncapi.yaml, docs/events/schemas (and packages/proto/src/gen, not committed)\n` +
    `${touched.length} files (${touched.filter((t) => t.how === 'new').length} new). Now make it yours: docs/adding-a-resource.md, "By hand".\n`,
);
