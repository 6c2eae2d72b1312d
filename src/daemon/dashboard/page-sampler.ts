import { LRUCache } from 'lru-cache';
import type { ApiConfig } from '../../core/config/schema.js';
import { actionSteps, actionValuesKey } from '../../core/config/action-text.js';
import { resolveSourceUrl } from '../../core/config/url-template.js';
import type { Runtime } from '../../core/runtime.js';
import { scraperByNumber } from '../../core/fetch/scrapers/types.js';
import { accessOf } from '../../core/fetch/net/access-of.js';
import { loginOf } from '../../core/fetch/login/login-of.js';

/**
 * Live previews while a structure is edited: the page is fetched once (kept a minute, a few pages at most)
 * and every change of a selector is tried on it through the daemon's extractor, so a hostile page or selector
 * meets the same worker budget and document limits as a retrieval.
 */
export interface SampledPage {
  html: string;
  finalUrl: string;
}

export interface PageSampler {
  page(config: ApiConfig, values: Record<string, unknown>): Promise<SampledPage>;
  /** What `config` extracts from `page` (compiled under revision 0, apart from the served revisions). */
  sample(
    config: Pick<ApiConfig, 'apiId' | 'selector' | 'structure'>,
    page: SampledPage,
  ): Promise<{ data: Record<string, unknown>; empty: boolean; missingRequired: string[] }>;
}

const KEPT_MS = 60_000;
/** Memory the kept pages may take (a page may be up to fetch.maxBytes; UTF-16 estimate). */
const KEPT_BYTES = 32 * 1024 * 1024;

/** Other headers, cookies or proxies fetch another page (a login wall, another exit): templates, never values. */
function accessKey(config: ApiConfig): string {
  return JSON.stringify([config.request ?? null, config.proxy ?? null]);
}

export function createPageSampler(runtime: Runtime): PageSampler {
  const pages = new LRUCache<string, SampledPage>({
    max: 8,
    ttl: KEPT_MS,
    maxSize: KEPT_BYTES,
    sizeCalculation: (page) => page.html.length * 2 + 1,
  });
  // Fetches in flight, shared by the previews that wait for the same page.
  const fetching = new Map<string, Promise<SampledPage>>();
  return {
    async page(config, values) {
      const url = resolveSourceUrl(config, values);
      const session = config.session && scraperByNumber(config.scraper).supportsSession;
      // A page read through actions is another page: the steps and their values are part of its key.
      const key = `${config.scraper}\t${session}\t${url}\t${JSON.stringify(config.actions ?? [])}${actionValuesKey(config.actions, values)}\t${accessKey(config)}`;
      const kept = pages.get(key);
      if (kept) return kept;
      let pending = fetching.get(key);
      if (!pending) {
        pending = runtime.scrapers
          .get(config.scraper)
          .fetch({ url, session, ...accessOf(config), ...loginOf(config), ...actionSteps(config, values) })
          .then((page) => {
            const sampled = { html: page.html, finalUrl: page.finalUrl };
            // A page larger than the whole budget is used once and not kept.
            pages.set(key, sampled);
            return sampled;
          })
          .finally(() => fetching.delete(key));
        fetching.set(key, pending);
      }
      return pending;
    },
    async sample(config, page) {
      const outcome = await runtime.extractor.extract({
        config: { apiId: config.apiId, revision: 0, selector: config.selector, structure: config.structure },
        html: page.html,
        finalUrl: page.finalUrl,
      });
      return { data: outcome.data, empty: outcome.empty, missingRequired: outcome.missingRequired };
    },
  };
}
