import type { Field } from '../config/index.js';

/**
 * The fields a model fills when the endpoint is served: no selector, outside lists (those inside list items stay
 * null: retrieval/retrieve.ts). A repair changes selectors only and its extraction never holds these values, so
 * they are neither counted as last good values it failed to bring back nor judged empty on it (issue 52, 4c).
 */
const isModelField = (field: Field) => field.selector === undefined && !(field.type === 'object' && (field.fields?.length ?? 0) > 0);
const isObject = (field: Field) => field.type === 'object' && (field.fields?.length ?? 0) > 0;

/** Dotted paths of the model fields (`summary`, `product.blurb`). */
export function modelFieldPaths(structure: Field[], prefix = ''): string[] {
  return structure.flatMap((field) => {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    if (isModelField(field)) return [path];
    return isObject(field) ? modelFieldPaths(field.fields!, path) : [];
  });
}

/** The structure without its model fields: what a repair's extraction is judged on. */
export function withoutModelFields(structure: Field[]): Field[] {
  return structure
    .filter((field) => !isModelField(field))
    .map((field) => (isObject(field) ? { ...field, fields: withoutModelFields(field.fields!) } : field));
}

/** The data without the model fields' values (a new object, and new nested objects). */
export function withoutModelValues(structure: Field[], data: Record<string, unknown>): Record<string, unknown> {
  const byName = new Map(structure.map((field) => [field.name, field]));
  const isRecord = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  return Object.fromEntries(
    Object.entries(data)
      .filter(([name]) => !(byName.has(name) && isModelField(byName.get(name)!)))
      .map(([name, value]) => {
        const field = byName.get(name);
        return [name, field && isObject(field) && isRecord(value) ? withoutModelValues(field.fields!, value) : value];
      }),
  );
}
