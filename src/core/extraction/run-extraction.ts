import { getCompiledStructure } from '../structure/memo.js';
import { getOuterHTML } from 'domutils';
import { decodeHtmlBody } from '../net/charset.js';
import { DocumentLimitError, parseHtml, sectionRoots, type DocumentLimits } from '../structure/dom.js';
import type { ExtractionJob, ExtractionReply } from './types.js';

/**
 * One extraction, as data in and data out, so that a worker thread and the main thread run the very same
 * code. Compiled structures come from the structure memo (per apiId + revision, confirmed by their JSON when a
 * job arrives as a structured clone).
 */
export function runExtraction(job: ExtractionJob, limits: DocumentLimits): ExtractionReply {
  try {
    const structure = getCompiledStructure(job.config);
    const html = job.html ?? decodeHtmlBody(job.body!.bytes, job.body!.contentType).text;
    const doc = parseHtml(html, limits);
    const extraction = structure.extractFromDocument(doc, job.finalUrl);
    if (!job.wantSection) return { ok: true, outcome: extraction };
    const roots = sectionRoots(doc, job.config.selector);
    const sectionHtml = roots.length === 1 && roots[0] === doc ? html : roots.map((root) => getOuterHTML(root)).join('\n');
    return { ok: true, outcome: { ...extraction, sectionHtml } };
  } catch (error) {
    if (error instanceof DocumentLimitError) {
      return { ok: false, error: { code: 'EXTRACTION_LIMIT', message: error.message, context: { limit: error.limit, value: error.value } } };
    }
    // A RangeError (call stack) or anything else the page provoked: reported, never a crashed thread.
    return { ok: false, error: { code: 'EXTRACTION_FAILED', message: (error as Error)?.message ?? String(error), context: {} } };
  }
}
