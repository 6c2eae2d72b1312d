import { parentPort, workerData } from 'node:worker_threads';
import { errorToData } from '../core/shared/error-data.js';
import { THREAD_STARTED, type ThreadReply } from '../core/extract/workers/isolated-thread.js';
import type { LiveCheckTask } from './isolated.js';

/** One live check of isolated.ts in this thread: the parent ends the thread when its budget runs out. */
async function run(task: LiveCheckTask): Promise<unknown> {
  const { liveProblems } = await import('../core/registry/live-check.js');
  // The budget counts from here: loading the modules is not the page's time (isolated-thread.ts).
  parentPort!.postMessage(THREAD_STARTED);
  return liveProblems(task.config, task.html, task.pageUrl, task.file, task.limits);
}

run(workerData as LiveCheckTask).then(
  (result) => parentPort!.postMessage({ ok: true, result } satisfies ThreadReply),
  (error: unknown) => parentPort!.postMessage({ ok: false, error: errorToData(error, { code: 'INTERNAL' }) } satisfies ThreadReply),
);
