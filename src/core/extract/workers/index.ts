export { createInProcessExtractor } from './in-process.js';
export { createWorkerPoolExtractor, type WorkerPoolOptions } from './worker-pool.js';
export type { ExtractionJob, ExtractionOutcome, ExtractionSettings, Extractor } from './types.js';
