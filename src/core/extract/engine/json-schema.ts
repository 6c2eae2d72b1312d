import type { Field, ScalarItems, ScalarType } from '../../config/index.js';

/**
 * JSON Schema (2020-12) of a retrieval's `data`, for `pagejson schema`, the OpenAPI document and structured
 * model output. It states what the extraction guarantees on success: a field that matched nothing is null,
 * except a required one (its absence fails the extraction instead); arrays are never null; an object
 * without its own selector is always an object. Every key is listed in `required` and no other key is
 * allowed, which is also the shape OpenAI's strict structured outputs accept.
 */

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

type Schema = Record<string, unknown>;

export function dataJsonSchema(structure: Field[]): Schema {
  return { $schema: JSON_SCHEMA_DIALECT, ...objectSchema(structure, false) };
}

function objectSchema(fields: Field[], inArray: boolean): Schema {
  const properties: Record<string, Schema> = {};
  for (const field of fields) {
    Object.defineProperty(properties, field.name, {
      value: fieldSchema(field, inArray),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { type: 'object', properties, required: fields.map((field) => field.name), additionalProperties: false };
}

function fieldSchema(field: Field, inArray: boolean): Schema {
  // Model fields inside array items are not filled per item at retrieval, so they stay nullable even when
  // marked required; everywhere else an empty required field fails the extraction and never reaches `data`.
  const isModelField = field.selector === undefined && !(field.type === 'object' && field.fields && field.fields.length > 0);
  const required = field.required === true && !(inArray && isModelField);
  const described = (schema: Schema): Schema => (field.description ? { ...schema, description: field.description } : schema);

  if (field.type === 'object') {
    if (field.fields && field.fields.length > 0) {
      const schema = objectSchema(field.fields, inArray);
      // Without a selector the object groups fields of the surrounding scope and always exists.
      const nullable = field.selector !== undefined && !required;
      return described(nullable ? { ...schema, type: ['object', 'null'] } : schema);
    }
    return described({ type: required ? 'object' : ['object', 'null'] });
  }
  if (field.type === 'array') {
    const items = field.fields && field.fields.length > 0 ? objectSchema(field.fields, true) : scalarItemSchema(field.items);
    return described({ type: 'array', items, ...(required ? { minItems: 1 } : {}) });
  }
  return described(scalarSchema(field.type, !required));
}

function scalarItemSchema(items: ScalarItems | undefined): Schema {
  // Items that come out empty are left out of the array, so items are never null.
  return scalarSchema(items?.type ?? 'string', false);
}

function scalarSchema(type: ScalarType, nullable: boolean): Schema {
  const json = JSON_TYPES[type];
  const schema: Schema = { type: nullable ? [json, 'null'] : json };
  // Patterns rather than `format`: validators and model providers disagree about which formats they know.
  if (type === 'url') schema.pattern = '^https?://';
  if (type === 'date') schema.pattern = '^\\d{4}-\\d{2}-\\d{2}';
  return schema;
}

const JSON_TYPES: { [T in ScalarType]: string } = {
  string: 'string',
  number: 'number',
  integer: 'integer',
  boolean: 'boolean',
  url: 'string',
  date: 'string',
};
