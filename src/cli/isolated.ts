import type { ApiConfig } from '../core/config/schema.js';
import type { ConfigProblem } from '../core/config/problems.js';
import type { DocumentLimits } from '../core/extract/engine/dom.js';
import { PagejsonError } from '../core/shared/errors.js';

/**
 * `validate --live` checking selectors on a page, in a thread of its own with a time budget and a heap cap
 * (issue 40), by the core's page-thread runner (src/core/extract/workers/isolated-thread.ts; `heal` runs its
 * repair the same way, src/core/health/isolated-repair.ts). A page or a selector that would run for minutes
 * ends that thread at the budget, with an error that names it, and the other configs are still checked. Plain
 * extractions go to the extraction pool instead (local-retriever.ts), as in the daemon.
 */
export interface LiveCheckTask {
  config: ApiConfig;
  html: string;
  pageUrl: string;
  file: string;
  limits: DocumentLimits;
}

/**
 * `validate --live` for one config on its fetched page, within the extraction budget and the project's
 * document limits: a page or selector past them is a problem of that config, and the others are still checked.
 */
export async function liveCheckIsolated(
  config: ApiConfig,
  page: { html: string; finalUrl: string },
  file: string,
  extraction: { timeoutMs: number } & DocumentLimits,
): Promise<ConfigProblem[]> {
  const { builtWorkerFile, runInThread } = await import('../core/extract/workers/isolated-thread.js');
  const { extractionTimeout } = await import('../core/extract/workers/errors.js');
  const { timeoutMs, maxDepth, maxElements } = extraction;
  const task: LiveCheckTask = { config, html: page.html, pageUrl: page.finalUrl, file, limits: { maxDepth, maxElements } };
  try {
    const worker = builtWorkerFile(
      new URL('./isolated-worker.js', import.meta.url),
      new URL('../../dist/src/cli/isolated-worker.js', import.meta.url),
      "the CLI's worker",
    );
    return await runInThread<ConfigProblem[]>(worker, task, {
      budgetMs: timeoutMs,
      timeout: () => extractionTimeout(timeoutMs, config.apiId),
    });
  } catch (error) {
    const hint = error instanceof PagejsonError ? error.hint : undefined;
    return [
      {
        file,
        path: '$.url',
        message: `the live check of ${page.finalUrl} failed: ${(error as Error).message}`,
        ...(hint ? { hint } : {}),
        severity: 'error',
      },
    ];
  }
}
