import type { Field } from '../config/index.js';
import { isEmptyValue } from '../extract/index.js';

/**
 * Field health (drift): what an extraction yielded, field by field, compared with what the config expects
 * (its `generated.sample`, or the data of its latest snapshot). Compiled selectors are why retrieval is fast
 * and free; they are also why an endpoint breaks silently the day its site is redesigned. Health makes that
 * visible at every retrieval:
 *
 * - `healthy`: every field that had a value still has one;
 * - `degraded`: a required field is empty, an array that had items is now empty, or most of the fields that
 *   had values are now empty: served, flagged, never cached;
 * - `broken`: nothing could be extracted at all (the EXTRACTION_EMPTY error).
 */
export type HealthState = 'healthy' | 'degraded' | 'broken';

export interface FieldHealth {
  /** Dotted path (`books`, `product.price`). */
  path: string;
  /** The field yielded a value (arrays: at least one item). */
  matched: boolean;
  /** Items of an array field now, and in the expectation. */
  items?: number;
  expectedItems?: number;
  /** Why the field counts against the health, when it does. */
  problem?: 'required-empty' | 'array-emptied' | 'emptied';
}

export interface Health {
  state: HealthState;
  fields: FieldHealth[];
  /** Paths of the fields with a problem, in structure order. */
  failing: string[];
}

function valueAt(record: unknown, name: string): unknown {
  return record !== null && typeof record === 'object' && !Array.isArray(record) && Object.hasOwn(record, name)
    ? (record as Record<string, unknown>)[name]
    : undefined;
}

function collect(fields: Field[], data: unknown, expected: unknown, prefix: string, out: FieldHealth[]): void {
  for (const field of fields) {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const value = valueAt(data, field.name);
    const before = valueAt(expected, field.name);
    // Objects without their own selector are groups: their fields are what is healthy or not.
    if (field.type === 'object' && field.fields && field.fields.length > 0) {
      collect(field.fields, value, before, path, out);
      continue;
    }
    const entry: FieldHealth = { path, matched: !isEmptyValue(value) };
    if (field.type === 'array') {
      entry.items = Array.isArray(value) ? value.length : 0;
      if (Array.isArray(before)) entry.expectedItems = before.length;
    }
    if (!entry.matched) {
      if (field.required === true) entry.problem = 'required-empty';
      else if (field.type === 'array' && (entry.expectedItems ?? 0) > 0) entry.problem = 'array-emptied';
      else if (before !== undefined && !isEmptyValue(before)) entry.problem = 'emptied';
    }
    out.push(entry);
  }
}

/**
 * The health of one extraction. `expected` is the data the config was known to extract (sample or snapshot);
 * without one, only required fields and "most fields empty" can say degraded.
 */
export function assessHealth(structure: Field[], data: Record<string, unknown>, expected?: unknown): Health {
  const fields: FieldHealth[] = [];
  collect(structure, data, expected, '', fields);
  const failing = fields.filter((field) => field.problem !== undefined).map((field) => field.path);
  const hardProblem = fields.some((field) => field.problem === 'required-empty' || field.problem === 'array-emptied');
  // "Most fields empty": of the fields known to have had values (all fields without an expectation).
  const known = expected === undefined ? fields : fields.filter((field) => field.problem === 'emptied' || field.matched);
  const emptied =
    expected === undefined ? fields.filter((field) => !field.matched).length : fields.filter((field) => field.problem === 'emptied').length;
  const most = known.length > 0 && emptied * 2 > known.length;
  if (fields.every((field) => !field.matched)) return { state: 'broken', fields, failing: fields.map((field) => field.path) };
  return { state: hardProblem || most ? 'degraded' : 'healthy', fields, failing };
}

/** What the config expects: the sample its generation saw (snapshots override it where they exist). */
export function expectedData(config: { generated?: { sample?: unknown } | undefined }): unknown {
  const sample = config.generated?.sample;
  return sample !== null && typeof sample === 'object' && !Array.isArray(sample) ? sample : undefined;
}
