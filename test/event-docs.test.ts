import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { EVENT_CATALOGUE } from '@cluster/contracts';
import { renderAsyncApi, renderEventSchemas, renderEventsMarkdown } from '../scripts/lib/event-docs.ts';
import { readPublishedSchemas } from '../scripts/lib/event-schemas.ts';

// docs/events.md and docs/asyncapi.yaml are written from the event catalogue (one source with
// GET /webhooks/event-types): the committed files must be what `npm run event-docs` writes.

const doc = (file: string) => readFileSync(path.resolve(import.meta.dirname, '..', 'docs', file), 'utf8');

describe('event docs written from the catalogue', () => {
  it('docs/events.md is current (run `npm run event-docs` after changing the catalogue)', () => {
    const current = doc('events.md');
    expect(current).toBe(renderEventsMarkdown(current));
  });

  it('docs/asyncapi.yaml is current (run `npm run event-docs` after changing the catalogue)', () => {
    const current = doc('asyncapi.yaml');
    expect(current).toBe(renderAsyncApi(current));
  });

  it('docs/events/schemas holds exactly the schemas of the events on Kafka, as written (run `npm run event-docs`)', () => {
    const published = readPublishedSchemas();
    const generated = renderEventSchemas();
    expect([...published.keys()].sort()).toEqual([...generated.keys()].sort());
    for (const [file, text] of generated) expect(published.get(file), file).toBe(text);
  });

  it('names every event of the catalogue: emitted ones in a table and as AsyncAPI messages, reserved ones in the list', () => {
    const md = doc('events.md');
    const api = parse(doc('asyncapi.yaml')) as {
      channels: { domainEvents: { messages: Record<string, unknown> } };
      components: { messages: Record<string, unknown> };
    };
    for (const e of EVENT_CATALOGUE) {
      if (e.emitted)
        expect(md, e.name).toMatch(new RegExp(`^\\| \`${e.name.replace(/\./g, '\\.')}\` \\| ${e.entityType} \\|`, 'm'));
      else expect(md, e.name).toContain(`\`${e.name}\``);
      const onKafka = e.emitted && e.name !== 'webhook.test';
      expect(Object.hasOwn(api.channels.domainEvents.messages, `event.${e.name}`), e.name).toBe(onKafka);
      if (!onKafka) continue;
      // Its AsyncAPI message's payload is its published schema file, which is the catalogue's payload schema.
      const file = `${e.name}.v1.json`;
      expect(api.components.messages[`event.${e.name}`], e.name).toMatchObject({
        payload: { schema: { $ref: `events/schemas/${file}` } },
      });
      const { $schema: _s, $id, title: _t, description: _d, ...schema } = JSON.parse(doc(`events/schemas/${file}`));
      const { description: _pd, ...payload } = e.payloadSchema;
      expect(schema, e.name).toEqual(payload);
      expect($id).toBe(`urn:cluster:event-schema:${e.name}:v1`);
    }
  });
});
