import { PagejsonError } from '../../shared/index.js';
import type { ExtractionReply } from './types.js';

/** The error a failed extraction reply stands for, with a message that names the limit and where to change it. */
export function extractionError(reply: Extract<ExtractionReply, { ok: false }>, apiId: string): PagejsonError {
  const { code, message, context } = reply.error;
  if (code === 'EXTRACTION_LIMIT') {
    const setting = context.limit === 'maxDepth' ? 'extraction.maxDepth' : 'extraction.maxElements';
    return new PagejsonError('EXTRACTION_LIMIT', message, {
      context: { ...context, apiId },
      hint: `a real page stays far below this; if this source really is that large, raise ${setting} in pagejson.json (a running \`pagejson serve\` takes it when restarted)`,
    });
  }
  return new PagejsonError('EXTRACTION_FAILED', `extraction failed: ${message}`, {
    context: { ...context, apiId },
    hint: 'the page could not be read as HTML by the selectors; try another scraper',
  });
}

export function extractionTimeout(timeoutMs: number, apiId: string): PagejsonError {
  return new PagejsonError(
    'EXTRACTION_TIMEOUT',
    `extraction stopped: it ran past its budget of ${timeoutMs} ms (extraction.timeoutMs in pagejson.json)`,
    {
      context: { timeoutMs, apiId },
      hint: 'a selector or the page is too costly: simplify the selectors (`pagejson validate`), or raise extraction.timeoutMs if the page is just large',
    },
  );
}
