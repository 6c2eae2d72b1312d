import type { Project } from '../core/config/project.js';
import type { ApiConfig } from '../core/config/schema.js';
import type { Extractor } from '../core/extract/workers/types.js';
import type { FetchResult, Scraper } from '../core/fetch/scrapers/types.js';
import type { RetrieveResult } from '../core/retrieval/retrieve.js';
import type { HealthBaseline } from '../core/state/types.js';
import { accessOf } from '../core/fetch/net/access-of.js';
import { loginOf } from '../core/fetch/login/login-of.js';
import { cliLogins } from './login-sessions.js';

/**
 * One-off retrievals in the CLI process (`run`, `snapshot`, `check`, `mcp`): the project's scrapers, models,
 * extraction budget and document limits, no daemon, no credits, no cache. Heavy modules load only when a
 * command needs them.
 */
export interface LocalRetriever {
  retrieve(
    config: ApiConfig,
    values: Record<string, string>,
    options?: { baseline?: HealthBaseline; scraper?: 1 | 2 | 3 },
  ): Promise<RetrieveResult>;
  /** The page alone (decoded HTML and final URL), for a repair: it must work when nothing extracts. */
  fetchPage(config: ApiConfig, values: Record<string, string>): Promise<{ html: string; finalUrl: string }>;
  /** The first page a retrieval fetched (also when nothing extracted from it): what `run` says about it (page-notes.ts). */
  firstPage(): FetchResult | undefined;
  close(): Promise<void>;
}

/**
 * The daemon's extraction budget and document limits for a CLI command (issue 40): pages are parsed and
 * selected in worker threads, and a job past `extraction.timeoutMs` ends with EXTRACTION_TIMEOUT, so a
 * costly selector on a page or a snapshot ends a command (`test` in CI, a `mcp` call) in bounded time, and the
 * event loop stays free to answer signals. `threads`: as many as the command runs extractions at once.
 */
export async function createCliExtractor(project: Project, threads = 1): Promise<Extractor> {
  const { createWorkerPoolExtractor } = await import('../core/extract/workers/index.js');
  const { timeoutMs, maxDepth, maxElements } = project.settings.extraction;
  // No idle heap release: a command's threads end with it.
  return createWorkerPoolExtractor({ timeoutMs, limits: { maxDepth, maxElements }, threads, idleReleaseMs: 0 });
}

export async function createLocalRetriever(
  project: Project,
  env: Record<string, string | undefined>,
  options: { threads?: number } = {},
): Promise<LocalRetriever> {
  const [{ retrieve }, { createScraperPool, scraperOptionsFromSettings }, { createModelResolver }] = await Promise.all([
    import('../core/retrieval/retrieve.js'),
    import('../core/fetch/scrapers/index.js'),
    import('../core/models/index.js'),
  ]);
  const pool = createScraperPool({
    ...scraperOptionsFromSettings(project.settings.fetch, env, project.settings.browser),
    logins: await cliLogins(project, env),
  });
  const models = createModelResolver({ models: project.settings.models, env, dataDir: project.dataDir });
  let firstPage: FetchResult | undefined;
  const noting = (scraper: Scraper): Scraper => ({
    name: scraper.name,
    close: () => scraper.close(),
    fetch: (request) => scraper.fetch(request).then((page) => ((firstPage ??= page), page)),
  });
  // Threads start with the first retrieval, while its page is fetched (a thread's start was the pause between a
  // paginated read's first and second page); `heal`, which only fetches, starts none.
  let started: Promise<Extractor> | undefined;
  const start = () => {
    if (started) return started;
    started = createCliExtractor(project, options.threads);
    // Its failure is the first extraction's (or close's) to report, not an unhandled rejection.
    started.catch(() => undefined);
    return started;
  };
  const extractor: Extractor = {
    name: 'worker-pool',
    extract: async (job, signal) => (await start()).extract(job, signal),
    close: async () => (await started)?.close(),
  };
  return {
    retrieve: (config, values, options = {}) => {
      void start();
      return retrieve(
        config,
        values,
        {
          scraperFor: (n) => noting(pool.get(n)),
          modelFor: (name) => models.get(name),
          extractor,
          pages: { budgetMs: project.settings.fetch.timeoutMs, concurrency: project.settings.fetch.perOriginConcurrency },
        },
        {
          ...(options.scraper ? { scraper: options.scraper } : {}),
          ...(options.baseline !== undefined ? { baseline: options.baseline } : {}),
        },
      );
    },
    async fetchPage(config, values) {
      const [{ resolveSourceUrl }, { actionSteps }] = await Promise.all([
        import('../core/config/url-template.js'),
        import('../core/config/action-text.js'),
      ]);
      const page = await pool.get(config.scraper).fetch({
        url: resolveSourceUrl(config, values),
        session: config.session && config.scraper === 1,
        ...accessOf(config),
        ...loginOf(config),
        ...actionSteps(config, values),
      });
      return { html: page.html, finalUrl: page.finalUrl };
    },
    firstPage: () => firstPage,
    close: () => Promise.all([pool.close(), extractor.close()]).then(() => undefined),
  };
}
