import type { Field } from '../config/index.js';
import { isEmptyValue } from '../extract/index.js';
import type { FieldBaseline, HealthBaseline, ValueKind } from '../state/index.js';
import { fitsKind, STRICT_KIND_SHARE, strictKindOf, valueKind } from './value-kind.js';
import { learnedRead, type ListRead } from './list-read.js';

/**
 * The health baseline: per field, what good data looks like (how often it is filled, how many items an array
 * has, what kind its values are), learned from every healthy observation — snapshots, the generated sample,
 * healthy retrievals and monitor runs — and kept in the endpoint's status. It belongs to the field, not its
 * name: `carryBaseline` finds each field of the current structure its entry by path and, where the path is
 * new, by what the field reads (selector and attribute under the same list), so a rename or a move (by `edit`,
 * the dashboard or a hand edit) keeps it; a repair (`heal`) keeps names, so paths find it. A field with no
 * entry is new and is judged only on being filled.
 */
/** Observations beyond this weigh less: counts are scaled down so the latest twenty decide. */
const WINDOW = 20;
const KEPT_COUNTS = 10;
/** Values of one field classified per observation (a list of 5,000 items needs no more to say what it holds). */
const CLASSIFIED_VALUES = 50;

/** One field in one extraction. */
export interface FieldReading {
  path: string;
  field: Field;
  /** A field of the items of a list: one value per item. */
  inItems: boolean;
  filled: boolean;
  /** Its values (items' values for an item field, the elements for an array of scalars). */
  values: unknown[];
  /** Item fields: items in which it is empty, of how many items (none: the field is not judged, its list is). */
  emptyIn?: number;
  ofItems?: number;
  /** Arrays outside items: how many items. */
  count?: number;
}

const valueAt = (record: unknown, name: string): unknown =>
  record !== null && typeof record === 'object' && !Array.isArray(record) && Object.hasOwn(record, name)
    ? (record as Record<string, unknown>)[name]
    : undefined;

/** Every field of the structure as the data holds it, parents before their fields. */
export function readFields(structure: Field[], data: unknown): FieldReading[] {
  const out: FieldReading[] = [];
  walk(structure, [data], '', false, out);
  return out;
}

function walk(fields: Field[], records: unknown[], prefix: string, inItems: boolean, out: FieldReading[]): void {
  for (const field of fields) {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const values = records.map((record) => valueAt(record, field.name));
    if (field.type === 'object' && field.fields && field.fields.length > 0) {
      walk(field.fields, values, path, inItems, out);
      continue;
    }
    if (field.type === 'array') {
      const elements = values.flatMap((value) => (Array.isArray(value) ? (value as unknown[]) : []));
      const count = inItems ? undefined : elements.length;
      out.push({
        path,
        field,
        inItems,
        filled: field.fields ? elements.length > 0 : elements.some((element) => !isEmptyValue(element)),
        values: field.fields ? [] : elements,
        ...(count === undefined ? {} : { count }),
        ...(inItems ? { ofItems: records.length } : {}),
      });
      if (field.fields && field.fields.length > 0) walk(field.fields, elements, path, true, out);
      continue;
    }
    const empty = values.filter((value) => isEmptyValue(value)).length;
    out.push({
      path,
      field,
      inItems,
      filled: empty < values.length,
      values,
      ...(inItems ? { emptyIn: empty, ofItems: records.length } : {}),
    });
  }
}

const round = (value: number) => Math.round(value * 100) / 100;

function identityOf(field: Field): Pick<FieldBaseline, 'selector' | 'attribute' | 'type'> {
  const attribute = field.attribute ?? field.items?.attribute;
  return { type: field.type, ...(field.selector !== undefined ? { selector: field.selector } : {}), ...(attribute ? { attribute } : {}) };
}

/** The median length of a reading's text values (undefined without any). */
export function medianLength(values: unknown[]): number | undefined {
  const lengths = values
    .slice(0, CLASSIFIED_VALUES)
    .filter((value): value is string => typeof value === 'string' && value.trim() !== '')
    .map((value) => value.replace(/\s+/g, ' ').trim().length)
    .sort((a, b) => a - b);
  return lengths.length === 0 ? undefined : lengths[Math.floor(lengths.length / 2)];
}

/** The kinds of a reading's values as shares summing to one (nothing when it has no classifiable value). */
function kindShares(values: unknown[]): Map<ValueKind, number> {
  const kinds = values
    .slice(0, CLASSIFIED_VALUES)
    .map(valueKind)
    .filter((kind): kind is ValueKind => kind !== undefined);
  const shares = new Map<ValueKind, number>();
  for (const kind of kinds) shares.set(kind, (shares.get(kind) ?? 0) + 1 / kinds.length);
  return shares;
}

