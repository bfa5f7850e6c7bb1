import { describe, expect, it } from 'vitest';
import {
  EMITTED_EVENTS,
  EVENT_CATALOGUE,
  EVENT_GROUPS,
  EVENT_NAMES,
  INTERNAL_EVENT_NAMES,
  PUBLIC_EVENT_TYPES,
  eventGroupOf,
  eventTypeNamed,
} from './index.ts';

const internal = new Set<string>(INTERNAL_EVENT_NAMES);
const vocabulary = new Set<string>(EVENT_NAMES);

/**
 * Optional payload fields, by event: fields added to an event version after it was published (the
 * only optional fields the catalogue has; every other field is always written, and required).
 */
const ADDED_LATER: Record<string, string[]> = {};

describe('the event catalogue', () => {
  it('defines only names of the vocabulary or internal names, in the internal group exactly when internal', () => {
    for (const [name, def] of Object.entries(EMITTED_EVENTS)) {
      expect(vocabulary.has(name) || internal.has(name), name).toBe(true);
      expect(def.group === 'internal', name).toBe(internal.has(name));
      expect(
        EVENT_GROUPS.map((g) => g.id),
        name,
      ).toContain(def.group);
    }
  });

  it('lists every vocabulary name once, then the internal ones; the public part is the vocabulary', () => {
    expect(EVENT_CATALOGUE.map((e) => e.name)).toEqual([...EVENT_NAMES, ...INTERNAL_EVENT_NAMES]);
    expect(PUBLIC_EVENT_TYPES.map((e) => e.name)).toEqual([...EVENT_NAMES]);
    expect(PUBLIC_EVENT_TYPES.every((e) => !('internal' in e))).toBe(true);
  });

  it('calls a name emitted exactly when it is defined, and reserves the others with an open payload schema', () => {
    for (const e of EVENT_CATALOGUE) {
      expect(e.emitted, e.name).toBe(Object.hasOwn(EMITTED_EVENTS, e.name));
      expect(e.group, e.name).toBe(e.emitted ? e.group : eventGroupOf(e.name));
      expect(e.group, e.name).not.toBe('other');
    }
    expect(eventTypeNamed('invoice.paid')).toMatchObject({
      emitted: false,
      entityType: 'invoice',
      group: 'invoice',
      payloadSchema: { type: 'object', required: ['occurredAt'] },
    });
    expect(eventTypeNamed('invoice.paid')?.payloadSchema).not.toHaveProperty('additionalProperties');
    expect(eventGroupOf('release.notes.generated')).toBe('code');
    expect(eventGroupOf('something.new')).toBe('other');
  });

  it('has closed payload schemas of emitted events: every field required (or optional), no other allowed, occurredAt among them', () => {
    for (const e of EVENT_CATALOGUE.filter((x) => x.emitted)) {
      const schema = e.payloadSchema as {
        properties: Record<string, unknown>;
        required: string[];
        additionalProperties: boolean;
      };
      expect(schema.additionalProperties, e.name).toBe(false);
      // Every field is required, except one added to a published version later (ADDED_LATER): it is optional,
      // since the messages published before lack it (docs/events.md, "Evolving an event").
      expect(
        schema.required.filter((f) => !Object.hasOwn(schema.properties, f)),
        e.name,
      ).toEqual([]);
      expect(
        Object.keys(schema.properties).filter((f) => !schema.required.includes(f)),
        e.name,
      ).toEqual(ADDED_LATER[e.name] ?? []);
      expect(schema.required, e.name).toContain('occurredAt');
      // Plain JSON: what the API serves and the docs print (no TypeBox symbols).
      expect(JSON.parse(JSON.stringify(schema)), e.name).toEqual(schema);
    }
  });
});
