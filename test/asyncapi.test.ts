import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Parser } from '@asyncapi/parser';
import { topicNames } from '@cluster/kafka';

const doc = readFileSync(path.resolve(import.meta.dirname, '..', 'docs', 'asyncapi.yaml'), 'utf8');

describe('AsyncAPI document of the Kafka topics', () => {
  it('is a valid AsyncAPI 3 document', async () => {
    const { document, diagnostics } = await new Parser().parse(doc);
    // Severity 0 is DiagnosticSeverity.Error (of the parser's own copy of @stoplight/types); warnings are allowed.
    const errors = diagnostics.filter((d) => Number(d.severity) === 0);
    expect(errors.map((e) => `${e.path.join('.')}: ${e.message}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
  });

  it('names the topics the services really use', async () => {
    const { document } = await new Parser().parse(doc);
    const addresses = document!
      .channels()
      .all()
      .map((ch) => ch.address());
    const topics = topicNames('');
    expect(addresses.sort()).toEqual([topics.domainEvents, topics.deliveryDeadLetter].sort());
  });
});
