import { scraperByNumber } from '../fetch/index.js';

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
