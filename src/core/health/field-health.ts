import { hasCallerVariables, type ApiConfig, type Field } from '../config/index.js';
import type { FieldBaseline, HealthBaseline, ValueKind } from '../state/index.js';
import { carryBaseline, medianLength, readFields, seedBaseline, type FieldReading } from './baseline.js';
import { fitsKind, KIND_WORDS, STRICT_KIND_SHARE, strictKindOf, valueKind } from './value-kind.js';
import { underCurrentNames } from './renamed-data.js';
import { firstPageRead, listReadOf, stoppedEarly, wholeCounts, type ListRead } from './list-read.js';

/**
 * The one judgement of health (issue 33): `run`, `check`, `test`, `heal`, the daemon's loads and therefore
 * monitors, `status` and the dashboard all call `judgeHealth` with the endpoint's baseline (baseline.ts), so
 * they cannot disagree about the same data. Not healthy is:
 *
 * - a field filled in (nearly) every good observation and now empty everywhere (in every item of a list);
 * - an array emptied, or shrunk below half the fewest items a good observation had (lists vary; a page of
 *   12 results where there were 20 is not a break, a page of 3 is);
 * - values whose kind changed: a number that no longer parses, a price that became words, a URL that is
 *   not one, a date that is not one (labels and free text are never judged: they vary on healthy pages).
 *
 * A finding on a `required` field makes it `broken` (the daemon's 502, EXTRACTION_EMPTY); any other makes it
 * `degraded` (served, marked, never cached). A field without a baseline is new: judged only on being filled
 * when required. Each finding names the field and what changed.
 */
export type HealthState = 'healthy' | 'degraded' | 'broken';

export type FieldProblem =
  'required-empty' | 'array-emptied' | 'emptied' | 'shrunk' | 'stopped-early' | 'header-changed' | 'kind-changed' | 'shape-changed';

export interface FieldHealth {
  /** Dotted path (`books`, `books.price`, `product.price`). */
  path: string;
  /** The field yielded a value (arrays: at least one item; item fields: in some item). */
  matched: boolean;
  /** Arrays outside items: items now, and the fewest a good observation had. */
  items?: number;
  expectedItems?: number;
  /** Why the field counts against the health, when it does. */
  problem?: FieldProblem;
  /** The finding in words ("price: empty in 1 of 1 (was filled in 5 of 5)"). */
  message?: string;
}

export interface Health {
  state: HealthState;
  fields: FieldHealth[];
  /** Paths of the fields with a problem, in structure order. */
  failing: string[];
  /** The findings in words, one per failing field. */
  findings: string[];
  /** How a paginated or load-more list was read (what the baseline learns of it: list-read.ts). */
  read?: ListRead;
}

/** A field is expected filled when it was in at least this share of the good observations. */
const FILLED_SHARE = 0.9;
/** A strict kind is the field's when at least this share of its good values had it (strictKindOf)... */
const KIND_SHARE = STRICT_KIND_SHARE;
/** ...and it changed when fewer than this share of its values now fit it. */
const KIND_KEPT = 0.5;

