import { parentPort, workerData } from 'node:worker_threads';
import { errorToData } from '../../shared/index.js';
import { compileStructure } from '../engine/compile.js';
import { parseHtml, type Document } from '../engine/dom.js';
import { fieldContexts, fieldMatches } from '../engine/field-context.js';
import { previewSelector } from '../engine/preview.js';
import type { ThreadReply } from './isolated-thread.js';
import type { MatchSummary, ProbeMessage, ProbePage, ProbeQuery, SelectorPreview } from './page-probe-types.js';

/**
 * A page probe's thread (page-probe.ts): the page is parsed once, within the document limits, at the first
 * query (its parse counts in that query's budget), and every query is answered on that document. The parent
 * ends the thread when a query runs past its budget.
 */
const page = workerData as ProbePage;
let doc: Document | undefined;
let parseFailure: unknown;

function parsed(): Document {
  if (doc === undefined && parseFailure === undefined) {
    try {
      doc = parseHtml(page.html, page.limits);
    } catch (error) {
      parseFailure = error;
    }
  }
  if (parseFailure !== undefined) throw parseFailure;
  return doc!;
}

function matchSummary(query: Extract<ProbeQuery, { kind: 'matches' }>, parsed: Document): MatchSummary {
  const matches = fieldMatches(fieldContexts(query.config, parsed, query.parentPath), query.selector, { all: query.all });
  const attributes = matches.attributes.map(({ name, count }) => {
    const example = matches.elements.map((element) => element.attribs[name]).find((value) => value !== undefined && value.trim() !== '');
    return { name, count, ...(example !== undefined ? { example: example.length > 60 ? `${example.slice(0, 57)}…` : example } : {}) };
  });
  return {
    contexts: matches.contexts,
    matchedContexts: matches.matchedContexts,
    count: matches.elements.length,
    values: matches.values,
    attributes,
  };
}

function answer(query: ProbeQuery): unknown {
  const document = parsed();
  switch (query.kind) {
    case 'ready':
      return true;
    case 'sample':
      return compileStructure(query.config).extractFromDocument(document, page.finalUrl).data;
    case 'preview': {
      const values = previewSelector(document, query.selector, {
        limit: 10_000,
        baseUrl: page.finalUrl,
        ...(query.attribute ? { attribute: query.attribute } : {}),
      });
      return { count: values.length, values: values.slice(0, 3) } satisfies SelectorPreview;
    }
    case 'matches':
      return matchSummary(query, document);
  }
}

parentPort!.on('message', ({ id, query }: ProbeMessage) => {
  let reply: ThreadReply;
  try {
    reply = { ok: true, result: answer(query) };
  } catch (error) {
    reply = { ok: false, error: errorToData(error, { code: 'EXTRACTION_FAILED' }) };
  }
  parentPort!.postMessage({ id, reply });
});
// Loaded: from here on the parent counts each query's budget (loading the code is not the page's doing).
parentPort!.postMessage({ started: true });
