import type { ApiConfig } from '../config/index.js';
import { paginationListField } from '../extract/index.js';
import type { FieldBaseline } from '../state/index.js';

/**
 * How one retrieval read a paginated or load-more list (issue 47 item 2): a list's baseline learned from its
 * first page alone ("at least 9") accepts a later read that stops after that page (the next link broken, 9
 * products of 24). Its count is therefore learned from whole reads only (every page, not cut short by the time
 * budget or a failed page), together with how many pages they took; a read with fewer pages and fewer items
 * than every whole read stopped early, and the finding says so with both figures.
 */
export interface ListRead {
  /** The top-level list the pages are merged into. */
  path: string;
  /** Pages fetched, or rounds of a load-more button or scroll read, the first included. */
  pages: number;
  /** Read to the list's end or a limit; not whole: cut short (`partial`) or not a retrieval (the generated sample). */
  whole: boolean;
  partial?: string;
}

const KEPT = 10;

/** A retrieval's read of the config's list: nothing without pagination (or without a list to merge into). */
export function listReadOf(
  config: Pick<ApiConfig, 'structure' | 'pagination'>,
  read: { pages?: number | undefined; partial?: string | undefined } | undefined,
): ListRead | undefined {
  const path = config.pagination ? paginationListField(config.structure, config.pagination) : undefined;
  if (path === undefined || read?.pages === undefined || !Number.isFinite(read.pages)) return undefined;
  return { path, pages: read.pages, whole: read.partial === undefined, ...(read.partial ? { partial: read.partial } : {}) };
}

/** The generated sample of a paginated config: its first page, which says nothing of the whole list's length. */
export function firstPageRead(config: Pick<ApiConfig, 'structure' | 'pagination'>): ListRead | undefined {
  const read = listReadOf(config, { pages: 1 });
  return read ? { ...read, whole: false } : undefined;
}

const positive = (values: number[] | undefined) =>
  (Array.isArray(values) ? values : []).filter((value) => Number.isFinite(value) && value > 0);

/** The item counts that go with the pages of whole reads (older counts may come from first pages alone). */
export function wholeCounts(entry: FieldBaseline | undefined): number[] {
  const counts = Array.isArray(entry?.counts) ? entry.counts : [];
  const pages = positive(entry?.pages);
  return positive(pages.length > 0 ? counts.slice(-pages.length) : counts);
}

/** What a list's entry learns of one read: counts and pages only from a whole read. */
export function learnedRead(
  before: FieldBaseline | undefined,
  count: number,
  read: ListRead | undefined,
): Pick<FieldBaseline, 'counts' | 'pages'> {
  if (read && !read.whole)
    return { ...(before?.counts ? { counts: before.counts } : {}), ...(before?.pages ? { pages: before.pages } : {}) };
  const counts = [...(before?.counts ?? []), count].slice(-KEPT);
  const pages = read ? [...(before?.pages ?? []), read.pages].slice(-KEPT) : before?.pages;
  return { counts, ...(pages ? { pages } : {}) };
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The finding of a read that stopped early, if it did: fewer pages and fewer items than every whole read. */
export function stoppedEarly(count: number, entry: FieldBaseline | undefined, read: ListRead | undefined): string | undefined {
  const pages = positive(entry?.pages);
  const counts = wholeCounts(entry);
  if (!read || pages.length === 0 || counts.length === 0) return undefined;
  const [fewestPages, fewestItems] = [Math.min(...pages), Math.min(...counts)];
  if (read.pages >= fewestPages || count >= fewestItems) return undefined;
  const cut = read.partial ? ` (cut short: ${read.partial})` : '';
  return (
    `read ${plural(count, 'item')} from ${plural(read.pages, 'page')}${cut} where every whole read had at least ` +
    `${plural(fewestItems, 'item')} from ${plural(fewestPages, 'page')}: the reading stopped early`
  );
}
