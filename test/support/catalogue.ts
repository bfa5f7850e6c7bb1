import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { EVENT_CATALOGUE, type CatalogueEntry } from '@cluster/contracts';

// Checks a real event (a Kafka envelope or a webhook body) against the event catalogue: its
// name is catalogued as emitted, its entityType is the catalogue's, and its payload validates
// against the catalogue's JSON Schema, compiled by Ajv (an independent JSON Schema validator,
// not TypeBox). Any test that makes a service emit an event can call expectCatalogued.

// ajv-formats is CommonJS with a default export; under NodeNext its namespace is what imports.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** A validator of catalogue payload schemas. */
export function catalogueAjv(): Ajv {
  return addFormats(new Ajv({ allErrors: true, strict: false }));
}

const ajv = catalogueAjv();
const validators = new Map<string, ValidateFunction>();

/** The compiled payload validator of a catalogue entry (cached by name). */
export function payloadValidator(entry: Pick<CatalogueEntry, 'name' | 'payloadSchema'>): ValidateFunction {
  let v = validators.get(entry.name);
  if (!v) {
    v = ajv.compile(entry.payloadSchema);
    validators.set(entry.name, v);
  }
  return v;
}

/** What an event needs for the check: a Kafka EventEnvelope and a WebhookEnvelope both have it. */
export interface EventLike {
  eventName: string;
  entityType: string;
  occurredAt: string;
  payload: unknown;
}

/** Asserts that `event` is what the catalogue says its name emits. */
export function expectCatalogued(event: EventLike): void {
  const entry = EVENT_CATALOGUE.find((e) => e.name === event.eventName);
  expect(entry, `${event.eventName} is not in the event catalogue`).toBeDefined();
  expect(entry!.emitted, `${event.eventName} is emitted but the catalogue says it is not`).toBe(true);
  expect(event.entityType, `${event.eventName}'s entityType`).toBe(entry!.entityType);
  const validate = payloadValidator(entry!);
  expect(validate(event.payload) ? [] : validate.errors, `${event.eventName} payload against its catalogue schema`).toEqual([]);
  expect((event.payload as { occurredAt?: string }).occurredAt).toBe(event.occurredAt);
}
