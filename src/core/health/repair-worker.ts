import { parentPort, workerData } from 'node:worker_threads';
import { errorToData } from '../shared/index.js';
import { THREAD_STARTED, type ThreadReply } from '../extract/index.js';
import type { RepairThreadTask } from './isolated-repair.js';
import type { RepairProposal } from './repair.js';

/** One repair of isolated-repair.ts in this thread: the parent ends the thread when its budget runs out. */
async function repair(task: RepairThreadTask): Promise<RepairProposal> {
  const { config, html, pageUrl, expected, stored } = task;
  // The project's document limits for every parse the repair makes (extraction.maxDepth, maxElements).
  if (task.limits) (await import('../extract/index.js')).useDocumentLimits(task.limits);
  const [{ recoveryOf }, { proposeRepair, extractedBy }, { modelFieldPaths, withoutModelValues }] = await Promise.all([
    import('./heal.js'),
    import('./repair.js'),
    import('./model-fields.js'),
  ]);
  // The budget counts from here: loading the modules is not the page's time (isolated-thread.ts).
  parentPort!.postMessage(THREAD_STARTED);
  if (stored) {
    // The daemon's proposal, measured again on the page as it is now.
    const { describeChanges } = await import('../edit/index.js');
    const data = extractedBy(stored, html, pageUrl);
    return {
      apiId: config.apiId,
      fromRevision: config.revision,
      config: stored,
      repaired: [],
      unrepaired: [],
      refused: [],
      recovery: recoveryOf(withoutModelValues(config.structure, expected), data),
      by: 'the daemon (stored proposal)',
      changes: describeChanges(config, stored),
      data,
      before: extractedBy(config, html, pageUrl),
      modelFields: modelFieldPaths(config.structure),
    };
  }
  const { createModelResolver, HEURISTIC_MODEL } = await import('../models/index.js');
  const model =
    config.model === HEURISTIC_MODEL
      ? undefined
      : // The formats a server refused, remembered in the data dir as generation does: not asked for again.
        await createModelResolver({
          models: task.models,
          env: task.env,
          timeoutMs: task.modelTimeoutMs,
          ...(task.dataDir ? { dataDir: task.dataDir } : {}),
        }).get(config.model);
  return proposeRepair({ config, html, pageUrl, expected, ...(model ? { model } : {}) });
}

repair(workerData as RepairThreadTask).then(
  (result) => parentPort!.postMessage({ ok: true, result } satisfies ThreadReply),
  (error: unknown) => parentPort!.postMessage({ ok: false, error: errorToData(error, { code: 'INTERNAL' }) } satisfies ThreadReply),
);
