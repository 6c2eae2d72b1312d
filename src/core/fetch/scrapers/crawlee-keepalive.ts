import { randomUUID } from 'node:crypto';
import type { BasicCrawler, Request } from '@crawlee/cheerio';
import { PagejsonError } from '../../shared/index.js';
import { isMemoryRequestManager } from './crawlee-request-manager.js';
import type { FetchResult } from './types.js';

/**
 * The glue that turns a long-lived Crawlee crawler (`keepAlive: true`) into a request/response function.
 * Crawlee is built for crawls, not for answering one URL at a time, so this module owns what that takes:
 * waiting until `run()` has really started, a fresh `uniqueKey` per fetch (so repeated URLs are not
 * deduplicated), waking the idle pool after each add, one total deadline per fetch, and forgetting handled
 * requests so that a daemon that fetches for weeks does not keep every request it ever made.
 */

/** What a crawler's hooks need to know about the fetch a Crawlee request belongs to. */
export interface PendingFetch {
  readonly key: string;
  readonly url: string;
  /** Epoch ms after which the fetch has failed anyway: retries and waits are cut to fit before it. */
  readonly deadline: number;
  /** Aborted when the fetch is settled (timeout, caller abort, result): in-flight I/O stops. */
  readonly abort: AbortSignal;
  resolve(result: FetchResult): void;
  reject(error: unknown): void;
}

export interface KeepAliveCrawler {
  submit(url: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<FetchResult>;
  /** The fetch a Crawlee request belongs to, or undefined once it was settled (the request is then moot). */
  pendingFor(request: Request): PendingFetch | undefined;
  close(): Promise<void>;
}

const START_POLL_MS = 5;
const START_LIMIT_MS = 15_000;
/** Handled requests are deleted from the in-memory queue in batches of this size. */
const SWEEP_BATCH = 50;
/** Unique keys are fresh per fetch, so the dedup table only ever fills up; it is cleared this often. */
const SEEN_CACHE_RESET_EVERY = 10_000;

/** Crawlee internals the sweep touches (not in its public types); every access is optional. */
interface QueueInternals {
  client: { getRequest(id: string): Promise<{ handledAt?: string } | undefined>; deleteRequest(id: string): Promise<void> };
  requestCache?: { remove?(key: string): void };
  requestSeenCache?: { clear?(): void };
}

export function timeoutError(timeoutMs: number): PagejsonError {
  return new PagejsonError('FETCH_TIMEOUT', `timed out after ${timeoutMs} ms`, {
    context: { timeoutMs },
    hint: 'the source is slow or hung; raise fetch.timeoutMs in pagejson.json if it is just slow',
  });
}

export function abortedError(): PagejsonError {
  return new PagejsonError('FETCH_FAILED', 'the fetch was aborted', { hint: 'the caller went away or the process is shutting down' });
}

export function closedError(): PagejsonError {
  return new PagejsonError('FETCH_FAILED', 'the scraper is closed', { hint: 'create a new scraper pool' });
}

/**
 * Starts `crawler.run()` in the background and resolves once the crawler can take requests. Adding requests
 * before the autoscaled pool and the session pool exist can leave the first request waiting for 180 s.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function startCrawler(crawler: BasicCrawler<any>): Promise<{ running: Promise<unknown> }> {
  const sigintBefore = new Set(process.listeners('SIGINT'));
  const running = crawler.run();
  // run() only settles when the crawler stops; until then a rejection is a startup failure.
  let failed: unknown;
  running.catch((error: unknown) => {
    failed = error ?? new Error('crawler stopped');
  });
  const started = Date.now();
  for (;;) {
    if (failed !== undefined) throw failed;
    const usesSessions = (crawler as unknown as { useSessionPool: boolean }).useSessionPool;
    const crawlerSigint = process.listeners('SIGINT').filter((listener) => !sigintBefore.has(listener));
    if (crawler.autoscaledPool && (!usesSessions || crawler.sessionPool) && crawlerSigint.length > 0) {
      // run() installs a SIGINT handler that pauses the crawl instead of letting the process stop; the
      // daemon and the CLI own their signals, so take it away again.
      for (const listener of crawlerSigint) process.removeListener('SIGINT', listener as () => void);
      return { running };
    }
    if (Date.now() - started > START_LIMIT_MS) throw new PagejsonError('FETCH_FAILED', 'the crawler did not start', { hint: 'retry; report it if it persists' });
    await new Promise((resolve) => setTimeout(resolve, START_POLL_MS));
  }
}

export interface KeepAliveOptions {
  /**
   * Abort the fetch's signal when it succeeds too (default). A successful HTTP fetch has no I/O left, and got
   * answers an abort of its finished request by building an AbortError with a stack trace: scraper 2 turns
   * this off. Failures and deadlines always abort.
   */
  abortOnSuccess?: boolean;
}

