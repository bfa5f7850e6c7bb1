import { describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE, type CatalogueEntry } from '@cluster/contracts';
import { readPublishedSchemas, schemaCompatibilityProblems } from '../scripts/lib/event-schemas.ts';

// The compatibility check of the published event schemas (docs/events/schemas, docs/events.md
// "Evolving an event"): the catalogue now against the committed files must be additive. The
// planted changes below edit a copy of the catalogue and check the same function against the same
// committed files, so each kind of breaking change is shown to fail it and an additive one to pass.

const published = readPublishedSchemas();

/** The catalogue with one entry's payload schema edited. */
function plant(name: string, edit: (schema: Record<string, unknown>) => Record<string, unknown>): CatalogueEntry[] {
  return EVENT_CATALOGUE.map((e) =>
    e.name === name ? { ...e, payloadSchema: edit(JSON.parse(JSON.stringify(e.payloadSchema)) as Record<string, unknown>) } : e,
  );
}
const props = (s: Record<string, unknown>) => s.properties as Record<string, Record<string, unknown>>;
const required = (s: Record<string, unknown>) => s.required as string[];

describe('the published event schemas', () => {
  it('are committed, one per event type on Kafka', () => {
    expect(published.size).toBeGreaterThan(30);
    expect(published.has('entry.created.v1.json')).toBe(true);
  });

  it('the catalogue now is compatible with every committed schema', () => {
    expect(schemaCompatibilityProblems(published)).toEqual([]);
  });

  it('fails a removed field', () => {
    const problems = schemaCompatibilityProblems(
      published,
      plant('entry.created', (s) => {
        delete props(s).title;
        s.required = required(s).filter((f) => f !== 'title');
        return s;
      }),
    );
    expect(problems).toEqual(['entry.created.v1.json: title: field removed (or renamed)']);
  });

  it('fails a renamed field', () => {
    const problems = schemaCompatibilityProblems(
      published,
      plant('release.created', (s) => {
        props(s).releaseName = props(s).name;
        delete props(s).name;
        s.required = required(s).map((f) => (f === 'name' ? 'releaseName' : f));
        return s;
      }),
    );
    expect(problems).toContain('release.created.v1.json: name: field removed (or renamed)');
    expect(problems.some((p) => p.startsWith('release.created.v1.json: releaseName: new required field'))).toBe(true);
  });

  it('fails a narrowed type, and a narrowed enum', () => {
    const type = schemaCompatibilityProblems(
      published,
      plant('entry.assigned', (s) => ({ ...s, properties: { ...props(s), assignedToId: { type: 'string', format: 'uuid' } } })),
    );
    expect(type).toEqual(['entry.assigned.v1.json: assignedToId: type narrowed: null no longer allowed (string|null -> string)']);
    const integer = schemaCompatibilityProblems(
      published,
      plant('time.logged', (s) => ({ ...s, properties: { ...props(s), hours: { type: 'number' } } })),
    );
    expect(integer).toEqual(['time.logged.v1.json: hours: type narrowed: string no longer allowed (string -> number)']);
    const enumNarrowed = schemaCompatibilityProblems(
      published,
      plant('entry.created', (s) => {
        props(s).status.enum = (props(s).status.enum as string[]).filter((v) => v !== 'deployed');
        return s;
      }),
    );
    expect(enumNarrowed).toEqual(['entry.created.v1.json: status: enum narrowed: ["deployed"] no longer allowed']);
  });

  it('fails an optional field made required', () => {
    // The published schema with an optional field, as if a release had added it: making it required then breaks.
    const withOptional = new Map(published);
    const schema = JSON.parse(published.get('wiki_page.created.v1.json')!) as Record<string, unknown>;
    props(schema).slug = { type: 'string' };
    withOptional.set('wiki_page.created.v1.json', JSON.stringify(schema));
    const problems = schemaCompatibilityProblems(
      withOptional,
      plant('wiki_page.created', (s) => ({
        ...s,
        properties: { ...props(s), slug: { type: 'string' } },
        required: [...required(s), 'slug'],
      })),
    );
    expect(problems).toEqual(['wiki_page.created.v1.json: slug: optional field made required']);
  });

  it('fails a removed event type (its schema no longer generated)', () => {
    const problems = schemaCompatibilityProblems(
      published,
      EVENT_CATALOGUE.filter((e) => e.name !== 'wiki_page.deleted'),
    );
    expect(problems).toEqual([expect.stringMatching(/^wiki_page\.deleted\.v1\.json: no longer generated/)]);
  });

  it('passes additive changes: a new optional field, and a widened enum', () => {
    // A field the catalogue lists in properties but not in required (Type.Optional).
    const optional = plant('entry.created', (s) => ({
      ...s,
      properties: { ...props(s), priority: { type: ['string', 'null'] } },
    }));
    expect(schemaCompatibilityProblems(published, optional)).toEqual([]);
    const widened = plant('entry.created', (s) => {
      props(s).status.enum = [...(props(s).status.enum as string[]), 'archived'];
      return s;
    });
    expect(schemaCompatibilityProblems(published, widened)).toEqual([]);
  });
});
