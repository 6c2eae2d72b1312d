export { assertAllowedUrlHost } from './net/address-guard.js';
export { decodeHtmlBody } from './net/charset.js';
export { startDeadline } from './net/deadline.js';
export { createGuardedAgent } from './net/guarded-agent.js';
export { scraperByNumber, type FetchRequest, type FetchResult, type PageBody, type Scraper } from './scrapers/types.js';
export { createScraperPool, scraperOptionsFromSettings, type ScraperPool } from './scrapers/index.js';
export type { PageRounds, PageSteps, RoundsOutcome, RoundsStop } from './scrapers/page-steps.js';
