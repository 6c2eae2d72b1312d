import type { Field } from '../config/index.js';

/**
 * Last good data under the structure's current names (issue 47 item 1: a renamed field keeps its history). A
 * snapshot's data and the generated sample keep the names they were taken under; after `pagejson edit --rename
 * items=goods` nothing in them is called `goods`, and a repair anchored on them finds no value of the list.
 * A field whose name is not in the data takes the one key that no current field uses and whose value has the
 * field's shape (a list of objects with the field's item names, a list of values, a single value); when two
 * keys could be it, neither is taken. Keys are copied onto a null-prototype object (outside data: no key of
 * it becomes a property of Object.prototype).
 */
export function underCurrentNames(structure: Field[], data: unknown): Record<string, unknown> {
  const source = isRecord(data) ? data : {};
  const names = new Set(structure.map((field) => field.name));
  const spare = Object.keys(source).filter((key) => !names.has(key));
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(source)) out[key] = value;
  for (const field of structure) {
    let value = Object.hasOwn(source, field.name) ? source[field.name] : undefined;
    if (value === undefined) {
      const fitting = spare.filter((key) => fits(field, source[key]));
      if (fitting.length === 1) {
        value = source[fitting[0]!];
        spare.splice(spare.indexOf(fitting[0]!), 1);
      }
    }
    if (value === undefined) continue;
    out[field.name] = renamedInside(field, value);
  }
  return out;
}

function renamedInside(field: Field, value: unknown): unknown {
  if (!field.fields) return value;
  if (field.type === 'array' && Array.isArray(value)) return value.map((item) => underCurrentNames(field.fields!, item));
  return isRecord(value) ? underCurrentNames(field.fields, value) : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether a value has the field's shape: its items' or its own names at least half the field's. */
function fits(field: Field, value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (field.type === 'array') {
    if (!Array.isArray(value) || value.length === 0) return false;
    if (!field.fields) return value.every((item) => !isRecord(item) && !Array.isArray(item));
    return value.every(isRecord) && sharesNames(field.fields, value[0] as Record<string, unknown>);
  }
  if (field.type === 'object' && field.fields) return isRecord(value) && sharesNames(field.fields, value);
  return !isRecord(value) && !Array.isArray(value);
}

function sharesNames(fields: Field[], record: Record<string, unknown>): boolean {
  const shared = fields.filter((field) => Object.hasOwn(record, field.name)).length;
  return shared * 2 >= fields.length && shared > 0;
}
