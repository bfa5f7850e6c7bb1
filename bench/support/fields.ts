/**
 * A string field of a JSON document (an API answer, a webhook body, a stored delivery's body),
 * undefined when the document is not an object or the field is absent or not a string: the benches
 * read a field or two of what they get, without typing the whole answer.
 */
export function stringField(doc: unknown, name: string): string | undefined {
  if (typeof doc !== 'object' || doc === null) return undefined;
  const value: unknown = (doc as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** A string field that must be there (an id the bench goes on with). */
export function requiredField(doc: unknown, name: string): string {
  const value = stringField(doc, name);
  if (value === undefined) throw new Error(`no string "${name}" in ${JSON.stringify(doc)}`);
  return value;
}

/** A field of a JSON text (a stored delivery's body). */
export function jsonField(text: string, name: string): string | undefined {
  return stringField(JSON.parse(text) as unknown, name);
}
