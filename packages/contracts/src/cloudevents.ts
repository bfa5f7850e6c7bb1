import type { EventEnvelope } from './events.ts';

// Domain events on Kafka are CloudEvents 1.0 in the Kafka protocol binding's binary content mode
// (docs/decisions.md, "CloudEvents on Kafka"): the message value is the event's data (the payload
// JSON, which its `dataschema` describes byte for byte) and the attributes travel as `ce_*` headers.
// This module is the one mapping between the envelope the services build (EventEnvelope, still
// the outbox row's format) and the message on the wire, both ways; the relay encodes with it and
// every consumer in the cluster decodes with it. Hand-written rather than the `cloudevents` SDK's
// encoder: it is a dozen string headers on the relay's hot path, and the SDK validates every event
// with its own ajv instance. test/cloudevents.test.ts reads real messages with that SDK's Kafka
// binding, so the two cannot part silently.

/** The CloudEvents version of every event. */
export const CLOUDEVENTS_SPEC_VERSION = '1.0';
/** The value's media type (the `content-type` header in binary mode). */
export const EVENT_DATA_CONTENT_TYPE = 'application/json';
/** The media type of a structured-mode CloudEvent (accepted on read; this cluster writes binary). */
export const CLOUDEVENTS_JSON = 'application/cloudevents+json';
/** The version every catalogue event is published at today; a breaking change publishes a new one (docs/events.md). */
export const EVENT_SCHEMA_VERSION = 1;

/**
 * The `dataschema` of an event type at a version: a URN, the `$id` of its published JSON Schema
 * (docs/events/schemas/<type>.v<version>.json). A URN rather than an https URL: the same event
 * must name the same schema whichever deployment published it, and the project owns no public host;
 * consumers resolve it by `$id` from the published files.
 */
export function eventDataSchema(eventName: string, version = EVENT_SCHEMA_VERSION): string {
  return `urn:cluster:event-schema:${eventName}:v${version}`;
}

/** The file name of an event type's schema at a version, under docs/events/schemas/. */
export function eventSchemaFile(eventName: string, version = EVENT_SCHEMA_VERSION): string {
  return `${eventName}.v${version}.json`;
}

/**
 * The CloudEvents `type` of a catalogue event at a version: the catalogue name itself at version 1
 * (the name webhooks, subscriptions and the API already use; docs/events.md, "Evolving an event":
 * names are added, never renamed), `<name>.v<N>` for a later, incompatible version published beside it.
 */
export function cloudEventType(eventName: string, version = EVENT_SCHEMA_VERSION): string {
  return version === 1 ? eventName : `${eventName}.v${version}`;
}

/** The `source` of an organization's events: the tenant the event happened in, as the API names it. */
export function cloudEventSource(organizationId: string): string {
  return `/organizations/${organizationId}`;
}
const SOURCE = /^\/organizations\/([^/]+)$/;

/** The context attributes of a domain event (extension names are lower-case letters, as the spec requires). */
export interface DomainCloudEvent {
  specversion: string;
  id: string;
  source: string;
  type: string;
  time: string;
  /** The entity the event is about (the envelope's entityId; also the Kafka key). */
  subject: string;
  datacontenttype: string;
  dataschema: string;
  /** Extension: the envelope's entityType (`entry`, `release`, ...). */
  entitytype: string;
  /** Extension (Kafka binding's partitioning extension): the message key, the entity id. */
  partitionkey: string;
  /** Extension: the project, absent for organization-level events (attributes cannot be null). */
  projectid?: string;
  /** Extension: the acting user, absent for system actions. */
  actoruserid?: string;
  data: Record<string, unknown>;
}

/** The CloudEvent of an envelope. */
export function toCloudEvent(env: EventEnvelope): DomainCloudEvent {
  return {
    specversion: CLOUDEVENTS_SPEC_VERSION,
    id: env.id,
    source: cloudEventSource(env.organizationId),
    type: cloudEventType(env.eventName),
    time: env.occurredAt,
    subject: env.entityId,
    datacontenttype: EVENT_DATA_CONTENT_TYPE,
    dataschema: eventDataSchema(env.eventName),
    entitytype: env.entityType,
    partitionkey: env.entityId,
    ...(env.projectId ? { projectid: env.projectId } : {}),
    ...(env.actorUserId ? { actoruserid: env.actorUserId } : {}),
    data: env.payload,
  };
}

