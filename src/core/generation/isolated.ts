import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DEFAULT_MODEL_MAX_RETRIES, type ModelEndpoint, type ProjectSettings, type ScraperNumber } from '../config/index.js';
import type { DocumentLimits } from '../extract/index.js';
import { PagejsonError } from '../shared/index.js';
import { generationSteps, type GenerateRequest, type GenerateResult } from './generate.js';
import type { Scraper } from '../fetch/index.js';
import { errorFromData, errorToData, type GenerationJob, type GenerationMessage, type WorkerReply } from './protocol.js';

/**
 * `generateConfig` in a thread of its own, for the daemon (the dashboard's Generate): parsing the page and the
 * heuristic model's work happen there, with a time budget and a heap cap, so a hostile page ends that thread
 * and never holds the event loop that answers /external. Fetches are made by the caller's scrapers (the
 * thread asks for them), so the address guard, deadline and byte cap apply as everywhere.
 */
export interface IsolatedGenerateDeps {
  scraperFor(number: ScraperNumber): Scraper;
  models: ProjectSettings['models'];
  env: Record<string, string | undefined>;
  /** One model call's timeout, when the model's entry in pagejson.json sets none. */
  modelTimeoutMs: number;
  /** The project's data dir (docs/models.md: response formats each server accepted are remembered there). */
  dataDir?: string;
  /** Longest the whole generation may take, fetch included; past it the thread is ended. */
  budgetMs: number;
  now?: () => Date;
  /** The document limits the page is parsed within (extraction.maxDepth, maxElements). */
  limits?: DocumentLimits;
}

/**
 * fetch.timeoutMs + 4 × extraction.timeoutMs; with a model to ask, two of its calls, each as long as the
 * client may take over it (the model's timeoutMs, `modelTimeoutMs` when its entry sets none, for every try,
 * with the client's back-off between tries), and 60 s more for its answer. A model that hangs thus fails with
 * its own "timed out" before the generation's budget ends.
 */
export function generationBudgetMs(
  settings: { fetch: { timeoutMs: number }; extraction: { timeoutMs: number }; models?: Record<string, ModelEndpoint> },
  model: string,
  modelTimeoutMs = settings.fetch.timeoutMs,
): number {
  const base = settings.fetch.timeoutMs + settings.extraction.timeoutMs * 4;
  if (model === 'heuristic') return base;
  const entry = settings.models && Object.hasOwn(settings.models, model) ? settings.models[model] : undefined;
  const retries = entry?.maxRetries ?? DEFAULT_MODEL_MAX_RETRIES;
  const oneCall = (entry?.timeoutMs ?? modelTimeoutMs) * (retries + 1) + retries * CLIENT_BACKOFF_MS;
  return base + oneCall * 2 + 60_000;
}

/** The longest the openai client waits between two tries of a call. */
const CLIENT_BACKOFF_MS = 8_000;

/** The built worker; under the test runner (TypeScript sources) the one under dist/. */
function workerFile(): string {
  const beside = fileURLToPath(new URL('./worker.js', import.meta.url));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL('../../../dist/src/core/generation/worker.js', import.meta.url));
  if (existsSync(built)) return built;
  throw new PagejsonError('INTERNAL', 'the generation worker is not built', { hint: 'run `npm run build`' });
}

export function generateIsolated(request: GenerateRequest, deps: IsolatedGenerateDeps): Promise<GenerateResult> {
  const job: GenerationJob = {
    request,
    models: deps.models,
    env: deps.env,
    modelTimeoutMs: deps.modelTimeoutMs,
    ...(deps.dataDir ? { dataDir: deps.dataDir } : {}),
    now: (deps.now?.() ?? new Date()).toISOString(),
    ...(deps.limits ? { limits: deps.limits } : {}),
  };
  const worker = new Worker(workerFile(), {
    workerData: job,
    resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 16 },
    stdout: true,
    stderr: true,
  });
  return new Promise<GenerateResult>((resolve, reject) => {
    let settled = false;
    /** The page the thread asked for: the result's html is this, rather than a copy sent back. */
    let fetched = '';
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      settle();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new PagejsonError('EXTRACTION_TIMEOUT', `generation stopped: it ran past its budget of ${deps.budgetMs} ms`, {
              context: { budgetMs: deps.budgetMs },
              hint: 'narrow the page with a section selector, or try another model',
            }),
          ),
        ),
      deps.budgetMs,
    );
    worker.on('message', (message: WorkerReply) => {
      if (message.kind === 'fetch') {
        deps
          .scraperFor(request.scraper)
          // The steps are data the thread could not send with its fetch (they stay with the caller): added here.
          .fetch({ ...message.request, ...generationSteps(request) })
          .then(
            (page) => {
              fetched = page.html;
              return {
                kind: 'page',
                page: { finalUrl: page.finalUrl, status: page.status, headers: page.headers, html: page.html },
              } satisfies GenerationMessage;
            },
            (error: unknown) => ({ kind: 'fetch-failed', error: errorToData(error, { code: 'FETCH_FAILED' }) }) satisfies GenerationMessage,
          )
          .then((answer) => !settled && worker.postMessage(answer));
        return;
      }
      if (message.kind === 'done') finish(() => resolve({ ...message.result, html: fetched }));
      else finish(() => reject(errorFromData(message.error)));
    });
    worker.on('error', (error) =>
      finish(() =>
        reject(
          new PagejsonError('EXTRACTION_FAILED', `generation failed: its thread stopped (${error.message})`, {
            hint: 'the page may be too large or deeply nested for generation; narrow it with a section selector',
          }),
        ),
      ),
    );
    worker.on('exit', (code) =>
      finish(() => reject(new PagejsonError('EXTRACTION_FAILED', `generation failed: its thread exited with code ${code}`))),
    );
  });
}
