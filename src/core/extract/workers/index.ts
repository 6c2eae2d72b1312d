export { createInProcessExtractor } from './in-process.js';
export { createWorkerPoolExtractor, type WorkerPoolOptions } from './worker-pool.js';
export type { ExtractionJob, ExtractionOutcome, ExtractionSettings, Extractor } from './types.js';
export {
  builtWorkerFile,
  PAGE_THREAD_LIMITS,
  runInThread,
  THREAD_STARTED,
  type ThreadOptions,
  type ThreadReply,
} from './isolated-thread.js';
export { extractionTimeout } from './errors.js';
export { createPageProbe, type PageProbe, type PageProbeOptions } from './page-probe.js';
export type { MatchSummary, SelectorPreview } from './page-probe-types.js';