/** Any crawler flavour (Cheerio, Playwright) will do. */
export function createKeepAliveCrawler(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  crawler: BasicCrawler<any>,
  afterClose: () => void | Promise<void> = () => undefined,
  options: KeepAliveOptions = {},
): KeepAliveCrawler {
  const { abortOnSuccess = true } = options;
  const manager = (crawler as unknown as { requestQueue?: unknown }).requestQueue;
  const pending = new Map<string, PendingFetch>();
  let closed = false;
  let starting: Promise<void> | undefined;
  let running: Promise<unknown> | undefined;
  const settledRequestIds: string[] = [];
  let sweeping = false;
  let sweptSinceReset = 0;

  function ensureStarted(): Promise<void> {
    starting ??= startCrawler(crawler).then((started) => {
      running = started.running;
    });
    return starting;
  }

  /**
   * The in-memory queue keeps every request forever and scans past handled ones when it looks for work, so
   * a daemon's queue would grow in memory and in CPU per fetch. Delete requests once Crawlee has marked them
   * handled (it does so just after our handlers return; unhandled ones wait for the next sweep).
   */
  async function sweepHandledRequests(): Promise<void> {
    if (sweeping || closed || settledRequestIds.length < SWEEP_BATCH) return;
    sweeping = true;
    try {
      const queue = (await crawler.getRequestQueue()) as unknown as QueueInternals;
      const batch = settledRequestIds.splice(0, settledRequestIds.length);
      for (const id of batch) {
        const stored = await queue.client.getRequest(id);
        if (stored && !stored.handledAt) {
          settledRequestIds.push(id);
          continue;
        }
        if (stored) await queue.client.deleteRequest(id);
        // The queue object caches every request it saw (up to 2 million) and every unique key (a fixed
        // 1-million-slot table): drop the first per request, reset the second now and then.
        queue.requestCache?.remove?.(id);
        sweptSinceReset += 1;
      }
      if (sweptSinceReset >= SEEN_CACHE_RESET_EVERY) {
        queue.requestSeenCache?.clear?.();
        sweptSinceReset = 0;
      }
    } catch {
      // Forgetting is an optimisation: a failed sweep only means the memory is reclaimed later.
    } finally {
      sweeping = false;
    }
  }

  async function submit(url: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<FetchResult> {
    if (closed) throw closedError();
    if (options.signal?.aborted) throw abortedError();
    const key = randomUUID();
    const controller = new AbortController();
    let settle!: (outcome: { ok: true; value: FetchResult } | { ok: false; error: unknown }) => void;
    const result = new Promise<FetchResult>((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => settle({ ok: false, error: timeoutError(options.timeoutMs) }), options.timeoutMs);
      const onAbort = (): void => settle({ ok: false, error: abortedError() });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      settle = (outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        pending.delete(key);
        if (!outcome.ok || abortOnSuccess) controller.abort();
        if (outcome.ok) resolve(outcome.value);
        else reject(outcome.error);
      };
    });
    pending.set(key, {
      key,
      url,
      deadline: Date.now() + options.timeoutMs,
      abort: controller.signal,
      resolve: (value) => settle({ ok: true, value }),
      reject: (error) => settle({ ok: false, error }),
    });
    try {
      await ensureStarted();
      // A fetch settled while the crawler was starting (deadline, caller abort) is not queued at all.
      if (!controller.signal.aborted) {
        if (isMemoryRequestManager(manager)) {
          // Straight into our own manager: no validation of a URL we built, nothing stored to sweep later.
          manager.add({ url, uniqueKey: key, userData: { pagejsonKey: key } });
        } else {
          const added = await crawler.addRequests([{ url, uniqueKey: key, userData: { pagejsonKey: key } }]);
          const requestId = added.addedRequests[0]?.requestId;
          if (requestId) {
            void result.finally(() => {
              settledRequestIds.push(requestId);
              void sweepHandledRequests();
            }).catch(() => undefined);
          }
        }
        crawler.autoscaledPool?.notify();
      }
    } catch (error) {
      settle({ ok: false, error });
    }
    return result;
  }

  return {
    submit,
    pendingFor: (request) => {
      const key = (request.userData as { pagejsonKey?: string } | undefined)?.pagejsonKey ?? request.uniqueKey;
      return pending.get(key);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      for (const entry of [...pending.values()]) entry.reject(closedError());
      if (starting) {
        await starting.catch(() => undefined);
        // The first fetches can be served (through notify()) before the pool's run() has finished starting;
        // aborting before its intervals exist would leave them running and keep the process alive.
        const pool = crawler.autoscaledPool as unknown as { maybeRunInterval?: unknown } | undefined;
        for (let waited = 0; pool && pool.maybeRunInterval === undefined && waited < START_LIMIT_MS; waited += START_POLL_MS) {
          await new Promise((resolve) => setTimeout(resolve, START_POLL_MS));
        }
        // Aborting the pool ends run(), whose own cleanup tears the crawler (and a browser pool) down.
        await crawler.autoscaledPool?.abort().catch(() => undefined);
        await running?.catch(() => undefined);
      }
      await afterClose();
    },
  };
}
