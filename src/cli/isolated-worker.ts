import { parentPort, workerData } from 'node:worker_threads';
import { errorToData } from '../core/generation/protocol.js';
import type { RepairProposal } from '../core/health/repair.js';
import type { IsolatedReply, IsolatedTask } from './isolated.js';

/** One task of isolated.ts in this thread: the parent ends the thread when its budget runs out. */
async function run(task: IsolatedTask): Promise<unknown> {
  if (task.kind === 'live-check') {
    const { liveProblems } = await import('../core/registry/live-check.js');
    return liveProblems(task.config, task.html, task.pageUrl, task.file, task.limits);
  }
  return repair(task);
}

async function repair(task: Extract<IsolatedTask, { kind: 'repair' }>): Promise<RepairProposal> {
  const { config, html, pageUrl, expected, stored } = task;
  const health = await import('../core/health/index.js');
  if (stored) {
    // The daemon's proposal, re-measured on the page as it is now.
    const [{ compileStructure }, { describeChanges }] = await Promise.all([import('../core/extract/engine/index.js'), import('../core/edit/describe-changes.js')]);
    const data = compileStructure({ selector: stored.selector, structure: stored.structure }).extract(html, pageUrl).data;
    return { apiId: config.apiId, fromRevision: config.revision, config: stored, repaired: [], unrepaired: [], recovery: health.recoveryOf(expected, data), by: 'the daemon (stored proposal)', changes: describeChanges(config, stored) };
  }
  const { createModelResolver, HEURISTIC_MODEL } = await import('../core/models/index.js');
  const model = config.model === HEURISTIC_MODEL ? undefined : await createModelResolver({ models: task.models, env: task.env, timeoutMs: task.modelTimeoutMs }).get(config.model);
  return health.proposeRepair({ config, html, pageUrl, expected, ...(model ? { model } : {}) });
}

run(workerData as IsolatedTask).then(
  (result) => parentPort!.postMessage({ ok: true, result } satisfies IsolatedReply),
  (error: unknown) => parentPort!.postMessage({ ok: false, error: errorToData(error, { code: 'INTERNAL' }) } satisfies IsolatedReply),
);
