import type { Field } from '../../config/index.js';
import type { PageBody } from '../../fetch/index.js';
import type { DocumentLimits } from '../engine/dom.js';
import type { Extraction } from '../engine/index.js';

/**
 * The extraction seam: parse a fetched page and run a config's compiled selectors over it. The daemon runs
 * it in a pool of worker threads with a time budget (a hostile page or selector must never block the event
 * loop); `run` and tests may run it in-process. Both run the same `runExtraction`, so they answer alike.
 */
export interface ExtractionJob {
  config: { apiId: string; revision: number; selector: string; structure: Field[] };
  /** The page as text, or as the bytes received (decoded where the job runs); one of the two. */
  html?: string;
  body?: PageBody;
  finalUrl: string;
  /** Also return the outer HTML of the config's section (a model fills model fields from it). */
  wantSection?: boolean;
  /**
   * The caller gives up the page's bytes: an extractor in another thread may take them there without a copy
   * (they are then detached here, and the page's text can no longer be read from them).
   */
  handOver?: boolean;
  /** pagination.next: also return the address its selector's first link points at, in the whole page. */
  nextLink?: string;
}

export interface ExtractionOutcome extends Extraction {
  sectionHtml?: string;
  /** The next page's address when the job asked for `nextLink` (null: the page has none). */
  nextHref?: string | null;
}

export interface ExtractionSettings {
  /** Budget of one extraction, ms: past it the worker is ended and replaced (pagejson.json `extraction.timeoutMs`). */
  timeoutMs: number;
  limits: DocumentLimits;
}

export interface Extractor {
  readonly name: 'worker-pool' | 'in-process';
  extract(job: ExtractionJob, signal?: AbortSignal): Promise<ExtractionOutcome>;
  close(): Promise<void>;
}

/** What crosses the thread boundary: an Error loses its code and context there, so failures travel as data. */
export type ExtractionFailure = {
  ok: false;
  error: { code: 'EXTRACTION_LIMIT' | 'EXTRACTION_FAILED'; message: string; context: Record<string, unknown> };
};
export type ExtractionReply = { ok: true; outcome: ExtractionOutcome } | ExtractionFailure;

/**
 * A job as it is posted to a worker thread: the structure goes as its fingerprint, the JSON text of
 * `[selector, structure]` made once per loaded config. A string crosses as one copy where a structured clone
 * of the field tree cost ~60 µs per job, and the worker's memo compares it as it is, parsing it only for a
 * revision it has not compiled yet.
 */
export interface WireExtractionJob extends Omit<ExtractionJob, 'config'> {
  config: { apiId: string; revision: number; selector: string; fingerprint: string };
}

/** A worker's outcome: the data as JSON text (one string copy back; the response body reuses the text). */
export interface WireExtractionOutcome extends Omit<ExtractionOutcome, 'data'> {
  dataJson: string;
}
export type WireExtractionReply = { ok: true; outcome: WireExtractionOutcome } | ExtractionFailure;

/**
 * The other task a worker thread takes: give its heap back while it has nothing to do (idle-release.ts). Sizes
 * are V8's committed heap of the thread, before and after.
 */
export interface WireReleaseTask {
  release: true;
}
export interface WireReleaseReply {
  released: boolean;
  heapBytesBefore: number;
  heapBytesAfter: number;
}