/**
 * The kinds after one more observation. A field of a strict kind learns kinds only from an observation whose
 * values fit it as well as the baseline asks (90%): a page that mixes a few words among its prices is healthy
 * (more than half still fit), but taught as good it would loosen the kind within two loads, and a later read of
 * words alone would pass as healthy (issue 45, health poisoning). A real change of kind is taken by `--accept`.
 */
function learnKinds(before: FieldBaseline | undefined, values: unknown[], scale: number): Partial<Record<ValueKind, number>> {
  const shares = kindShares(values);
  const strict = strictKindOf(before?.kinds);
  const fitting = [...shares].reduce((sum, [kind, share]) => sum + (strict !== undefined && fitsKind(strict, kind) ? share : 0), 0);
  if (strict !== undefined && shares.size > 0 && fitting < STRICT_KIND_SHARE) return { ...before!.kinds };
  const kinds: Partial<Record<ValueKind, number>> = {};
  for (const [kind, share] of Object.entries(before?.kinds ?? {}) as Array<[ValueKind, number]>) kinds[kind] = share * scale;
  for (const [kind, share] of shares) kinds[kind] = (kinds[kind] ?? 0) + share;
  for (const kind of Object.keys(kinds) as ValueKind[]) kinds[kind] = round(kinds[kind]!);
  return kinds;
}

function learnField(
  before: FieldBaseline | undefined,
  reading: FieldReading,
  header: string | undefined,
  read: ListRead | undefined,
): FieldBaseline {
  // A list with no items says nothing of its items' fields.
  if (reading.ofItems === 0)
    return before
      ? { ...before, path: reading.path, ...identityOf(reading.field) }
      : { path: reading.path, ...identityOf(reading.field), seen: 0, filled: 0 };
  const scale = before && before.seen >= WINDOW ? (WINDOW - 1) / before.seen : 1;
  const kinds = learnKinds(before, reading.values, scale);
  // A paginated list's count is learned from whole reads only (list-read.ts).
  const counts =
    reading.count === undefined
      ? undefined
      : read?.path === reading.path
        ? learnedRead(before, reading.count, read)
        : { counts: [...(before?.counts ?? []), reading.count].slice(-KEPT_COUNTS) };
  const median = medianLength(reading.values);
  const lengths = median === undefined ? before?.lengths : [...(before?.lengths ?? []), median].slice(-KEPT_COUNTS);
  return {
    path: reading.path,
    ...identityOf(reading.field),
    seen: round((before?.seen ?? 0) * scale + 1),
    filled: round((before?.filled ?? 0) * scale + (reading.filled ? 1 : 0)),
    ...counts,
    ...(lengths ? { lengths } : {}),
    ...((header ?? before?.header) !== undefined ? { header: header ?? before!.header! } : {}),
    ...(Object.keys(kinds).length > 0 ? { kinds } : {}),
  };
}

/**
 * The baseline after one more healthy observation of `data` (entries of fields no longer in the structure go);
 * `read`: how a paginated list was read (its count is learned only from a whole read).
 */
export function learnBaseline(
  baseline: HealthBaseline | undefined,
  structure: Field[],
  data: unknown,
  headers: Record<string, string> = {},
  read?: ListRead,
): HealthBaseline {
  const known = new Map((baseline?.fields ?? []).map((entry) => [entry.path, entry]));
  const sample = sampleOf(data);
  return {
    version: 1,
    fields: readFields(structure, data).map((reading) =>
      learnField(known.get(reading.path), reading, Object.hasOwn(headers, reading.path) ? headers[reading.path] : undefined, read),
    ),
    ...(sample ? { sample } : {}),
  };
}

const SAMPLE_ITEMS = 10;
const SAMPLE_TEXT = 300;
const SAMPLE_BYTES = 16 * 1024;

/** The data cut short for keeping: lists to their first items, text to its first characters; nothing when still large. */
function sampleOf(data: unknown): Record<string, unknown> | undefined {
  const cut = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return value.slice(0, SAMPLE_TEXT);
    if (Array.isArray(value)) return value.slice(0, SAMPLE_ITEMS).map((item) => cut(item, depth + 1));
    if (value !== null && typeof value === 'object' && depth < 6)
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cut(inner, depth + 1)]));
    return typeof value === 'object' && value !== null ? null : value;
  };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const sample = cut(data, 0) as Record<string, unknown>;
  return JSON.stringify(sample).length <= SAMPLE_BYTES ? sample : undefined;
}

/**
 * A baseline learned from the last good data the project holds (snapshots, then the generated sample);
 * `reads[i]`: how `goodData[i]` read a paginated list, when not whole (the sample: its first page).
 */
export function seedBaseline(structure: Field[], goodData: unknown[], reads: Array<ListRead | undefined> = []): HealthBaseline | undefined {
  const usable = goodData
    .map((data, index) => ({ data, read: reads[index] }))
    .filter(({ data }) => data !== null && typeof data === 'object' && !Array.isArray(data));
  if (usable.length === 0) return undefined;
  return usable.reduce<HealthBaseline | undefined>(
    (baseline, { data, read }) => learnBaseline(baseline, structure, data, {}, read),
    undefined,
  );
}

