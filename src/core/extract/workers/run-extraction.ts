import { getCompiledStructure, getCompiledStructureByFingerprint } from '../engine/memo.js';
import { getOuterHTML } from 'domutils';
import type { CompiledStructure } from '../engine/compile.js';
import { decodeHtmlBody } from '../../shared/index.js';
import { DocumentLimitError, parseHtml, sectionRoots, type DocumentLimits } from '../engine/dom.js';
import { nextLinkHref } from '../engine/next-link.js';
import type { ExtractionFailure, ExtractionJob, ExtractionReply, WireExtractionJob, WireExtractionReply } from './types.js';

/**
 * One extraction, as data in and data out, so that a worker thread and the main thread run the very same
 * code. Compiled structures come from the structure memo (per apiId + revision, confirmed by the structure
 * object or its fingerprint).
 */
export function runExtraction(job: ExtractionJob, limits: DocumentLimits): ExtractionReply {
  return extractWith(job, limits, () => getCompiledStructure(job.config));
}

/** The same in a worker thread: the structure known by its fingerprint, the data sent back as JSON text. */
export function runWireExtraction(job: WireExtractionJob, limits: DocumentLimits): WireExtractionReply {
  const { apiId, revision, fingerprint } = job.config;
  const reply = extractWith(job, limits, () => getCompiledStructureByFingerprint(apiId, revision, fingerprint));
  if (!reply.ok) return reply;
  const { data, ...rest } = reply.outcome;
  return { ok: true, outcome: { ...rest, dataJson: JSON.stringify(data) } };
}

/** `structureOf` runs inside the guard: a structure that does not compile is a failed extraction, not a crash. */
function extractWith(
  job: ExtractionJob | WireExtractionJob,
  limits: DocumentLimits,
  structureOf: () => CompiledStructure,
): ExtractionReply {
  try {
    const structure = structureOf();
    const html = job.html ?? decodeHtmlBody(job.body!.bytes, job.body!.contentType).text;
    const doc = parseHtml(html, limits);
    const extracted = structure.extractFromDocument(doc, job.finalUrl);
    const extraction = job.nextLink === undefined ? extracted : { ...extracted, nextHref: nextLinkHref(doc, job.nextLink, job.finalUrl) };
    if (!job.wantSection) return { ok: true, outcome: extraction };
    const roots = sectionRoots(doc, job.config.selector);
    const sectionHtml = roots.length === 1 && roots[0] === doc ? html : roots.map((root) => getOuterHTML(root)).join('\n');
    return { ok: true, outcome: { ...extraction, sectionHtml } };
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): ExtractionFailure {
  if (error instanceof DocumentLimitError) {
    return { ok: false, error: { code: 'EXTRACTION_LIMIT', message: error.message, context: { limit: error.limit, value: error.value } } };
  }
  // A RangeError (call stack) or anything else the page provoked: reported, never a crashed thread.
  return { ok: false, error: { code: 'EXTRACTION_FAILED', message: (error as Error)?.message ?? String(error), context: {} } };
}
