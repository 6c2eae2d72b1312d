import { performance } from 'node:perf_hooks';
import type { ApiConfig } from '../config/index.js';
import { isPagejsonError } from '../shared/index.js';
import { Paged, Uncacheable, type CacheAnswer } from '../cache/index.js';
import type { TokenUsage } from '../models/index.js';
import type { RetrievalEnv } from './env.js';
import type { LoadOutcome } from './types.js';

/** Failures that cost the daemon real work (a budget run out, a hostile page): remembered, not repeated. */
const REMEMBERED_FAILURES = new Set(['EXTRACTION_TIMEOUT', 'EXTRACTION_LIMIT', 'EXTRACTION_FAILED']);

/**
 * The cache's note on data served but not kept. The cache carries it for requests that joined another's load;
 * here it becomes the answer's typed health again (healthOf), in this one place.
 */
const DEGRADED = 'degraded';
/** A paginated answer cut short (its reason travels on the answer, CacheAnswer.partial). */
const PARTIAL = 'partial';

/**
 * One load of an endpoint: the page pipeline (deps.load: fetch → classify → extract → assess, retrieve.ts),
 * then what every load records, whoever started it (a request, a STALE answer's refresh, a monitor): the fetch
 * event, the endpoint's status and health, and a costly failure to remember. Runs once per cache key at a time
 * (the cache coalesces), and may outlive the request that started it.
 */
export async function loadEndpoint(
  env: RetrievalEnv,
  config: ApiConfig,
  values: Record<string, unknown>,
  sourceUrl: string,
  entryKey: string,
): Promise<LoadOutcome> {
  const started = performance.now();
  const fetched = (ok: boolean) =>
    env.emit({ kind: 'fetch', apiId: config.apiId, scraper: config.scraper, seconds: (performance.now() - started) / 1000, ok });
  try {
    // The one judgement (health/field-health.ts) against the endpoint's baseline, inside the page pipeline.
    const result = await env.deps.load(config, values, sourceUrl, await env.endpoints.baselineOf(config));
    fetched(true);
    const { state, failing } = result.health;
    env.endpoints.loaded(config, values, result.fetchedAt, result.health, result.data, result.headers);
    const usage = result.usage;
    const tokens = usage && (usage.promptTokens > 0 || usage.completionTokens > 0) ? usage : undefined;
    return { data: result.data, health: state, failing, tokens, ...pagesOutcome(result) };
  } catch (error) {
    fetched(false);
    if (env.failureCacheMs > 0 && isPagejsonError(error) && REMEMBERED_FAILURES.has(error.code)) env.recentFailures.set(entryKey, error);
    env.endpoints.failed(config, values, error);
    throw error;
  }
}

/** A paginated load's pages: how many, why cut short, and their addresses (the dashboard's "try it" lists them). */
function pagesOutcome(result: {
  pages?: number;
  partial?: 'time' | 'error';
  sourceUrl: string;
  morePages?: ReadonlyArray<{ url: string }>;
}): Pick<LoadOutcome, 'pages' | 'partial' | 'pageUrls'> {
  if (result.pages === undefined) return {};
  return {
    pages: result.pages,
    pageUrls: [result.sourceUrl, ...(result.morePages ?? []).map((page) => page.url)],
    ...(result.partial ? { partial: result.partial } : {}),
  };
}

/**
 * What the cache keeps of an outcome: the data, or (degraded, or a paginated answer cut short) data served but
 * never kept, so the next request tries the source again; a paginated answer's pages go with it (a hit costs
 * what the miss did, docs/pagination.md).
 */
export function cacheValue(outcome: LoadOutcome): unknown {
  const value =
    outcome.health === 'degraded'
      ? new Uncacheable(outcome.data, DEGRADED)
      : outcome.partial
        ? new Uncacheable(outcome.data, PARTIAL)
        : outcome.data;
  return outcome.pages === undefined ? value : new Paged(value, outcome.pages, outcome.partial);
}

/** The health of a cache answer: degraded only when a load said so; anything the cache kept was healthy. */
export function healthOf(answer: CacheAnswer): 'healthy' | 'degraded' {
  return answer.note === DEGRADED ? 'degraded' : 'healthy';
}

/** Model tokens spent outside any request's answer (a background refresh, a load its request stopped waiting for): keyless, no credits. */
export function recordLateTokens(env: RetrievalEnv, apiId: string, account: string, tokens: TokenUsage | undefined): void {
  if (tokens) env.usage.record({ apiId, keyId: null, account, milliCredits: 0, outcome: 'MODEL', at: env.deps.now(), ...tokens });
}

/** A load whose tokens are never a request's (a STALE answer's refresh, a monitor's run). */
export function backgroundLoad(
  env: RetrievalEnv,
  config: ApiConfig,
  values: Record<string, unknown>,
  sourceUrl: string,
  entryKey: string,
  account: string,
): Promise<unknown> {
  return loadEndpoint(env, config, values, sourceUrl, entryKey).then((outcome) => backgroundValue(env, config, account, outcome));
}

/** A background load's outcome as the cache keeps it, its tokens recorded keyless. */
export function backgroundValue(env: RetrievalEnv, config: ApiConfig, account: string, outcome: LoadOutcome): unknown {
  recordLateTokens(env, config.apiId, account, outcome.tokens);
  return cacheValue(outcome);
}
