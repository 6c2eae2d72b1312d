import { isPagejsonError } from '../shared/index.js';

/**
 * An endpoint whose source answered with a block page (docs/block-pages.md) is recorded in its status as
 * "blocked", since when, until a load succeeds again. It is not a health change of its fields: monitors are
 * not told (no endpoint.broken, no data.changed), the background repair is not started, nothing is cached.
 */
export function isBlocked(error: unknown): boolean {
  return isPagejsonError(error) && error.code === 'SOURCE_BLOCKED';
}

export interface BlockedMarks {
  /** The status fields of a blocked load: health "blocked" since the first block in a row. */
  mark(apiId: string, now: Date): { health: 'blocked'; healthSince: string; failingFields: string[] };
  /** A load succeeded: the next block starts a new "since". */
  clear(apiId: string): void;
}

export function createBlockedMarks(): BlockedMarks {
  const since = new Map<string, string>();
  return {
    mark(apiId, now) {
      let at = since.get(apiId);
      if (at === undefined) {
        at = now.toISOString();
        since.set(apiId, at);
      }
      return { health: 'blocked', healthSince: at, failingFields: [] };
    },
    clear(apiId) {
      since.delete(apiId);
    },
  };
}
