import { describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE } from './event-catalogue.ts';
import { breakingChanges, type JsonSchema } from './schema-compat.ts';

// A published payload schema of the catalogue's shape: closed, every field required.
const published: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['entryId', 'status', 'title', 'assignedToId', 'tags', 'occurredAt'],
  properties: {
    entryId: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['open', 'in_progress', 'done'] },
    title: { type: 'string' },
    assignedToId: { type: ['string', 'null'], format: 'uuid' },
    tags: { type: 'array', items: { type: 'string' } },
    note: { type: 'string' },
    count: { type: 'integer', minimum: 0 },
    occurredAt: { type: 'string', format: 'date-time' },
  },
};
const clone = (): JsonSchema => JSON.parse(JSON.stringify(published)) as JsonSchema;
const props = (s: JsonSchema) => s.properties as Record<string, JsonSchema>;
const changed = (edit: (s: JsonSchema) => void) => {
  const next = clone();
  edit(next);
  return breakingChanges(published, next);
};

describe('breakingChanges (the event schema compatibility rule)', () => {
  it('passes an unchanged schema and one with new descriptions', () => {
    expect(breakingChanges(published, clone())).toEqual([]);
    expect(changed((s) => (props(s).title.description = 'the title'))).toEqual([]);
  });

  it('passes additive changes: a new optional field, a widened enum, a field made nullable, a looser bound', () => {
    expect(changed((s) => (props(s).priority = { type: 'string', enum: ['low', 'high'] }))).toEqual([]);
    expect(changed((s) => (props(s).status.enum = ['open', 'in_progress', 'done', 'archived']))).toEqual([]);
    expect(changed((s) => (props(s).title = { type: ['string', 'null'] }))).toEqual([]);
    expect(changed((s) => (props(s).count = { type: 'number' }))).toEqual([]);
    expect(changed((s) => (s.required = (s.required as string[]).filter((f) => f !== 'title')))).toEqual([]);
  });

  it('fails a removed field', () => {
    expect(changed((s) => delete props(s).note)).toEqual(['note: field removed (or renamed)']);
  });

  it('fails a renamed field (a removal and a new required field)', () => {
    const problems = changed((s) => {
      props(s).headline = props(s).title;
      delete props(s).title;
      s.required = (s.required as string[]).map((f) => (f === 'title' ? 'headline' : f));
    });
    expect(problems).toContain('title: field removed (or renamed)');
    expect(problems.some((p) => p.startsWith('headline: new required field'))).toBe(true);
  });

  it('fails a narrowed type: nullable to non-null, number to integer, anything to a type', () => {
    expect(changed((s) => (props(s).assignedToId.type = 'string'))).toEqual([
      'assignedToId: type narrowed: null no longer allowed (string|null -> string)',
    ]);
    expect(breakingChanges({ type: 'number' }, { type: 'integer' })).toHaveLength(1);
    expect(breakingChanges({}, { type: 'string' })).toHaveLength(1);
    expect(changed((s) => (props(s).tags.items = { type: 'integer' }))[0]).toMatch(/^tags\[\]: type narrowed/);
  });

  it('fails a narrowed enum, a new const, a new format or pattern, and tighter bounds', () => {
    expect(changed((s) => (props(s).status.enum = ['open', 'done']))).toEqual([
      'status: enum narrowed: ["in_progress"] no longer allowed',
    ]);
    expect(changed((s) => (props(s).title.const = 'fixed'))).toHaveLength(1);
    expect(changed((s) => (props(s).title.format = 'email'))).toHaveLength(1);
    expect(changed((s) => (props(s).title.pattern = '^E-'))).toHaveLength(1);
    expect(changed((s) => (props(s).title.maxLength = 10))).toHaveLength(1);
    expect(changed((s) => (props(s).count.minimum = 1))).toEqual(['count: minimum raised to 1']);
  });

  it('fails an optional field made required, and a new required field', () => {
    expect(changed((s) => (s.required as string[]).push('note'))).toEqual(['note: optional field made required']);
    const added = changed((s) => {
      props(s).priority = { type: 'string' };
      (s.required as string[]).push('priority');
    });
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^priority: new required field/);
  });

  it('fails an open object closed, and a keyword it does not understand', () => {
    expect(breakingChanges({ type: 'object' }, { type: 'object', additionalProperties: false })).toEqual([
      '(root): closed to fields it allowed before',
    ]);
    expect(changed((s) => (props(s).title.contentEncoding = 'base64'))).toEqual([
      'title: keyword contentEncoding changed; not provably compatible',
    ]);
  });

  it('reads alternatives: Nullable of a schema without a type is anyOf', () => {
    const nullable = { anyOf: [{ type: 'string' }, { type: 'null' }] };
    expect(breakingChanges({ type: 'string' }, nullable)).toEqual([]);
    expect(breakingChanges(nullable, { type: 'string' })).toHaveLength(1);
  });

  it('finds every emitted payload schema of the catalogue compatible with itself', () => {
    for (const e of EVENT_CATALOGUE) expect(breakingChanges(e.payloadSchema, e.payloadSchema), e.name).toEqual([]);
  });
});
