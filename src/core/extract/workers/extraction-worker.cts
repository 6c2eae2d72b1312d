/**
 * The worker thread of the extraction pool (piscina calls the export once per job). It is CommonJS on
 * purpose: piscina loads a worker with require() first, and Node 20.19+ then instantiates an ES module
 * synchronously, which aborts the whole process (a V8 fatal error) when a worker is ended mid-load (a pool
 * closed at shutdown, a thread replaced after its budget). Here require() loads plain CommonJS, and the
 * extraction code, ES modules, is imported asynchronously on the first job.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS on purpose (see above)
import workerThreads = require('node:worker_threads');
import type { DocumentLimits } from '../engine/dom.js';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS on purpose (see above)
import releaseHeapModule = require('./release-heap.cjs');
import type * as RunExtraction from './run-extraction.js';
import type { WireExtractionJob, WireExtractionReply, WireReleaseReply, WireReleaseTask } from './types.js';

const limits = (workerThreads.workerData as { limits: DocumentLimits }).limits;
let loading: Promise<typeof RunExtraction> | undefined;

async function extract(job: WireExtractionJob | WireReleaseTask): Promise<WireExtractionReply | WireReleaseReply> {
  if ('release' in job) return releaseHeapModule.releaseHeap();
  loading ??= import('./run-extraction.js');
  return (await loading).runWireExtraction(job, limits);
}

export = extract;
