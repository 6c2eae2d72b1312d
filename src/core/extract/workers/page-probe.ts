import { Worker } from 'node:worker_threads';
import { errorFromData, PagejsonError } from '../../shared/index.js';
import type { DocumentLimits } from '../engine/dom.js';
import { extractionTimeout } from './errors.js';
import { builtWorkerFile, PAGE_THREAD_LIMITS, type ThreadReply } from './isolated-thread.js';
import type { MatchSummary, ProbeQuery, ProbeStructure, SelectorPreview } from './page-probe-types.js';

/**
 * Selector tries on one fetched page, for an editor that asks many questions of the same page (`pagejson edit`
 * and generate's "edit before saving"): the page is parsed once in a thread of its own, within the document
 * limits, and each question has the extraction budget. Past it the thread is ended (the question fails with
 * the budget's error) and the next question starts another; a page past the limits fails every question with
 * the limit's error. So a hostile page or selector costs the editor one budget, never its event loop (issue 40;
 * docs/security.md, "What each part guarantees").
 */
export interface PageProbeOptions {
  /** extraction.timeoutMs: the budget of each question (the page's parse counts in the first one). */
  timeoutMs: number;
  limits: DocumentLimits;
  /** Named in the budget's error. */
  apiId: string;
}

export interface PageProbe {
  /** Resolves once the page is parsed; rejects past the limits or the budget. */
  ready(): Promise<void>;
  sample(config: ProbeStructure): Promise<Record<string, unknown>>;
  preview(selector: string, attribute?: string): Promise<SelectorPreview>;
  matches(config: ProbeStructure, parentPath: string[], selector: string, options?: { all?: boolean }): Promise<MatchSummary>;
  close(): Promise<void>;
}

interface Pending {
  owner: Worker;
  /** Set once the thread has loaded: the budget counts from there. */
  timer?: NodeJS.Timeout;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export function createPageProbe(page: { html: string; finalUrl: string }, options: PageProbeOptions): PageProbe {
  const file = builtWorkerFile(
    new URL('./page-probe-worker.js', import.meta.url),
    new URL('../../../../dist/src/core/extract/workers/page-probe-worker.js', import.meta.url),
    'the page probe worker',
  );
  const pending = new Map<number, Pending>();
  const started = new WeakSet<Worker>();
  let worker: Worker | undefined;
  let nextId = 0;
  let closed = false;

  /** Every question of `owner` fails with `error`, and the thread is ended; the next question starts another. */
  const fail = (owner: Worker, error: unknown): void => {
    if (worker === owner) worker = undefined;
    void owner.terminate();
    for (const [id, entry] of pending) {
      if (entry.owner !== owner) continue;
      pending.delete(id);
      clearTimeout(entry.timer);
      entry.reject(error);
    }
  };

  /** A thread with no question in flight keeps no process alive (an editor left open, a CLI ending). */
  const settle = (owner: Worker): void => {
    if (![...pending.values()].some((entry) => entry.owner === owner)) owner.unref();
  };

  const budget = (owner: Worker, entry: Pending): void => {
    entry.timer = setTimeout(() => fail(owner, extractionTimeout(options.timeoutMs, options.apiId)), options.timeoutMs);
  };

  const start = (): Worker => {
    const thread = new Worker(file, {
      workerData: { html: page.html, finalUrl: page.finalUrl, limits: options.limits },
      resourceLimits: PAGE_THREAD_LIMITS,
    });
    thread.on('message', (message: { started: true } | { id: number; reply: ThreadReply }) => {
      if ('started' in message) {
        started.add(thread);
        for (const entry of pending.values()) if (entry.owner === thread && !entry.timer) budget(thread, entry);
        return;
      }
      const { id, reply } = message;
      const entry = pending.get(id);
      if (!entry) return;
      pending.delete(id);
      clearTimeout(entry.timer);
      settle(thread);
      if (reply.ok) entry.resolve(reply.result);
      else entry.reject(errorFromData(reply.error));
    });
    thread.on('error', (error) =>
      fail(
        thread,
        new PagejsonError('EXTRACTION_FAILED', `the page could not be worked on: its thread stopped (${error.message})`, {
          hint: 'the page may be too large or deeply nested',
        }),
      ),
    );
    thread.on('exit', (code) =>
      fail(thread, new PagejsonError('EXTRACTION_FAILED', `the page could not be worked on: its thread exited with code ${code}`)),
    );
    return thread;
  };

  const ask = <T>(query: ProbeQuery): Promise<T> => {
    if (closed) return Promise.reject(new PagejsonError('INTERNAL', 'the page probe is closed'));
    const owner = (worker ??= start());
    const id = (nextId += 1);
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { owner, resolve: resolve as (value: unknown) => void, reject };
      pending.set(id, entry);
      owner.ref();
      if (started.has(owner)) budget(owner, entry);
      owner.postMessage({ id, query });
    });
  };

  return {
    ready: () => ask<boolean>({ kind: 'ready' }).then(() => undefined),
    sample: (config) => ask({ kind: 'sample', config: { selector: config.selector, structure: config.structure } }),
    preview: (selector, attribute) => ask({ kind: 'preview', selector, ...(attribute ? { attribute } : {}) }),
    matches: (config, parentPath, selector, matchOptions = {}) =>
      ask({
        kind: 'matches',
        config: { selector: config.selector, structure: config.structure },
        parentPath,
        selector,
        all: matchOptions.all === true,
      }),
    async close() {
      closed = true;
      if (worker) fail(worker, new PagejsonError('INTERNAL', 'the page probe is closed'));
    },
  };
}