const whole = (value: number) => String(Math.round(value));
const quote = (value: unknown) => {
  const text = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : JSON.stringify(value);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 39)}…` : text);
};

function expectsFilled(entry: FieldBaseline | undefined): entry is FieldBaseline {
  return entry !== undefined && Number.isFinite(entry.seen) && entry.seen > 0 && entry.filled / entry.seen >= FILLED_SHARE;
}

/** The fewest items a good observation had (0 when none is known; a paginated list: a whole read). */
function fewestItems(entry: FieldBaseline | undefined): number {
  const counts = wholeCounts(entry);
  return counts.length === 0 ? 0 : Math.min(...counts);
}

/** The strict kind (number, price, URL, date) nearly all of the field's good values had, if any. */
function strictKind(entry: FieldBaseline | undefined): ValueKind | undefined {
  return strictKindOf(entry?.kinds);
}

/** Labels of a list's items now of another length altogether: read from another element (a hidden sort key, a neighbour). */
const SHAPE_ITEMS = 3;
const SHAPE_RATIO = 1.8;
/**
 * Values of a field whose kinds a judgement reads: the first 20. Every load is judged, so this bounds its cost
 * whatever the list's length (a 200-item list took half a millisecond of the daemon's main thread per uncached
 * retrieval when every value was classified, twice); a redesign that changes a column's kind changes it in
 * every row, so twenty rows tell it as well as two hundred.
 */
const JUDGED_VALUES = 20;

function shapeChange(reading: FieldReading, entry: FieldBaseline | undefined): string | undefined {
  const seen = (entry?.lengths ?? []).filter((length) => Number.isFinite(length) && length > 0);
  const kinds = entry?.kinds;
  // Only labels of list items: a scalar's value is one value of one page (another product has another name).
  if (!reading.inItems || reading.field.type !== 'string' || seen.length === 0 || !kinds || !Object.hasOwn(kinds, 'label'))
    return undefined;
  const total = Object.values(kinds).reduce<number>((sum, share) => sum + (Number.isFinite(share) ? share! : 0), 0);
  if (total <= 0 || kinds.label! / total < KIND_SHARE) return undefined;
  // Labels now too (values that became another kind are the kind check's).
  const texts = reading.values
    .slice(0, JUDGED_VALUES)
    .filter((value): value is string => typeof value === 'string' && valueKind(value) === 'label');
  const now = medianLength(texts);
  if (texts.length < SHAPE_ITEMS || now === undefined) return undefined;
  const [fewest, most] = [Math.min(...seen), Math.max(...seen)];
  const example = quote(texts.find((text) => text.replace(/\s+/g, ' ').trim().length === now) ?? texts[0]);
  if (now > most * SHAPE_RATIO) return `labels became longer, such as ${example} (were about ${most} characters)`;
  if (now * SHAPE_RATIO < fewest) return `labels became shorter, such as ${example} (were about ${fewest} characters)`;
  return undefined;
}

/** A list read short: stopped early (fewer pages and items than whole reads), or shrunk below half of its fewest. */
function countProblem(
  reading: FieldReading,
  entry: FieldBaseline | undefined,
  read: ListRead | undefined,
  fewest: number,
): { problem: FieldProblem; message: string } | undefined {
  const count = reading.count;
  if (count === undefined) return undefined;
  const early = read?.path === reading.path ? stoppedEarly(count, entry, read) : undefined;
  if (early) return { problem: 'stopped-early', message: early };
  if (fewest > 0 && count * 2 < fewest)
    return { problem: 'shrunk', message: `${count} item${count === 1 ? '' : 's'} (had at least ${fewest} in every good observation)` };
  return undefined;
}

function judgeField(
  reading: FieldReading,
  entry: FieldBaseline | undefined,
  listsVary: boolean,
  header: string | undefined,
  read: ListRead | undefined,
): FieldHealth {
  const { path, field } = reading;
  const health: FieldHealth = { path, matched: reading.filled };
  // A dynamic endpoint's lists are as long as the caller's values make them (a search with no results).
  if (listsVary && reading.count !== undefined && field.required !== true) {
    health.items = reading.count;
    return health;
  }
  // The fields of a list with no items are not judged: the list is.
  if (reading.ofItems === 0) return health;
  const fewest = fewestItems(entry);
  if (reading.count !== undefined) {
    health.items = reading.count;
    if (fewest > 0) health.expectedItems = fewest;
  }
  const was = entry ? `was filled in ${whole(entry.filled)} of ${whole(entry.seen)}` : 'a required field';
  const label = reading.inItems ? `${path.replace(/\.([^.]+)$/, '[].$1')}` : path;
  if (!reading.filled && (field.required === true || expectsFilled(entry))) {
    health.problem = field.required === true ? 'required-empty' : reading.count !== undefined ? 'array-emptied' : 'emptied';
    health.message =
      reading.count !== undefined
        ? `${label}: empty${fewest > 0 ? ` (had at least ${fewest} items in every good observation)` : ` (${was})`}`
        : reading.inItems
          ? `${label}: empty in ${reading.emptyIn ?? reading.ofItems} of ${reading.ofItems} items (${was})`
          : `${label}: empty in 1 of 1 (${was})`;
    return health;
  }
  const short = countProblem(reading, entry, read, fewest);
  if (short) return { ...health, problem: short.problem, message: `${label}: ${short.message}` };
  const before = typeof entry?.header === 'string' ? entry.header : undefined;
  if (before !== undefined && header !== undefined && header.toLowerCase() !== before.toLowerCase()) {
    health.problem = 'header-changed';
    health.message = `${label}: read under the header ${quote(header)} (was ${quote(before)})`;
    return health;
  }
  const kind = strictKind(entry);
  const shape = kind === undefined ? shapeChange(reading, entry) : undefined;
  if (shape) {
    health.problem = 'shape-changed';
    health.message = `${label}: ${shape}`;
    return health;
  }
  if (kind !== undefined) {
    const present = reading.values
      .slice(0, JUDGED_VALUES)
      .map((value) => ({ value, kind: valueKind(value) }))
      .filter((entry) => entry.kind !== undefined);
    const off = present.filter((entry) => !fitsKind(kind, entry.kind));
    if (present.length > 0 && present.length - off.length < present.length * KIND_KEPT) {
      health.problem = 'kind-changed';
      health.message = `${label}: ${KIND_WORDS[kind]} became ${off[0]!.kind === 'text' || off[0]!.kind === 'label' ? 'words' : 'text'} such as ${quote(off[0]!.value)}`;
    }
  }
  return health;
}

/**
 * The baseline's entries placed on a structure, by path, kept while both stay the same objects: the daemon
 * judges every load of an endpoint against one baseline (retrieval/endpoint-status.ts), and placing it anew
 * was a sixth of each judgement. Baselines are never changed in place (learning makes a new one).
 */
const placed = new WeakMap<HealthBaseline, { structure: Field[]; entries: Map<string, FieldBaseline> }>();

function entriesOn(baseline: HealthBaseline | undefined, structure: Field[]): Map<string, FieldBaseline> {
  if (!baseline) return new Map();
  const known = placed.get(baseline);
  if (known && known.structure === structure) return known.entries;
  // The kept sample is heal's, not the judgement's: carrying it onto the fields' names is waste.
  const carried = carryBaseline(baseline.sample === undefined ? baseline : { ...baseline, sample: undefined }, structure);
  const entries = new Map((carried?.fields ?? []).map((entry) => [entry.path, entry]));
  placed.set(baseline, { structure, entries });
  return entries;
}

/**
 * The health of one extraction against the endpoint's baseline (already carried onto this structure, or
 * stored as it was: it is carried here again, which is idempotent).
 */
export function judgeHealth(
  structure: Field[],
  data: Record<string, unknown>,
  baseline?: HealthBaseline,
  options: { listsVary?: boolean; headers?: Record<string, string>; read?: ListRead } = {},
): Health {
  const entries = entriesOn(baseline, structure);
  const readings = readFields(structure, data);
  const headers = options.headers ?? {};
  const headerOf = (path: string) => (Object.hasOwn(headers, path) ? headers[path] : undefined);
  const fields = readings.map((reading) =>
    judgeField(reading, entries.get(reading.path), options.listsVary === true, headerOf(reading.path), options.read),
  );
  const failing = fields.filter((field) => field.problem !== undefined);
  const required = new Set(readings.filter((reading) => reading.field.required === true).map((reading) => reading.path));
  const selected = readings.filter((reading) => reading.field.selector !== undefined);
  const nothing = selected.length > 0 && selected.every((reading) => !reading.filled);
  const broken = nothing || failing.some((field) => required.has(field.path));
  return {
    state: broken ? 'broken' : failing.length > 0 ? 'degraded' : 'healthy',
    fields,
    failing: failing.map((field) => field.path),
    findings: failing.map((field) => field.message!),
    ...(options.read ? { read: options.read } : {}),
  };
}

/**
 * The health of a config's data: `judgeHealth` with what the config says of its lists. On an endpoint with
 * caller variables (a search), a list's length is the caller's values' (no results is an answer), so its lists
 * are not judged by count; their items still are (fill, kinds, shape), and so are the other fields. `read`:
 * the pages a paginated retrieval read (its result's `pages` and `partial`), to tell a read that stopped early.
 */
export function judgeConfig(
  config: Pick<ApiConfig, 'structure' | 'url' | 'variables' | 'pagination' | 'actions'>,
  data: Record<string, unknown>,
  baseline?: HealthBaseline,
  headers?: Record<string, string>,
  read?: { pages?: number | undefined; partial?: string | undefined },
): Health {
  const listRead = listReadOf(config, read);
  return judgeHealth(config.structure, data, baseline, {
    listsVary: hasCallerVariables(config),
    ...(headers ? { headers } : {}),
    ...(listRead ? { read: listRead } : {}),
  });
}

/** The last good data the config itself holds: the sample its generation saw. */
export function expectedData(config: { generated?: { sample?: unknown } | undefined }): unknown {
  const sample = config.generated?.sample;
  return sample !== null && typeof sample === 'object' && !Array.isArray(sample) ? sample : undefined;
}

/**
 * The baseline to judge with: the stored one carried onto the structure, else one learned from the project's
 * last good data (snapshots' data, then the generated sample).
 */
export function baselineFor(
  config: { structure: Field[]; generated?: { sample?: unknown } | undefined; pagination?: ApiConfig['pagination'] },
  stored: HealthBaseline | undefined,
  snapshotData: unknown[] = [],
): HealthBaseline | undefined {
  const carried = carryBaseline(stored, config.structure);
  if (carried) return carried;
  // Snapshots and the sample keep the names they were taken under: a renamed field keeps its history.
  const seeds = [...snapshotData, expectedData(config)].map((data) =>
    data !== null && typeof data === 'object' && !Array.isArray(data) ? underCurrentNames(config.structure, data) : data,
  );
  // Snapshots hold every page; the sample, the first: it does not teach a paginated list's length.
  const reads = [...snapshotData.map(() => undefined), firstPageRead(config)];
  return seedBaseline(config.structure, seeds, reads);
}
