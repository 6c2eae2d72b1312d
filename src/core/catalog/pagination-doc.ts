import { describePagination, type ApiConfig } from '../config/index.js';
import { retrievalCost } from '../access/index.js';

/**
 * What the API description says of a paginated endpoint (docs/pagination.md): the headers its answers carry
 * and, in words, how many pages it reads and what it costs.
 */
export const PAGINATION_HEADERS = {
  'X-Pagejson-Pages': {
    description: 'Pages of the source the answer holds (a paginated endpoint costs its price once per page).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'X-Pagejson-Partial': {
    description:
      'Present when the pages were cut short: "time" (the time budget ended) or "error" (a later page failed). Such answers are not cached.',
    schema: { type: 'string', enum: ['time', 'error'] },
  },
} as const;

/** The sentence of an operation's description about its pages, or '' without pagination. */
export function paginationText(config: ApiConfig): string {
  if (!config.pagination) return '';
  const price = retrievalCost(config.scraper) / 1000;
  return `Paginated: ${describePagination(config.pagination)}; costs ${price} credits per page the answer holds (X-Pagejson-Pages).`;
}
