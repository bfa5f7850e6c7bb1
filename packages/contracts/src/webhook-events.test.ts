import { describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE } from './event-catalogue.ts';
import { draftSpecificKeywords, webhookEventSchema } from './webhook-events.ts';

describe('webhook event schemas', () => {
  it('every catalogue payload schema uses only keywords draft-07 and 2020-12 read alike', () => {
    for (const e of EVENT_CATALOGUE) expect(draftSpecificKeywords(e.payloadSchema), e.name).toEqual([]);
  });

  it('finds the keywords that differ between the drafts, however deep', () => {
    expect(draftSpecificKeywords({ type: 'object', definitions: {} })).toEqual(['/: definitions']);
    expect(
      draftSpecificKeywords({
        type: 'object',
        properties: { list: { type: 'array', items: [{ type: 'string' }] }, deep: { anyOf: [{ $defs: {} }] } },
      }),
    ).toEqual(['/properties/list: items (a tuple)', '/properties/deep/anyOf/0: $defs']);
    expect(draftSpecificKeywords({ properties: { definitions: { type: 'string' } } }), 'a property name is no keyword').toEqual(
      [],
    );
  });

  it("fixes the envelope's eventName and carries the catalogue's payload schema", () => {
    const created = EVENT_CATALOGUE.find((e) => e.name === 'entry.created')!;
    const schema = webhookEventSchema(created) as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(schema.properties.eventName.const).toBe('entry.created');
    expect(schema.properties.entityType.const).toBe('entry');
    expect(schema.properties.payload).toBe(created.payloadSchema);
    expect(schema.required).toContain('payload');
    expect(draftSpecificKeywords(schema)).toEqual([]);
  });
});
