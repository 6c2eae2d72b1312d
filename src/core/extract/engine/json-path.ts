/**
 * `json:<dotted.path>`: JSON-LD and embedded page state (`script#__NEXT_DATA__`, `window.__STATE__` blobs in
 * `<script type="application/json">`). Paths are dotted names; `[n]` or a numeric segment indexes an array.
 * A name applied to an array looks into its elements (JSON-LD writes `offers` as an object or an array).
 * The first segment may name a schema.org type instead of a key (`Product.offers.price`): then the first
 * object of that `@type` anywhere in the value (`@graph`, arrays, nesting) for which the rest of the path
 * resolves is used; the type matches whatever its case or prefix (`product`, `schema:Product`).
 */

export type JsonPath = string[];

const SEGMENT = /^[^.[\]]+$/;

/** Parses `a.b[0].c` into segments; throws with a message when malformed. Empty text = the whole value. */
export function parseJsonPath(text: string): JsonPath {
  if (text === '') return [];
  const normalised = text.replace(/\[(\d+)\]/g, '.$1');
  const segments = normalised.startsWith('.') ? normalised.slice(1).split('.') : normalised.split('.');
  for (const segment of segments) {
    if (segment === '') throw new Error(`json path "${text}" has an empty segment`);
    if (!SEGMENT.test(segment)) throw new Error(`json path "${text}" has a malformed segment "${segment}"`);
  }
  return segments;
}

/** JSON.parse with the repairs real pages need: HTML comment or CDATA wrappers, raw newlines in strings. */
export function parseLooseJson(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    const unwrapped = trimmed
      .replace(/^\s*(?:<!--|\/\/\s*<!\[CDATA\[|<!\[CDATA\[)/, '')
      .replace(/(?:-->|\/\/\s*\]\]>|\]\]>)\s*$/, '')
      .replace(/[\n\r\t]+/g, ' ')
      .replace(/;\s*$/, '');
    try {
      return JSON.parse(unwrapped);
    } catch {
      return undefined;
    }
  }
}

export function resolveJsonPath(value: unknown, path: JsonPath): unknown {
  if (path.length === 0) return value;
  const direct = walk(value, path);
  if (direct !== undefined) return direct;
  const [typeName, ...rest] = path;
  for (const candidate of objectsOfType(value, typeName!)) {
    const found = walk(candidate, rest);
    if (found !== undefined) return found;
  }
  return undefined;
}

function walk(value: unknown, path: JsonPath): unknown {
  let current: unknown = value;
  for (const segment of path) {
    current = step(current, segment);
    if (current === undefined || current === null) return current === null ? null : undefined;
  }
  return current;
}

function step(value: unknown, segment: string): unknown {
  if (Array.isArray(value)) {
    if (/^\d+$/.test(segment)) return value[Number(segment)];
    for (const element of value) {
      const found = step(element, segment);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, segment)) return (value as Record<string, unknown>)[segment];
  return undefined;
}

/** Depth-first, document order: every object whose `@type` is (or lists) the name, full IRIs included. */
function* objectsOfType(value: unknown, typeName: string, depth = 0): Generator<Record<string, unknown>> {
  if (depth > 64 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const element of value) yield* objectsOfType(element, typeName, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  if (hasType(record['@type'], typeName)) yield record;
  for (const child of Object.values(record)) yield* objectsOfType(child, typeName, depth + 1);
}

/**
 * Pages write types as they please (`product`, `schema:Product`, `http://schema.org/Product`): the name is
 * compared case-insensitively with the type's last segment.
 */
function hasType(type: unknown, name: string): boolean {
  if (Array.isArray(type)) return type.some((entry) => hasType(entry, name));
  if (typeof type !== 'string') return false;
  const last = type.trim().replace(/^.*[/:#]/, '');
  return last.toLowerCase() === name.toLowerCase();
}
