import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { errorFromData, PagejsonError, type ErrorData } from '../../shared/index.js';

/**
 * Page work that is not a plain extraction (a repair, a live check of selectors) in a thread of its own, with a
 * time budget and the extraction threads' heap cap: past the budget the thread is ended and `timeout()` is the
 * error, so a page or selector that would run for minutes costs its caller the budget and nothing more, and the
 * caller's event loop never runs it (issue 40; docs/security.md, "What each part guarantees"). The worker file
 * reads its task from `workerData`, posts `THREAD_STARTED` once its modules are loaded, then one `ThreadReply`.
 * The budget counts from THREAD_STARTED: it is the page's, and loading modules on a busy machine took seconds
 * of it (a live check of three pages failed so under CI's load); loading has its own bound.
 */
export type ThreadReply = { ok: true; result: unknown } | { ok: false; error: ErrorData };
export const THREAD_STARTED = { started: true } as const;
/** A thread that has not loaded its modules in this long is broken, not busy. */
const LOAD_BOUND_MS = 60_000;

export interface ThreadOptions {
  budgetMs: number;
  /** The error past the budget (it names the budget and the setting it comes from). */
  timeout(): PagejsonError;
  /** Ends the thread early (the daemon closing): the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Caps of every page thread, as the extraction pool's (worker-pool.ts): a page that balloons ends its thread only. */
export const PAGE_THREAD_LIMITS = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 16 };

/**
 * A worker's file: the compiled one beside the module that runs it, or, under the test runner (TypeScript
 * sources, which a worker thread cannot load), the built one of the same path under dist/.
 */
export function builtWorkerFile(beside: URL, built: URL, what: string): string {
  for (const url of [beside, built]) {
    const file = fileURLToPath(url);
    if (existsSync(file)) return file;
  }
  throw new PagejsonError('INTERNAL', `${what} is not built`, { hint: 'run `npm run build`' });
}

export function runInThread<R>(file: string, workerData: unknown, options: ThreadOptions): Promise<R> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  const worker = new Worker(file, { workerData, resourceLimits: PAGE_THREAD_LIMITS });
  return new Promise<R>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      void worker.terminate();
      settle();
    };
    const abort = () => finish(() => reject(signal!.reason as Error));
    const overBudget = () => finish(() => reject(options.timeout()));
    let timer = setTimeout(overBudget, LOAD_BOUND_MS + options.budgetMs);
    signal?.addEventListener('abort', abort, { once: true });
    worker.on('message', (reply: ThreadReply | typeof THREAD_STARTED) => {
      if ('started' in reply) {
        clearTimeout(timer);
        timer = setTimeout(overBudget, options.budgetMs);
        return;
      }
      finish(() => (reply.ok ? resolve(reply.result as R) : reject(errorFromData(reply.error))));
    });
    worker.on('error', (error) =>
      finish(() =>
        reject(
          new PagejsonError('EXTRACTION_FAILED', `the page could not be worked on: its thread stopped (${error.message})`, {
            hint: "the page may be too large or deeply nested; narrow the config's section selector",
          }),
        ),
      ),
    );
    worker.on('exit', (code) =>
      finish(() => reject(new PagejsonError('EXTRACTION_FAILED', `the page could not be worked on: its thread exited with code ${code}`))),
    );
  });
}
