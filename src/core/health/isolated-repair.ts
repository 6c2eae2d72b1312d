import type { ApiConfig, ModelEndpoint } from '../config/index.js';
import { builtWorkerFile, runInThread, type DocumentLimits } from '../extract/index.js';
import { PagejsonError } from '../shared/index.js';
import type { RepairProposal } from './repair.js';

/**
 * A repair's work on a page (the heuristic's value anchoring, a model's selectors verified field by field, or a
 * stored proposal measured again) in a thread of its own with a time budget and a heap cap (issue 40): a page
 * or selectors that would take minutes end that thread at the budget with an error that names it. `pagejson
 * heal` and the daemon's background repair (background-repair.ts) both run it here, with the same budget, so a
 * hostile page never holds the daemon's event loop through auto-heal. The page is fetched by the caller.
 */
export interface IsolatedRepairRequest {
  config: ApiConfig;
  html: string;
  pageUrl: string;
  /** The last good data. */
  expected: Record<string, unknown>;
  /** A repair the daemon stored: measured on the page instead of working one out. */
  stored?: ApiConfig;
}

export interface IsolatedRepairSettings {
  /** The project's models: the thread makes its own client for the config's model. */
  models: Record<string, ModelEndpoint>;
  env: Record<string, string | undefined>;
  /** fetch.timeoutMs: one model call's timeout, and part of a model repair's budget. */
  fetchTimeoutMs: number;
  /** extraction.timeoutMs: the budget is four of them. */
  extractionTimeoutMs: number;
  /** extraction.maxDepth and maxElements: every parse of the page in the thread is within them. */
  limits?: DocumentLimits;
  /** The project's data dir: the response formats each model server refused are remembered there (docs/models.md). */
  dataDir?: string;
}

/** What crosses into the thread. */
export interface RepairThreadTask extends IsolatedRepairRequest {
  models: Record<string, ModelEndpoint>;
  env: Record<string, string | undefined>;
  modelTimeoutMs: number;
  limits?: DocumentLimits;
  dataDir?: string;
}

/** 4 × extraction.timeoutMs; with a model to ask, 2 × fetch.timeoutMs and 60 s more for its answer. */
export function repairBudgetMs(
  settings: Pick<IsolatedRepairSettings, 'fetchTimeoutMs' | 'extractionTimeoutMs'>,
  withModel: boolean,
): number {
  return settings.extractionTimeoutMs * 4 + (withModel ? settings.fetchTimeoutMs * 2 + 60_000 : 0);
}

export function repairTimeout(budgetMs: number, apiId: string, withModel: boolean): PagejsonError {
  const made = withModel ? '4 × extraction.timeoutMs + 2 × fetch.timeoutMs + 60 s for the model' : '4 × extraction.timeoutMs';
  return new PagejsonError('EXTRACTION_TIMEOUT', `repair stopped: it ran past its budget of ${budgetMs} ms (${made} in pagejson.json)`, {
    context: { budgetMs, apiId },
    hint: "the page or the selectors are too costly to work on: narrow the config's section selector, or raise extraction.timeoutMs if the page is just large",
  });
}

/** The repair proposal for `request`, worked out in a thread of its own; `signal` ends it early. */
export function repairIsolated(
  request: IsolatedRepairRequest,
  settings: IsolatedRepairSettings,
  signal?: AbortSignal,
): Promise<RepairProposal> {
  const withModel = request.config.model !== 'heuristic' && !request.stored;
  const budgetMs = repairBudgetMs(settings, withModel);
  const file = builtWorkerFile(
    new URL('./repair-worker.js', import.meta.url),
    new URL('../../../dist/src/core/health/repair-worker.js', import.meta.url),
    'the repair worker',
  );
  const task: RepairThreadTask = {
    ...request,
    models: settings.models,
    env: settings.env,
    modelTimeoutMs: settings.fetchTimeoutMs,
    ...(settings.limits ? { limits: settings.limits } : {}),
    ...(settings.dataDir ? { dataDir: settings.dataDir } : {}),
  };
  return runInThread<RepairProposal>(file, task, {
    budgetMs,
    timeout: () => repairTimeout(budgetMs, request.config.apiId, withModel),
    ...(signal ? { signal } : {}),
  });
}
