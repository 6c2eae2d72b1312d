import { extractionError } from './errors.js';
import { runExtraction } from './run-extraction.js';
import type { ExtractionSettings, Extractor } from './types.js';

/**
 * Extraction on the calling thread, for trusted pages only (tests, the retrieval pipeline's default). The
 * document limits apply; the time budget cannot (a synchronous run cannot be interrupted), so nothing that
 * reads pages from outside uses it: the daemon and every CLI command extract in the worker pool with the
 * budget (src/cli/local-retriever.ts, issue 40).
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
