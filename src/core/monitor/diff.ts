import { isDeepStrictEqual } from 'node:util';

/**
 * What changed between two runs of a monitor, as JSON: items added to and removed from arrays, and fields
 * that changed. Items of an array of objects are matched by a stable key when the array has one (a field
 * named like url, link, href, id, sku or slug whose values are present and distinct in both runs), so an
 * item that moved or changed its price is one change, not a removal and an addition. Without a key, items
 * are matched by their whole value.
 *
 * Paths are dotted with the key in brackets: `jobs[url=https://…/42].salary`, `prices[3]`, `title`.
 */
export interface DataChange {
  added: Array<{ path: string; key?: string; item: unknown }>;
  removed: Array<{ path: string; key?: string; item: unknown }>;
  changed: Array<{ path: string; from: unknown; to: unknown }>;
}

export function isEmptyChange(change: DataChange): boolean {
  return change.added.length === 0 && change.removed.length === 0 && change.changed.length === 0;
}

/** Names that identify an item, best first. */
const KEY_NAMES = ['id', 'url', 'link', 'href', 'permalink', 'sku', 'slug', 'uuid', 'guid', 'key', 'code'];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function scalarKey(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** The field both arrays can be matched by, or undefined. */
export function stableKeyOf(before: unknown[], after: unknown[]): string | undefined {
  const items = [...before, ...after];
  if (items.length === 0 || !items.every(isRecord)) return undefined;
  const records = items as Array<Record<string, unknown>>;
  const names = new Set<string>();
  for (const record of records) for (const name of Object.keys(record)) names.add(name);
  const ranked = [...names]
    .map((name) => {
      const lower = name.toLowerCase();
      const exact = KEY_NAMES.indexOf(lower);
      const suffix = KEY_NAMES.findIndex((key) => lower.endsWith(key) && lower.length > key.length);
      return { name, rank: exact >= 0 ? exact : suffix >= 0 ? KEY_NAMES.length + suffix : -1 };
    })
    .filter((candidate) => candidate.rank >= 0)
    .sort((a, b) => a.rank - b.rank);
  const distinctIn = (list: unknown[], name: string): boolean => {
    const seen = new Set<string>();
    for (const item of list) {
      const key = scalarKey((item as Record<string, unknown>)[name]);
      if (key === undefined || seen.has(key)) return false;
      seen.add(key);
    }
    return true;
  };
  return ranked.find((candidate) => distinctIn(before, candidate.name) && distinctIn(after, candidate.name))?.name;
}

export function diffData(before: unknown, after: unknown): DataChange {
  const change: DataChange = { added: [], removed: [], changed: [] };
  walk(before, after, '', change);
  return change;
}

const join = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);

function walk(before: unknown, after: unknown, path: string, change: DataChange): void {
  if (isDeepStrictEqual(before, after)) return;
  if (isRecord(before) && isRecord(after)) {
    const names = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const name of names)
      walk(
        Object.hasOwn(before, name) ? before[name] : undefined,
        Object.hasOwn(after, name) ? after[name] : undefined,
        join(path, name),
        change,
      );
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) return diffArrays(before, after, path, change);
  change.changed.push({ path: path === '' ? '.' : path, from: before ?? null, to: after ?? null });
}

function diffArrays(before: unknown[], after: unknown[], path: string, change: DataChange): void {
  const keyName = stableKeyOf(before, after);
  if (keyName) {
    const keyOf = (item: unknown) => scalarKey((item as Record<string, unknown>)[keyName])!;
    const earlier = new Map(before.map((item) => [keyOf(item), item]));
    const later = new Map(after.map((item) => [keyOf(item), item]));
    for (const [key, item] of later) {
      const at = `${path}[${keyName}=${key}]`;
      if (!earlier.has(key)) change.added.push({ path, key: `${keyName}=${key}`, item });
      else walk(earlier.get(key), item, at, change);
    }
    for (const [key, item] of earlier) if (!later.has(key)) change.removed.push({ path, key: `${keyName}=${key}`, item });
    return;
  }
  // No key: an item is the same item when its whole value is; counts matter (two equal rows are two rows).
  const remaining = [...after];
  const removed: unknown[] = [];
  for (const item of before) {
    const index = remaining.findIndex((candidate) => isDeepStrictEqual(candidate, item));
    if (index >= 0) remaining.splice(index, 1);
    else removed.push(item);
  }
  // Scalars or keyless objects whose arrays kept their length: report them as changes in place, which reads
  // better than a removal and an addition (a price list where one price moved).
  if (removed.length === 1 && remaining.length === 1 && before.length === after.length) {
    const index = before.findIndex((item) => isDeepStrictEqual(item, removed[0]));
    return walk(removed[0], remaining[0], `${path}[${index}]`, change);
  }
  for (const item of remaining) change.added.push({ path, item });
  for (const item of removed) change.removed.push({ path, item });
}
