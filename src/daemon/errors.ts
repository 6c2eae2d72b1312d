import { isPagejsonError, type PagejsonError } from '../core/shared/errors.js';
import { hasWireRow, INTERNAL_ROW, wireRow, wireText, type WireCode, type WireRow } from '../core/shared/error-table.js';

/**
 * Errors as the daemon answers them: the status and message come from the one error table
 * (src/core/shared/error-table.ts, docs/wire.md); this file only shapes the envelope and maps what Fastify
 * raises itself to the table's codes. A 500 never shows details: they go to the log with the request id.
 */
export interface EnvelopeError {
  message: string;
  code: string;
  /** What to do, when the mistake is a common one (a key sent as a bearer token). An addition callers may ignore. */
  hint?: string;
}

export interface ErrorReply {
  status: number;
  errors: EnvelopeError[];
  /** True when the failure is ours (500): the caller logs the details. */
  internal: boolean;
}

/** The table's fixed texts under the names the daemon's routes use. */
export const MESSAGES = {
  keyMissing: wireText('KEY_MISSING'),
  keyInvalid: wireText('KEY_INVALID'),
  noData: wireText('NO_DATA'),
  inactive: wireText('ENDPOINT_INACTIVE'),
  bodyInvalidJson: wireText('BODY_INVALID_JSON'),
  bodyTooLarge: wireText('BODY_TOO_LARGE'),
  bodyNotObject: wireText('BODY_NOT_OBJECT'),
  contentType: wireText('BODY_CONTENT_TYPE'),
  noCredits: wireText('NO_CREDITS'),
  extractionEmpty: wireText('EXTRACTION_EMPTY'),
  fetchPrefix: wireRow('FETCH_FAILED').message.text,
  internal: wireText('INTERNAL'),
  shuttingDown: wireText('SHUTTING_DOWN'),
  routeNotFound: wireText('ROUTE_NOT_FOUND'),
  timeout: wireText('TIMEOUT'),
  badRequest: wireText('BAD_REQUEST'),
} as const;

/** Errors Fastify raises itself (bodies, content types, URLs, timeouts), by their `code`, as the table's codes. */
const FRAMEWORK_CODES: Record<string, WireCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'BODY_CONTENT_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BODY_INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BODY_INVALID_JSON',
  FST_ERR_BAD_URL: 'BAD_URL',
  FST_ERR_ASYNC_CONSTRAINT: 'BAD_REQUEST',
  FST_ERR_HANDLER_TIMEOUT: 'TIMEOUT',
};

function isProblem(value: unknown): value is { code: string; message: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/** The envelope's error objects of a PagejsonError, as its row says the caller reads them. */
function wireErrors(row: WireRow, error: PagejsonError): EnvelopeError[] {
  const message = row.message;
  if (message.kind === 'per-problem') {
    // One error object per problem, of this row's codes; the first problem's code is the error's own code.
    const problems = Array.isArray(error.context.problems)
      ? error.context.problems.filter((p) => isProblem(p) && row.codes.includes(p.code as WireCode))
      : [];
    return problems.length > 0
      ? problems.map((p: { code: string; message: string }) => ({ message: p.message, code: p.code }))
      : [{ message: error.message, code: error.code }];
  }
  // What to do, when the error carries it for the caller (a block page, a failed login: docs/wire.md).
  const hint = typeof error.context.wireHint === 'string' ? { hint: error.context.wireHint } : {};
  if (message.kind === 'prefixed') {
    const reason = error.message.startsWith(message.text) ? error.message.slice(message.text.length) : error.message;
    return [{ message: `${message.text}${reason}`, code: error.code, ...hint }];
  }
  return [{ message: message.kind === 'fixed' ? message.text : error.message, code: error.code, ...hint }];
}

/** A reply of one table row with its fixed text (the daemon's own answers: not found, shutting down). */
export function rowReply(code: WireCode, status?: number): ErrorReply {
  const row = wireRow(code);
  return { status: status ?? row.status, errors: [{ message: row.message.text, code }], internal: row === INTERNAL_ROW };
}

/** Map anything thrown to a status and the envelope's error objects. */
export function errorReply(error: unknown): ErrorReply {
  if (isPagejsonError(error)) {
    if (!hasWireRow(error.code) || error.code === 'INTERNAL') return rowReply('INTERNAL');
    const row = wireRow(error.code);
    return { status: row.status, errors: wireErrors(row, error), internal: false };
  }
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  const framework = code !== undefined ? FRAMEWORK_CODES[code] : undefined;
  if (framework) return rowReply(framework);
  // Any other 4xx Fastify raises (e.g. a malformed header) is the client's fault: say so without details.
  const statusCode = (error as { statusCode?: unknown })?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) return rowReply('BAD_REQUEST', statusCode);
  return rowReply('INTERNAL');
}

export function errorEnvelope(errors: EnvelopeError[]): string {
  return JSON.stringify({ data: null, errors });
}

/** A complete raw HTTP response for errors met before Fastify has a request (garbage request line, 431). */
export function rawErrorResponse(status: number, reason: string, error: EnvelopeError): string {
  const body = errorEnvelope([error]);
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
