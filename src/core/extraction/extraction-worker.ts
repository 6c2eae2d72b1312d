import { workerData } from 'node:worker_threads';
import type { DocumentLimits } from '../structure/dom.js';
import { runExtraction } from './run-extraction.js';
import type { ExtractionJob, ExtractionReply } from './types.js';

/** The worker thread of the extraction pool (piscina calls the default export once per job). */
const limits = (workerData as { limits: DocumentLimits }).limits;

export default function extract(job: ExtractionJob): ExtractionReply {
  return runExtraction(job, limits);
}
