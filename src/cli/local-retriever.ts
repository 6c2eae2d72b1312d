import type { Project } from '../core/config/project.js';
import type { ApiConfig } from '../core/config/schema.js';
import type { RetrieveResult } from '../core/retrieve.js';

/**
 * One-off retrievals in the CLI process (`run`, `snapshot`, `check`): the project's scrapers, models and
 * document limits, no daemon, no credits, no cache. Heavy modules load only when a command needs them.
 */
export interface LocalRetriever {
  retrieve(config: ApiConfig, values: Record<string, string>, options?: { expected?: unknown; scraper?: 1 | 2 | 3 }): Promise<RetrieveResult>;
  close(): Promise<void>;
}

export async function createLocalRetriever(project: Project, env: Record<string, string | undefined>): Promise<LocalRetriever> {
  const [{ retrieve }, { createScraperPool, scraperOptionsFromSettings }, { createModelResolver }, { createInProcessExtractor }] = await Promise.all([
    import('../core/retrieve.js'),
    import('../core/scrapers/index.js'),
    import('../core/models/index.js'),
    import('../core/extraction/index.js'),
  ]);
  const pool = createScraperPool(scraperOptionsFromSettings(project.settings.fetch, env));
  const models = createModelResolver({ models: project.settings.models, env });
  const { maxDepth, maxElements } = project.settings.extraction;
  const extractor = createInProcessExtractor({ limits: { maxDepth, maxElements } });
  return {
    retrieve: (config, values, options = {}) =>
      retrieve(config, values, { scraperFor: (n) => pool.get(n), modelFor: (name) => models.get(name), extractor }, { ...(options.scraper ? { scraper: options.scraper } : {}), ...(options.expected !== undefined ? { expected: options.expected } : {}) }),
    close: () => pool.close(),
  };
}
