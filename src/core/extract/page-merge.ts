import type { Field } from '../config/index.js';

/**
 * Pages (or rounds of "load more" and scrolling) merged into one answer (docs/pagination.md): the first page's
 * data, with its list field holding the items of every page in order, each item once, cut at `maxItems`.
 *
 * Two items are the same when they are equal in every field, or, with a `key` field (such as `url`), equal in
 * it. Used by the page loop of `next` and `variable` (src/core/retrieval/paginate.ts) and by the browser's
 * rounds, so both merge alike.
 */
export interface PageMergeOptions {
  /** The top-level array field the pages are merged into. */
  list: string;
  /** A field of the items that tells them apart; default: every field. */
  key?: string | undefined;
  /** Stop, and cut the list, at this many items. */
  maxItems?: number | undefined;
}

export interface PageMerge {
  /** The merged data: the first page's other fields, and the list of every page's new items so far. */
  readonly data: Record<string, unknown>;
  /** Adds a later page's data; how many new items it brought (0: nothing new, a reason to stop). */
  add(data: Record<string, unknown>): number;
  /** Items in the list. */
  readonly items: number;
  /** `maxItems` reached: nothing more is taken, and the page loop stops. */
  readonly full: boolean;
}

/** The list a pagination merges into: the one it names, else the structure's first top-level array field. */
export function paginationListField(structure: readonly Field[], pagination: { list?: string | undefined }): string | undefined {
  if (pagination.list !== undefined)
    return structure.some((field) => field.name === pagination.list && field.type === 'array') ? pagination.list : undefined;
  return structure.find((field) => field.type === 'array')?.name;
}

/** What makes an item itself: its key field's value when it has one, else all of it. */
function identity(item: unknown, key: string | undefined): string {
  if (key !== undefined && typeof item === 'object' && item !== null && !Array.isArray(item) && Object.hasOwn(item, key)) {
    const value = (item as Record<string, unknown>)[key];
    if (value !== null && value !== undefined && value !== '') return `k${JSON.stringify(value)}`;
  }
  return `i${JSON.stringify(item)}`;
}

function listOf(data: Record<string, unknown>, list: string): unknown[] {
  const value = Object.hasOwn(data, list) ? data[list] : undefined;
  return Array.isArray(value) ? value : [];
}

export function mergePages(first: Record<string, unknown>, options: PageMergeOptions): PageMerge {
  const { list, key } = options;
  const limit = options.maxItems ?? Number.POSITIVE_INFINITY;
  const items: unknown[] = [];
  const seen = new Set<string>();
  const take = (data: Record<string, unknown>): number => {
    let added = 0;
    for (const item of listOf(data, list)) {
      if (items.length >= limit) break;
      const id = identity(item, key);
      if (seen.has(id)) continue;
      seen.add(id);
      items.push(item);
      added += 1;
    }
    return added;
  };
  take(first);
  // A new object: the first page's may carry the JSON text of its own list (shared/json-text.ts).
  const data: Record<string, unknown> = { ...first };
  Object.defineProperty(data, list, { value: items, enumerable: true, writable: true, configurable: true });
  return {
    data,
    add: take,
    get items() {
      return items.length;
    },
    get full() {
      return items.length >= limit;
    },
  };
}
