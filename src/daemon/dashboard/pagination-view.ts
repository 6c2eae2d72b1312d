import { describePagination } from '../../core/config/pagination.js';
import type { ApiConfig } from '../../core/config/schema.js';

/** The endpoint page's view of a config's pagination, in words (docs/pagination.md); null without one. */
export function paginationView(config: Pick<ApiConfig, 'pagination'>): { paginationText: string | null } {
  return { paginationText: config.pagination ? describePagination(config.pagination) : null };
}
