import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ApiConfig, ModelEndpoint } from '../core/config/schema.js';
import type { ConfigProblem } from '../core/config/problems.js';
import type { DocumentLimits } from '../core/extract/engine/dom.js';
import { errorFromData, type ErrorData } from '../core/generation/protocol.js';
import type { RepairProposal } from '../core/health/repair.js';
import { PagejsonError } from '../core/shared/errors.js';

/**
 * The CLI's page work that is not a plain extraction, in a thread of its own with a time budget and a heap
 * cap (issue 40): `validate --live` checking selectors on a page, `heal` working out a repair. A page or a
 * selector that would run for minutes ends that thread at the budget, with an error that names it, and the
 * command goes on (or stops) in bounded time. Plain extractions go to the extraction pool instead
 * (local-retriever.ts), as in the daemon.
 */
export type IsolatedTask =
  | { kind: 'live-check'; config: ApiConfig; html: string; pageUrl: string; file: string; limits: DocumentLimits }
  | {
      kind: 'repair';
      config: ApiConfig;
      html: string;
      pageUrl: string;
      expected: Record<string, unknown>;
      /** A repair the daemon stored: measured on the page instead of working one out. */
      stored?: ApiConfig;
      models: Record<string, ModelEndpoint>;
      env: Record<string, string | undefined>;
      modelTimeoutMs: number;
    };

export type IsolatedResult<T extends IsolatedTask> = T extends { kind: 'live-check' } ? ConfigProblem[] : RepairProposal;

export type IsolatedReply = { ok: true; result: unknown } | { ok: false; error: ErrorData };

/** The built worker; under the test runner (TypeScript sources) the one under dist/. */
function workerFile(): string {
  const beside = fileURLToPath(new URL('./isolated-worker.js', import.meta.url));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL('../../dist/src/cli/isolated-worker.js', import.meta.url));
  if (existsSync(built)) return built;
  throw new PagejsonError('INTERNAL', 'the CLI\'s worker is not built', { hint: 'run `npm run build`' });
}

/** Runs `task` in a new thread; past `budgetMs` the thread is ended and `timeout()` is the error. */
export function runIsolated<T extends IsolatedTask>(task: T, budgetMs: number, timeout: () => PagejsonError): Promise<IsolatedResult<T>> {
  // The same caps as the daemon's extraction threads (worker-pool.ts): a page that balloons ends this thread only.
  const worker = new Worker(workerFile(), { workerData: task, resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 16 } });
  return new Promise<IsolatedResult<T>>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      settle();
    };
    const timer = setTimeout(() => finish(() => reject(timeout())), budgetMs);
    worker.on('message', (reply: IsolatedReply) => finish(() => (reply.ok ? resolve(reply.result as IsolatedResult<T>) : reject(errorFromData(reply.error)))));
    worker.on('error', (error) => finish(() => reject(new PagejsonError('EXTRACTION_FAILED', `the page could not be worked on: its thread stopped (${error.message})`, { hint: 'the page may be too large or deeply nested; narrow the config\'s section selector' }))));
    worker.on('exit', (code) => finish(() => reject(new PagejsonError('EXTRACTION_FAILED', `the page could not be worked on: its thread exited with code ${code}`))));
  });
}

/**
 * `validate --live` for one config on its fetched page, within the extraction budget and the project's
 * document limits: a page or selector past them is a problem of that config, and the others are still checked.
 */
export async function liveCheckIsolated(config: ApiConfig, page: { html: string; finalUrl: string }, file: string, extraction: { timeoutMs: number } & DocumentLimits): Promise<ConfigProblem[]> {
  const { extractionTimeout } = await import('../core/extract/workers/errors.js');
  const { timeoutMs, maxDepth, maxElements } = extraction;
  const task = { kind: 'live-check', config, html: page.html, pageUrl: page.finalUrl, file, limits: { maxDepth, maxElements } } as const;
  try {
    return await runIsolated(task, timeoutMs, () => extractionTimeout(timeoutMs, config.apiId));
  } catch (error) {
    const hint = error instanceof PagejsonError ? error.hint : undefined;
    return [{ file, path: '$.url', message: `the live check of ${page.finalUrl} failed: ${(error as Error).message}`, ...(hint ? { hint } : {}), severity: 'error' }];
  }
}
