import { extractionError } from './errors.js';
import { runExtraction } from './run-extraction.js';
import type { ExtractionSettings, Extractor } from './types.js';

/**
 * Extraction on the calling thread: for one-off commands (`run`, `test`), where nothing else waits on the
 * event loop. The document limits apply; the time budget cannot (a synchronous run cannot be interrupted).
 */
export function createInProcessExtractor(settings: Pick<ExtractionSettings, 'limits'>): Extractor {
  return {
    name: 'in-process',
    async extract(job, signal) {
      signal?.throwIfAborted();
      const reply = runExtraction(job, settings.limits);
      if (!reply.ok) throw extractionError(reply, job.config.apiId);
      return reply.outcome;
    },
    async close() {},
  };
}
