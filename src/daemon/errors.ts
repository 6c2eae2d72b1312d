import { isPagejsonError, type ErrorCode } from '../core/shared/errors.js';

/**
 * The one place where error codes become HTTP statuses and envelopes (DESIGN.md section 4). Core throws
 * PagejsonErrors with a stable `code`; everything the daemon answers on an error goes through `errorReply`.
 * A 500 never shows details: they go to the log with the request id.
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

export const MESSAGES = {
  keyMissing: 'Path: apikey -  Message: Required',
  keyInvalid: 'invalid key',
  noData: 'no data',
  inactive: 'endpoint is inactive',
  bodyInvalidJson: 'request body is not valid JSON',
  bodyTooLarge: 'request body is too large',
  bodyNotObject: 'request body must be a JSON object',
  contentType: 'Content-Type must be application/json',
  noCredits: 'No credits left ⚠. Please buy more credits',
  extractionEmpty: 'no data could be extracted from the source page',
  fetchPrefix: 'source page could not be fetched: ',
  internal: 'something went wrong',
  shuttingDown: 'the server is shutting down, try again shortly',
  routeNotFound: 'route not found',
  timeout: 'the request took too long',
  badRequest: 'bad request',
} as const;

const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  KEY_MISSING: 401,
  KEY_INVALID: 401,
  KEY_NOT_FOUND: 401,
  NO_DATA: 404,
  CONFIG_NOT_FOUND: 404,
  ENDPOINT_INACTIVE: 403,
  BODY_INVALID_JSON: 400,
  BODY_TOO_LARGE: 413,
  BODY_NOT_OBJECT: 400,
  BODY_CONTENT_TYPE: 415,
  VARIABLE_MISSING: 400,
  VARIABLE_UNKNOWN: 400,
  VARIABLE_NOT_STRING: 400,
  VARIABLE_PATTERN: 400,
  VARIABLE_TOO_LONG: 400,
  NO_CREDITS: 402,
  EXTRACTION_EMPTY: 502,
  // Hardening rows (docs/security.md): a page or selector past its limits, a key that keeps causing failures.
  EXTRACTION_TIMEOUT: 502,
  EXTRACTION_LIMIT: 502,
  EXTRACTION_FAILED: 502,
  RATE_LIMITED: 429,
  SHUTTING_DOWN: 503,
};

/** Fixed wire messages: whatever the core's message says, these codes always show the SPEC's text. */
const FIXED_MESSAGE: Partial<Record<ErrorCode, string>> = {
  KEY_MISSING: MESSAGES.keyMissing,
  KEY_INVALID: MESSAGES.keyInvalid,
  KEY_NOT_FOUND: MESSAGES.keyInvalid,
  NO_DATA: MESSAGES.noData,
  CONFIG_NOT_FOUND: MESSAGES.noData,
  ENDPOINT_INACTIVE: MESSAGES.inactive,
  BODY_INVALID_JSON: MESSAGES.bodyInvalidJson,
  BODY_TOO_LARGE: MESSAGES.bodyTooLarge,
  BODY_NOT_OBJECT: MESSAGES.bodyNotObject,
  BODY_CONTENT_TYPE: MESSAGES.contentType,
  NO_CREDITS: MESSAGES.noCredits,
  EXTRACTION_EMPTY: MESSAGES.extractionEmpty,
  SHUTTING_DOWN: MESSAGES.shuttingDown,
};

const VARIABLE_CODES = new Set<string>(['VARIABLE_MISSING', 'VARIABLE_UNKNOWN', 'VARIABLE_NOT_STRING', 'VARIABLE_PATTERN', 'VARIABLE_TOO_LONG']);

/** Errors Fastify raises itself, by their `code`: bodies, content types, URLs, timeouts. */
const FRAMEWORK_ERRORS: Record<string, { status: number; message: string; code: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: MESSAGES.bodyTooLarge, code: 'BODY_TOO_LARGE' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: MESSAGES.contentType, code: 'BODY_CONTENT_TYPE' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: MESSAGES.badRequest, code: 'BAD_REQUEST' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: MESSAGES.bodyInvalidJson, code: 'BODY_INVALID_JSON' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: MESSAGES.bodyInvalidJson, code: 'BODY_INVALID_JSON' },
  FST_ERR_BAD_URL: { status: 400, message: MESSAGES.badRequest, code: 'BAD_URL' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, message: MESSAGES.badRequest, code: 'BAD_REQUEST' },
  FST_ERR_HANDLER_TIMEOUT: { status: 503, message: MESSAGES.timeout, code: 'TIMEOUT' },
};

function isVariableProblem(value: unknown): value is { code: string; message: string } {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string' && VARIABLE_CODES.has(String((value as { code?: unknown }).code));
}

/** Map anything thrown to a status and the envelope's error objects. */
export function errorReply(error: unknown): ErrorReply {
  if (isPagejsonError(error)) {
    if (error.code.startsWith('FETCH_') || error.code === 'BROWSER_UNAVAILABLE') {
      const reason = error.message.startsWith(MESSAGES.fetchPrefix) ? error.message.slice(MESSAGES.fetchPrefix.length) : error.message;
      return { status: 502, errors: [{ message: `${MESSAGES.fetchPrefix}${reason}`, code: error.code }], internal: false };
    }
    if (VARIABLE_CODES.has(error.code)) {
      // One error object per problem; the first problem's code is the error's own code.
      const problems = Array.isArray(error.context.problems) ? error.context.problems.filter(isVariableProblem) : [];
      const errors = problems.length > 0 ? problems.map((p) => ({ message: p.message, code: p.code })) : [{ message: error.message, code: error.code }];
      return { status: 400, errors, internal: false };
    }
    const status = STATUS_BY_CODE[error.code];
    if (status !== undefined) {
      const hint = typeof error.context.wireHint === 'string' ? { hint: error.context.wireHint } : {};
      return { status, errors: [{ message: FIXED_MESSAGE[error.code] ?? error.message, code: error.code, ...hint }], internal: false };
    }
    return internalReply();
  }
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  const framework = code ? FRAMEWORK_ERRORS[code] : undefined;
  if (framework) return { status: framework.status, errors: [{ message: framework.message, code: framework.code }], internal: false };
  // Any other 4xx Fastify raises (e.g. a malformed header) is the client's fault: say so without details.
  const statusCode = (error as { statusCode?: unknown })?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return { status: statusCode, errors: [{ message: MESSAGES.badRequest, code: 'BAD_REQUEST' }], internal: false };
  }
  return internalReply();
}

function internalReply(): ErrorReply {
  return { status: 500, errors: [{ message: MESSAGES.internal, code: 'INTERNAL' }], internal: true };
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