/**
 * The stored baseline placed on the current structure: each field finds its entry by path when that entry was
 * learned for the same selector (or no other field of the level reads it now), else by the selector and
 * attribute it reads under the same list (renamed or moved). A field whose type changed keeps its fill and
 * counts, not its kinds (retyped: its values are read anew).
 */
export function carryBaseline(stored: HealthBaseline | undefined, structure: Field[]): HealthBaseline | undefined {
  if (!stored || !Array.isArray(stored.fields) || stored.fields.length === 0) return undefined;
  const byPath = new Map<string, FieldBaseline>();
  for (const entry of stored.fields) if (entry && typeof entry.path === 'string') byPath.set(entry.path, entry);
  const out: FieldBaseline[] = [];
  const moves = new Map<string, string>();
  carryLevel(structure, '', '', byPath, out, moves);
  if (out.length === 0) return undefined;
  const sample = stored.sample !== null && typeof stored.sample === 'object' && !Array.isArray(stored.sample) ? stored.sample : undefined;
  return { version: 1, fields: out, ...(sample ? { sample: movedSample(sample, structure, moves, '') } : {}) };
}

/** The sample's values under the fields' current names (`moves`: current path → stored path). */
function movedSample(
  sample: Record<string, unknown>,
  fields: Field[],
  moves: Map<string, string>,
  prefix: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const from = (moves.get(path) ?? path).split('.').pop()!;
    if (!Object.hasOwn(sample, from)) continue;
    const value = sample[from];
    const nested = field.fields ?? [];
    const moved =
      nested.length === 0
        ? value
        : Array.isArray(value)
          ? value.map((item) =>
              item !== null && typeof item === 'object' ? movedSample(item as Record<string, unknown>, nested, moves, path) : item,
            )
          : value !== null && typeof value === 'object'
            ? movedSample(value as Record<string, unknown>, nested, moves, path)
            : value;
    Object.defineProperty(out, field.name, { value: moved, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `storedPrefix`: where this level's fields were in the stored baseline (a renamed list moves its items' paths). */
function carryLevel(
  fields: Field[],
  prefix: string,
  storedPrefix: string,
  byPath: Map<string, FieldBaseline>,
  out: FieldBaseline[],
  moves: Map<string, string>,
): void {
  const level = [...byPath.values()].filter((entry) => parentOf(entry.path) === storedPrefix);
  const sameRead = (entry: FieldBaseline, field: Field) => {
    const identity = identityOf(field);
    return entry.selector === identity.selector && entry.attribute === identity.attribute;
  };
  const claimed = new Set<FieldBaseline>();
  const pick = (field: Field): FieldBaseline | undefined => {
    const byName = byPath.get(storedPrefix ? `${storedPrefix}.${field.name}` : field.name);
    if (byName && !claimed.has(byName) && sameRead(byName, field)) return byName;
    const moved = level.filter((entry) => !claimed.has(entry) && sameRead(entry, field) && entry.selector !== undefined);
    if (moved.length === 1) return moved[0];
    // Same name, another selector (edited or repaired): still this field, unless another field reads the old one now.
    if (byName && !claimed.has(byName) && !fields.some((other) => other !== field && sameRead(byName, other))) return byName;
    return undefined;
  };
  for (const field of fields) {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const entry = pick(field);
    if (entry) {
      claimed.add(entry);
      moves.set(path, entry.path);
    }
    const nested = field.fields && field.fields.length > 0;
    if (field.type === 'object' && nested) {
      carryLevel(field.fields!, path, entry?.path ?? (storedPrefix ? `${storedPrefix}.${field.name}` : field.name), byPath, out, moves);
      continue;
    }
    if (entry) out.push(carried(entry, path, field));
    if (nested) carryLevel(field.fields!, path, entry?.path ?? path, byPath, out, moves);
  }
}

function carried(entry: FieldBaseline, path: string, field: Field): FieldBaseline {
  const retyped = entry.type !== field.type;
  const { kinds, counts, lengths, ...rest } = entry;
  const keepCounts = counts && field.type === 'array' && Array.isArray(counts);
  return {
    ...rest,
    path,
    ...identityOf(field),
    ...(keepCounts ? { counts: counts.filter((count) => Number.isFinite(count)) } : {}),
    ...(kinds && !retyped ? { kinds } : {}),
    ...(lengths && !retyped && Array.isArray(lengths) ? { lengths: lengths.filter((length) => Number.isFinite(length)) } : {}),
  };
}

function parentOf(path: string): string {
  const at = path.lastIndexOf('.');
  return at < 0 ? '' : path.slice(0, at);
}
