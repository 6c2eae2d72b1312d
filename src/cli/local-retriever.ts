import type { Project } from '../core/config/project.js';
import type { ApiConfig } from '../core/config/schema.js';
import type { Model } from '../core/models/types.js';
import type { RetrieveResult } from '../core/retrieval/retrieve.js';

/**
 * One-off retrievals in the CLI process (`run`, `snapshot`, `check`): the project's scrapers, models and
 * document limits, no daemon, no credits, no cache. Heavy modules load only when a command needs them.
 */
export interface LocalRetriever {
  retrieve(config: ApiConfig, values: Record<string, string>, options?: { expected?: unknown; scraper?: 1 | 2 | 3 }): Promise<RetrieveResult>;
  /** The page alone (decoded HTML and final URL), for a repair: it must work when nothing extracts. */
  fetchPage(config: ApiConfig, values: Record<string, string>): Promise<{ html: string; finalUrl: string }>;
  /** The model a config names (for a repair with an OpenAI-compatible model). */
  model(name: string): Promise<Model>;
  close(): Promise<void>;
}

export async function createLocalRetriever(project: Project, env: Record<string, string | undefined>): Promise<LocalRetriever> {
  const [{ retrieve }, { createScraperPool, scraperOptionsFromSettings }, { createModelResolver }, { createInProcessExtractor }] = await Promise.all([
    import('../core/retrieval/retrieve.js'),
    import('../core/fetch/scrapers/index.js'),
    import('../core/models/index.js'),
    import('../core/extract/workers/index.js'),
  ]);
  const pool = createScraperPool(scraperOptionsFromSettings(project.settings.fetch, env));
  const models = createModelResolver({ models: project.settings.models, env });
  const { maxDepth, maxElements } = project.settings.extraction;
  const extractor = createInProcessExtractor({ limits: { maxDepth, maxElements } });
  return {
    retrieve: (config, values, options = {}) =>
      retrieve(config, values, { scraperFor: (n) => pool.get(n), modelFor: (name) => models.get(name), extractor }, { ...(options.scraper ? { scraper: options.scraper } : {}), ...(options.expected !== undefined ? { expected: options.expected } : {}) }),
    async fetchPage(config, values) {
      const { resolveSourceUrl } = await import('../core/config/url-template.js');
      const page = await pool.get(config.scraper).fetch({ url: resolveSourceUrl(config, values), session: config.session && config.scraper === 1 });
      return { html: page.html, finalUrl: page.finalUrl };
    },
    model: (name) => models.get(name),
    close: () => pool.close(),
  };
}