/**
 * The headers and value of an envelope's Kafka message in binary content mode. The transition
 * headers `event-name` and `event-id` of the old format stay for now (docs/events.md, "Consuming
 * events"); the caller adds the trace context (`traceparent`).
 */
export function toKafkaBinary(env: EventEnvelope): { headers: Record<string, string>; value: string } {
  const { data, datacontenttype, ...attributes } = toCloudEvent(env);
  const headers: Record<string, string> = { 'content-type': datacontenttype };
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) headers[`ce_${name}`] = value;
  headers['event-name'] = env.eventName;
  headers['event-id'] = env.id;
  return { headers, value: JSON.stringify(data) };
}

/** Kafka headers as kafkajs hands them over. */
export type KafkaHeaders = Record<string, Buffer | string | (Buffer | string)[] | undefined>;

const header = (headers: KafkaHeaders | undefined, name: string): string | undefined => {
  const v = headers?.[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? undefined : one.toString();
};

/** Which shape a message on the domain-event topic has. */
export type EventMessageFormat = 'cloudevents-binary' | 'cloudevents-structured' | 'envelope';

/** The shape of a message, by its headers alone (no parsing of the value). */
export function eventMessageFormat(headers: KafkaHeaders | undefined): EventMessageFormat {
  if (header(headers, 'content-type')?.toLowerCase().startsWith(CLOUDEVENTS_JSON)) return 'cloudevents-structured';
  if (header(headers, 'ce_specversion') !== undefined) return 'cloudevents-binary';
  return 'envelope';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The envelope of CloudEvent attributes and data; throws when a required attribute is missing. */
function envelopeOf(attrs: Record<string, unknown>, data: unknown): EventEnvelope {
  const organizationId = SOURCE.exec(text(attrs.source) ?? '')?.[1];
  const [id, type, time, subject, entityType] = [attrs.id, attrs.type, attrs.time, attrs.subject, attrs.entitytype].map(text);
  if (!id || !type || !time || !subject || !entityType || !organizationId || !isObject(data))
    throw new Error(
      'not a domain CloudEvent: id, type, time, subject, entitytype, an /organizations/ source and object data are required',
    );
  return {
    id,
    eventName: type,
    schemaVersion: 1,
    entityType,
    entityId: subject,
    occurredAt: time,
    actorUserId: text(attrs.actoruserid) ?? null,
    organizationId,
    projectId: text(attrs.projectid) ?? null,
    payload: data,
  };
}

/**
 * The envelope of a message on the domain-event topic, in either shape: a CloudEvent (binary
 * mode, or structured for tolerance) or the old envelope JSON that producers before the move, and
 * outbox rows they left behind, publish. The consumers of the cluster read through this during the
 * transition (docs/events.md, "Consuming events"). Throws on a message that is neither.
 */
export function eventFromKafkaMessage(
  headers: KafkaHeaders | undefined,
  value: Buffer | string | null | undefined,
): EventEnvelope {
  const parsed: unknown = JSON.parse(value?.toString() ?? '');
  switch (eventMessageFormat(headers)) {
    case 'cloudevents-binary': {
      const attrs: Record<string, string> = {};
      for (const name of Object.keys(headers ?? {}))
        if (name.startsWith('ce_')) attrs[name.slice(3)] = header(headers, name) ?? '';
      return envelopeOf(attrs, parsed);
    }
    case 'cloudevents-structured': {
      if (!isObject(parsed)) throw new Error('a structured CloudEvent must be a JSON object');
      return envelopeOf(parsed, parsed.data);
    }
    case 'envelope': {
      // As before the move: any object passes here, and the fan-out skips one without a known name.
      if (!isObject(parsed)) throw new Error('an event envelope must be a JSON object');
      return parsed as unknown as EventEnvelope;
    }
  }
}
