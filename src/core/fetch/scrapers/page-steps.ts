import type { Action } from '../../config/index.js';
import type { FetchResult } from './types.js';

/**
 * What a fetch asks scraper 3 to do on the loaded page before reading it (docs/actions.md): the config's
 * `actions`, then rounds of `pagination.loadMore` or `pagination.scroll`. Scrapers 1 and 2 read a page as it
 * loads and refuse steps (the caller checks first: validate refuses such configs).
 */
export interface PageSteps {
  /** The config's steps as written: `{{ name }}` in their text is filled from `values` when each step runs. */
  actions?: readonly Action[] | undefined;
  /** The request's variable values (checked), for the steps' text. */
  values?: Readonly<Record<string, unknown>> | undefined;
  rounds?: PageRounds | undefined;
}

export interface PageRounds {
  kind: 'loadMore' | 'scroll';
  /** The "Load more" button's CSS selector (kind loadMore). */
  selector?: string | undefined;
  /**
   * The CSS selector of the list's items as the config reads them (its list field's selector): a round is
   * over when their number grew, not when anything in the page changed (a button relabelled "Loading…", a
   * spinner). Absent, or not a selector the browser knows: any change, then the page's requests ending.
   */
  items?: string | undefined;
  /** Pages read at most (pagination.maxPages): the page as loaded is the first, each click or scroll one more. */
  maxPages: number;
  /**
   * Each page read, the first one included: whether to go on. The caller extracts and merges it; a page that
   * adds nothing new, or a list that is full (maxItems), stops the rounds.
   */
  onPage(page: FetchResult, index: number): Promise<boolean>;
}

/** Why the rounds ended (docs/actions.md): all but `time` mean the list was read to its end or its limit. */
export type RoundsStop = 'caller' | 'maxPages' | 'button-gone' | 'nothing-new' | 'time';

export interface RoundsOutcome {
  /** Pages read and handed to onPage. */
  pages: number;
  stoppedBy: RoundsStop;
  /** The time bound ended the rounds before the list did. */
  partial: boolean;
}
