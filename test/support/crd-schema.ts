// Checks an object against a CustomResourceDefinition's structural schema (openAPIV3Schema) the way
// the API server does with kubectl's default strict field validation: an unknown field is an error
// (unless the schema preserves unknown fields), and so are a wrong type, a value outside an enum or
// pattern, a missing required field, or an int-or-string that is neither. CEL rules
// (x-kubernetes-validations) are not evaluated. Used for the kinds kubernetes-models has no class
// for (Envoy Gateway's policies and EnvoyProxy: test/fixtures/envoy-gateway-crds.json).

/** The subset of a structural schema the API server checks and this walk understands. */
export interface StructuralSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, StructuralSchema>;
  additionalProperties?: StructuralSchema | boolean;
  items?: StructuralSchema;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  anyOf?: StructuralSchema[];
  allOf?: StructuralSchema[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
}

const typeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v);

/** Every problem of `value` against `schema`, each named by its path (empty when it conforms). */
export function schemaProblems(value: unknown, schema: StructuralSchema, at = ''): string[] {
  const problems: string[] = [];
  const where = at || '/';
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && !Number.isInteger(value))
      return [`${where}: ${JSON.stringify(value)} is not an int or string`];
  } else if (schema.type) {
    const actual = typeOf(value);
    const ok = actual === schema.type || (schema.type === 'number' && actual === 'integer');
    if (!ok) return [`${where}: a ${actual}, not a ${schema.type}`];
  }
  if (schema.enum && !schema.enum.includes(value))
    problems.push(`${where}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`);
  if (typeof value === 'string' && schema.pattern && !new RegExp(schema.pattern).test(value))
    problems.push(`${where}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${where}: ${value} < ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${where}: ${value} > ${schema.maximum}`);
  }
  for (const sub of schema.allOf ?? []) problems.push(...schemaProblems(value, sub, at));
  if (schema.anyOf && !schema.anyOf.some((sub) => schemaProblems(value, sub, at).length === 0))
    problems.push(`${where}: ${JSON.stringify(value)} matches none of its alternatives`);
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      problems.push(`${where}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      problems.push(`${where}: more than ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, i) => problems.push(...schemaProblems(item, schema.items!, `${at}/${i}`)));
  } else if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) problems.push(`${at}/${key}: required`);
    for (const [key, v] of Object.entries(object)) {
      const sub = schema.properties?.[key];
      if (sub) problems.push(...schemaProblems(v, sub, `${at}/${key}`));
      else if (typeof schema.additionalProperties === 'object')
        problems.push(...schemaProblems(v, schema.additionalProperties, `${at}/${key}`));
      else if (!schema['x-kubernetes-preserve-unknown-fields'] && schema.additionalProperties !== true)
        problems.push(`${at}/${key}: unknown field`);
    }
  }
  return problems;
}

/**
 * A custom resource's problems against its CRD schema. `metadata` is checked by the API server's own
 * ObjectMeta rules, not the schema's (which declares it a bare object), so only the rest is walked.
 */
export function customResourceProblems(object: Record<string, unknown>, schema: StructuralSchema): string[] {
  const { metadata, ...rest } = object;
  void metadata;
  const { metadata: _metadataSchema, ...properties } = schema.properties ?? {};
  void _metadataSchema;
  return schemaProblems(rest, { ...schema, properties });
}
