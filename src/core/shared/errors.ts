/**
 * The one error type of the domain. `code` is stable (scripts and the wire depend on it), `context` carries
 * the facts, and `hint` tells the user what to do next. What a code means on the wire (status, message, refund)
 * is one table, error-table.ts, which the daemon's error handler reads; the CLI maps codes to exit codes.
 */
export type ErrorCode =
  // project and config files
  | 'PROJECT_NOT_FOUND'
  | 'PROJECT_INVALID'
  | 'CONFIG_NOT_FOUND'
  | 'CONFIG_INVALID'
  | 'CONFIG_EXISTS'
  | 'TEMPLATE_INVALID'
  // usage of the CLI
  | 'USAGE'
  // variables of dynamic configs
  | 'VARIABLE_MISSING'
  | 'VARIABLE_UNKNOWN'
  | 'VARIABLE_NOT_STRING'
  | 'VARIABLE_PATTERN'
  | 'VARIABLE_TOO_LONG'
  // fetching the source page (all shown as 502 `source page could not be fetched: <message>`)
  | 'FETCH_FAILED'
  | 'FETCH_TIMEOUT'
  | 'FETCH_STATUS'
  | 'FETCH_NOT_HTML'
  | 'FETCH_TOO_LARGE'
  | 'FETCH_BLOCKED_ADDRESS'
  | 'FETCH_TOO_MANY_REDIRECTS'
  | 'BROWSER_UNAVAILABLE'
  // a config's browser actions (scraper 3, docs/actions.md)
  | 'ACTION_FAILED'
  // logins and what sources answer instead of the page (docs/access.md, docs/block-pages.md)
  | 'LOGIN_FAILED'
  | 'SOURCE_BLOCKED'
  | 'SOURCE_RATE_LIMITED'
  // extraction and models
  | 'EXTRACTION_EMPTY'
  | 'EXTRACTION_TIMEOUT'
  | 'EXTRACTION_LIMIT'
  | 'EXTRACTION_FAILED'
  | 'RATE_LIMITED'
  | 'MODEL_NOT_FOUND'
  | 'MODEL_FAILED'
  // auth, credits, endpoints
  | 'KEY_MISSING'
  | 'KEY_INVALID'
  | 'KEY_NOT_FOUND'
  | 'NO_DATA'
  | 'ENDPOINT_INACTIVE'
  | 'NO_CREDITS'
  | 'ACCOUNT_NOT_FOUND'
  // request bodies
  | 'BODY_INVALID_JSON'
  | 'BODY_TOO_LARGE'
  | 'BODY_NOT_OBJECT'
  | 'BODY_CONTENT_TYPE'
  // daemon and state
  | 'DAEMON_RUNNING'
  | 'PORT_IN_USE'
  | 'DAEMON_UNREACHABLE'
  | 'STATE_CORRUPT'
  | 'STATE_LOCKED'
  | 'DATA_DIR_UNSAFE'
  | 'REDIS_UNAVAILABLE'
  | 'SHUTTING_DOWN'
  // jobs (docs/jobs.md)
  | 'JOB_INVALID'
  | 'JOB_NOT_FOUND'
  | 'INTERNAL';

export type ErrorContext = Record<string, unknown>;

export class PagejsonError extends Error {
  readonly code: ErrorCode;
  readonly context: ErrorContext;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: { context?: ErrorContext; hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PagejsonError';
    this.code = code;
    this.context = options.context ?? {};
    this.hint = options.hint;
  }
}

export function isPagejsonError(error: unknown): error is PagejsonError {
  return error instanceof PagejsonError;
}

/** Fetch failures form one family: the daemon answers all of them with a 502 naming the reason. */
export function isFetchError(error: unknown): error is PagejsonError {
  return isPagejsonError(error) && (error.code.startsWith('FETCH_') || error.code === 'BROWSER_UNAVAILABLE');
}
