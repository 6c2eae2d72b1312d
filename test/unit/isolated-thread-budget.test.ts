import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInThread, THREAD_STARTED } from '../../src/core/extract/workers/isolated-thread.js';
import { PagejsonError } from '../../src/core/shared/index.js';

/**
 * A page thread's budget is the page's (isolated-thread.ts): it counts from the thread's THREAD_STARTED, not
 * from its creation, so a thread whose modules load slowly on a busy machine is not failed for it. The worker
 * here spends 3 s "loading" (a busy wait before it says it started) with a budget of 1.5 s: counted from the
 * creation, the budget would end it; counted from the start, its instant reply is in time.
 */
let dir: string;
const worker = (loadMs: number, workMs: number) => `
  import { parentPort } from 'node:worker_threads';
  const busy = (ms) => { const end = Date.now() + ms; while (Date.now() < end); };
  busy(${loadMs});
  parentPort.postMessage(${JSON.stringify(THREAD_STARTED)});
  busy(${workMs});
  parentPort.postMessage({ ok: true, result: 'done' });
`;
const overBudget = () => new PagejsonError('EXTRACTION_TIMEOUT', 'over budget');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pagejson-thread-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('does not count the time a thread takes to load toward its budget', async () => {
  const file = join(dir, 'slow-load.mjs');
  await writeFile(file, worker(3_000, 0));
  await expect(runInThread<string>(file, {}, { budgetMs: 1_500, timeout: overBudget })).resolves.toBe('done');
});

it('still ends a thread whose page work runs past the budget', async () => {
  const file = join(dir, 'slow-work.mjs');
  await writeFile(file, worker(0, 5_000));
  await expect(runInThread<string>(file, {}, { budgetMs: 300, timeout: overBudget })).rejects.toMatchObject({ message: 'over budget' });
});
