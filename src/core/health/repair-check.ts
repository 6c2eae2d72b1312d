import type { Field } from '../config/index.js';
import { fitsKind, valueKind } from './value-kind.js';

/**
 * A repair is checked like a generation (issue 47 item 1): each repaired field's values must be that field's,
 * not just be filled. A field repaired by finding its own last good values on the page must read most of them
 * back (a review count anchored on the one name that holds its digits, "ZenBook 14", reads 360 from "Spectre
 * x360" in the next card: refused); a field repaired with its partner (a link's url with its title) must read
 * values of the kind it had (URLs stay URLs). A refused field keeps its old selector and is named with why.
 */
const OWN_VALUES_KEPT = 0.5;
const SHOWN = 3;

export interface RepairCheck {
  structure: Field[];
  refused: string[];
}

const norm = (value: unknown) => String(value).replace(/\s+/g, ' ').trim().toLowerCase();

/** The values at a dotted path: through lists (`products.price`: every product's price) and objects. */
export function valuesAt(data: unknown, path: string): unknown[] {
  let current: unknown[] = [data];
  for (const key of path.split('.')) {
    const next: unknown[] = [];
    for (const value of current) {
      const items = Array.isArray(value) ? value : [value];
      for (const item of items)
        if (item !== null && typeof item === 'object' && Object.hasOwn(item, key)) next.push((item as Record<string, unknown>)[key]);
    }
    current = next;
  }
  return current.flat().filter((value) => value !== null && value !== undefined && value !== '');
}

/** The field at a dotted path of a structure. */
function fieldAt(structure: Field[], path: string): Field | undefined {
  let fields: Field[] | undefined = structure;
  let found: Field | undefined;
  for (const key of path.split('.')) {
    found = fields?.find((field) => field.name === key);
    fields = found?.fields;
  }
  return found;
}

/** The structure with the field at `path` replaced by `field`. */
function replaceAt(structure: Field[], path: string, field: Field): Field[] {
  const [head, ...rest] = path.split('.');
  return structure.map((candidate) =>
    candidate.name !== head
      ? candidate
      : rest.length === 0
        ? field
        : { ...candidate, fields: replaceAt(candidate.fields ?? [], rest.join('.'), field) },
  );
}

const shown = (values: unknown[]) =>
  values
    .slice(0, SHOWN)
    .map((value) => JSON.stringify(typeof value === 'string' && value.length > 30 ? `${value.slice(0, 29)}…` : value))
    .join(', ');

/** Why the repaired field's values are not its own, or undefined when they are. */
function whyNotOwn(expected: unknown[], now: unknown[], shared: boolean): string | undefined {
  if (expected.length === 0 || now.length === 0) return undefined;
  if (shared) {
    const kinds = expected.map(valueKind);
    const kind = kinds[0];
    if (!kind || !kinds.every((other) => other === kind)) return undefined;
    const fitting = now.filter((value) => fitsKind(kind, valueKind(value))).length;
    return fitting * 2 >= now.length ? undefined : `it would read ${shown(now)} where it read ${shown(expected)}: not values of its kind`;
  }
  const present = new Set(now.map(norm));
  const kept = expected.filter((value) => present.has(norm(value))).length;
  if (kept >= expected.length * OWN_VALUES_KEPT) return undefined;
  return `it would read ${shown(now)} where it read ${shown(expected)} (${kept} of ${expected.length} of its last good values): not this field's values`;
}

/**
 * Refuses the repaired leaf fields whose values are not theirs. `extract` gives what a structure reads from the
 * page; `shared` names the fields repaired with a partner rather than by their own values.
 */
export function checkRepair(
  old: Field[],
  repairedStructure: Field[],
  repaired: string[],
  shared: Set<string>,
  expected: Record<string, unknown>,
  extract: (structure: Field[]) => Record<string, unknown>,
): RepairCheck {
  let structure = repairedStructure;
  const refused: string[] = [];
  const data = extract(structure);
  for (const path of repaired) {
    const field = fieldAt(structure, path);
    const before = fieldAt(old, path);
    if (!field || !before || field.fields) continue; // a list of objects is judged by its fields
    const why = whyNotOwn(valuesAt(expected, path), valuesAt(data, path), shared.has(path));
    if (!why) continue;
    structure = replaceAt(structure, path, { ...field, selector: before.selector! });
    refused.push(`${path}: ${why}`);
  }
  return { structure, refused };
}
