import { z } from 'zod';
import { FIELD_NAME_PATTERN, VARIABLE_NAME_PATTERN } from './constants.js';
import { renderTemplate, type TemplateSource } from './url-template.js';

/**
 * `pagination` of a config (docs/pagination.md): how the list of an endpoint is read over several pages or
 * rounds. Exactly one kind:
 *
 * - `next`: the selector of the next link; its `href` is fetched as the next page (scrapers 1, 2, 3);
 * - `variable` (+ `start`): a URL variable counted up (`/catalog/{{ page }}`), filled by pagination, never sent
 *   by callers (scrapers 1, 2, 3);
 * - `loadMore`: the selector of a button clicked until it is gone or nothing new appears (scraper 3);
 * - `scroll: true`: scroll to the end until nothing new appears (scraper 3).
 *
 * One object with every key optional rather than a union of four: a typo then gets "unknown key" with the
 * nearest name, where a union only says that nothing matched. "Exactly one kind" is a refinement here and a
 * `oneOf` in the published JSON Schema.
 */
export const PAGINATION_KINDS = ['next', 'variable', 'loadMore', 'scroll'] as const;
export type PaginationKind = (typeof PAGINATION_KINDS)[number];

/** Kinds that run inside one browser page load, as rounds of clicks or scrolls: scraper 3 only. */
export const BROWSER_PAGINATION_KINDS: ReadonlySet<PaginationKind> = new Set(['loadMore', 'scroll']);

export const DEFAULT_MAX_PAGES = 10;
export const MAX_PAGES = 100;
export const MAX_ITEMS = 10_000;
export const DEFAULT_START = 1;

const KIND_LIST = 'next, variable, loadMore or scroll';

export const PaginationSchema = z
  .object({
    next: z
      .string()
      .min(1)
      .max(1_000)
      .optional()
      .describe('CSS selector of the next-page link; its href is fetched as the next page (scrapers 1, 2 and 3)'),
    variable: z
      .string()
      .regex(VARIABLE_NAME_PATTERN, 'a variable name holds letters, digits and _, starting with a letter or _')
      .optional()
      .describe('A URL variable ({{ page }}) that pagination counts up from start; callers do not send it'),
    start: z.number().int().min(0).max(1_000_000).optional().describe('First value of the page variable (default 1)'),
    loadMore: z
      .string()
      .min(1)
      .max(1_000)
      .optional()
      .describe('CSS selector of a "Load more" button, clicked until it is gone or nothing new appears (scraper 3)'),
    scroll: z.literal(true).optional().describe('Scroll to the end of the page until nothing new appears (scraper 3)'),
    maxPages: z
      .number()
      .int()
      .min(1)
      .max(MAX_PAGES)
      .default(DEFAULT_MAX_PAGES)
      .describe('Pages fetched, or rounds of click/scroll, at most (default 10, at most 100)'),
    maxItems: z.number().int().min(1).max(MAX_ITEMS).optional().describe('Stop, and cut the list, at this many items'),
    list: z
      .string()
      .regex(FIELD_NAME_PATTERN, 'name a top-level array field of the structure')
      .optional()
      .describe('The top-level array field the pages are merged into (default: the first top-level array field)'),
    key: z
      .string()
      .regex(FIELD_NAME_PATTERN, "name a field of the list's items")
      .optional()
      .describe(
        "A field of the list's items (such as url) that tells items apart: items equal in it are duplicates. Default: items equal in every field",
      ),
  })
  .strict()
  .superRefine((value, ctx) => {
    const kinds = PAGINATION_KINDS.filter((kind) => value[kind] !== undefined);
    if (kinds.length === 0) ctx.addIssue({ code: 'custom', path: [], message: `pagination needs one of ${KIND_LIST}` });
    if (kinds.length > 1)
      ctx.addIssue({
        code: 'custom',
        path: [kinds[1]!],
        message: `pagination takes one kind, not ${kinds.join(' and ')}: keep one of them`,
      });
    if (value.start !== undefined && value.variable === undefined)
      ctx.addIssue({ code: 'custom', path: ['start'], message: 'start belongs to pagination.variable (the first page number)' });
  })
  .meta({
    oneOf: PAGINATION_KINDS.map((kind) => ({ required: [kind] })),
    dependentRequired: { start: ['variable'] },
  });

export type PaginationSettings = z.output<typeof PaginationSchema>;
export type PaginationInput = z.input<typeof PaginationSchema>;

/** The kind a (checked) pagination is. */
export function paginationKind(pagination: Pick<PaginationInput, PaginationKind>): PaginationKind {
  return PAGINATION_KINDS.find((kind) => pagination[kind] !== undefined) ?? 'next';
}

/** The URL variable pagination fills, if its kind is `variable`: it is not a caller's variable. */
export function pageVariableOf(source: { pagination?: Pick<PaginationInput, 'variable'> | undefined }): string | undefined {
  return source.pagination?.variable;
}

/** The first page's value of the page variable. */
export function pageStartOf(pagination: Pick<PaginationInput, 'start'>): number {
  return pagination.start ?? DEFAULT_START;
}

/**
 * The address of page `start + offset` of a `variable` pagination, with the caller's (checked) values: the
 * page variable is counted by pagination, never sent by a caller.
 */
export function pageUrl(source: TemplateSource, values: Record<string, unknown>, offset: number): string {
  const name = source.pagination?.variable;
  if (name === undefined) throw new Error('pageUrl needs a pagination.variable');
  const page = (source.pagination?.start ?? DEFAULT_START) + offset;
  return renderTemplate(source.url, { ...(values as Record<string, string>), [name]: String(page) });
}

/** The words a kind is shown with (show, the dashboard, describe-changes). */
export function describePagination(pagination: PaginationInput): string {
  const kind = paginationKind(pagination);
  const limits = [`at most ${pagination.maxPages ?? DEFAULT_MAX_PAGES} ${BROWSER_PAGINATION_KINDS.has(kind) ? 'rounds' : 'pages'}`];
  if (pagination.maxItems !== undefined) limits.push(`${pagination.maxItems} items`);
  const into = pagination.list ? `, into ${pagination.list}` : '';
  const keyed = pagination.key ? `, items told apart by ${pagination.key}` : '';
  const how =
    kind === 'next'
      ? `follow the next link "${pagination.next}"`
      : kind === 'variable'
        ? `count {{ ${pagination.variable} }} up from ${pageStartOf(pagination)}`
        : kind === 'loadMore'
          ? `click "${pagination.loadMore}" until nothing new appears`
          : 'scroll to the end until nothing new appears';
  return `${how} (${limits.join(', ')}${into}${keyed})`;
}
