import { scraperByNumber } from '../fetch/index.js';
import { formatCredits, toMilli } from '../shared/index.js';

/**
 * Credit rules (docs/wire.md, credits), in integer milli-credits so that sums are exact:
 * retrieval 0.4 / 0.5 credits and generation 0.25 / 0.35 credits, the higher figure when the scraper renders
 * JavaScript (a capability of the scraper table). Use session adds nothing.
 */
export type ScraperNumber = 1 | 2 | 3;

export const RETRIEVAL_COST = { plain: 400, rendered: 500 } as const;
export const GENERATION_COST = { plain: 250, rendered: 350 } as const;

export function retrievalCost(scraper: ScraperNumber): number {
  return scraperByNumber(scraper).rendersJs ? RETRIEVAL_COST.rendered : RETRIEVAL_COST.plain;
}

export function generationCost(scraper: ScraperNumber): number {
  return scraperByNumber(scraper).rendersJs ? GENERATION_COST.rendered : GENERATION_COST.plain;
}

/** What a call of an endpoint costs, from the source and from the cache, in figures and in words. */
export interface EndpointPrice {
  /** From the source: a call's price, per page the answer holds for a paginated endpoint. */
  milliCredits: number;
  /** From the cache (HIT or STALE): `credits.hit` when set (whatever the pages), else as from the source. */
  hitMilliCredits: number;
  /** Whether the cache-hit price is per page too (a paginated endpoint without `credits.hit`). */
  hitPerPage: boolean;
  text: string;
}

/**
 * The endpoint's price under pagejson.json's `credits`. One sentence for `GET /external`'s listing and the dashboard (docs/wire.md, "Credits"), so a caller knows a
 * cache hit's price before paying it: "0.4 credits a page the answer holds (at most 3 pages: 1.2), from the
 * source or the cache alike".
 */
export function endpointPrice(
  config: { scraper: ScraperNumber; pagination?: { maxPages: number } | undefined },
  credits: { hit?: number | undefined },
): EndpointPrice {
  const format = formatCredits;
  const hitMilliCredits = credits.hit === undefined ? undefined : toMilli(credits.hit);
  const milli = retrievalCost(config.scraper);
  const pages = config.pagination?.maxPages;
  const source =
    pages === undefined
      ? `${format(milli)} credits a call`
      : `${format(milli)} credits a page the answer holds (at most ${pages} pages: ${format(milli * pages)})`;
  if (hitMilliCredits === undefined) {
    return {
      milliCredits: milli,
      hitMilliCredits: milli,
      hitPerPage: pages !== undefined,
      text: `${source}, from the source or the cache alike`,
    };
  }
  return {
    milliCredits: milli,
    hitMilliCredits,
    hitPerPage: false,
    text: `${source} from the source; ${format(hitMilliCredits)} credits a call from the cache`,
  };
}
