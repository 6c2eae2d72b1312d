import type { ApiConfig } from '../config/index.js';
import { isPagejsonError } from '../shared/index.js';
import { createRetrievalEnv, type RetrievalEnv } from './env.js';
import { backgroundValue, healthOf, loadEndpoint } from './load.js';
import { runRetrieval } from './stages.js';
import { sourceOf } from './stages/input.js';
import type { LoadOutcome, RefreshOutcome, RetrievalDeps, RetrievalService } from './types.js';

export {
  MAX_BODY_BYTES,
  type LoadOutcome,
  type RefreshOutcome,
  type RequestBody,
  type RetrievalAnswer,
  type RetrievalDeps,
  type RetrievalEvent,
  type RetrievalRequest,
  type RetrievalService,
} from './types.js';

/**
 * The retrieval service: requests through the stage list (stages.ts), and refreshes outside any request (a
 * monitor's run, the dashboard's "try it"), which load and fill the cache as a miss would, with no key and no
 * credits. Everything it shares across requests is made here once (env.ts).
 */
export function createRetrievalService(deps: RetrievalDeps): RetrievalService {
  const env = createRetrievalEnv(deps);
  return {
    retrieve: (request) => runRetrieval(request, env),
    refresh: (config, values) => refresh(env, config, values),
    observe: (observation) => env.endpoints.observed(observation),
    flushUsage: env.usage.flush,
    close: () => env.endpoints.idle().then(() => env.usage.close()),
  };
}

async function refresh(env: RetrievalEnv, config: ApiConfig, values: Record<string, unknown>): Promise<RefreshOutcome> {
  const { sourceUrl, entryKey } = sourceOf(config, values);
  // The load's outcome, when this refresh ran it (not when it joined another): a paginated one's page addresses.
  let own: LoadOutcome | undefined;
  const loadNow = () =>
    loadEndpoint(env, config, values, sourceUrl, entryKey).then(
      (outcome) => ((own = outcome), backgroundValue(env, config, 'default', outcome)),
    );
  try {
    const answer = await env.deps.cache.refresh(entryKey, loadNow, { caching: config.caching });
    const data = (JSON.parse(answer.body) as { data: Record<string, unknown> }).data;
    const health = healthOf(answer);
    const pages = config.pagination
      ? {
          pages: answer.pages,
          ...(answer.partial ? { partial: answer.partial } : {}),
          ...(own?.pageUrls ? { pageUrls: own.pageUrls } : {}),
        }
      : {};
    return { ok: true, data, health, failing: health === 'healthy' ? [] : env.endpoints.failingOf(config.apiId), ...pages };
  } catch (error) {
    const message = isPagejsonError(error) ? `${error.code}: ${error.message}` : 'internal error';
    const broken = isPagejsonError(error) && error.code === 'EXTRACTION_EMPTY';
    return { ok: false, error: message, ...(broken ? { health: 'broken' as const } : {}) };
  }
}
