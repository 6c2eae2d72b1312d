import type { ErrorCode } from './errors.js';

/**
 * The one table of the errors a caller of the daemon can meet (docs/wire.md is written from it): for each code,
 * its HTTP status, what the caller reads, whether the request's credits come back, and whether it counts
 * against the key's failure limit. It is data: the retrieval reads the credit and failure columns, the daemon's
 * error handler the status and message columns (src/daemon/errors.ts); core knows no HTTP beyond these numbers.
 *
 * Rows are in the order of precedence of /external: when several conditions hold, the first row's answers.
 */
export type WireCode =
  ErrorCode | 'TIMEOUT' | 'ROUTE_NOT_FOUND' | 'BAD_REQUEST' | 'BAD_URL' | 'HEADERS_TOO_LARGE' | 'MISDIRECTED_REQUEST' | 'NOT_READY';

/**
 * What the caller reads. `fixed`: this text, whatever the error's own message says. `own`: the error's own
 * message (it names the reason; `text` says how it reads). `prefixed`: `text` and then the error's reason.
 * `per-problem`: one error object per problem, each with its own message and code.
 */
export type WireMessage =
  | { readonly kind: 'fixed'; readonly text: string }
  | { readonly kind: 'own'; readonly text: string }
  | { readonly kind: 'prefixed'; readonly text: string }
  | { readonly kind: 'per-problem'; readonly text: string };

export interface WireRow {
  readonly codes: readonly WireCode[];
  /** When the row holds, in the caller's words. */
  readonly when: string;
  readonly status: number;
  readonly message: WireMessage;
  /** The service's failure: decided after the charge, so the request's credits are given back. */
  readonly refunded: boolean;
  /** Counts toward the key's failed retrievals per minute (limits.failedRetrievalsPerMinute). */
  readonly countsAsFailure: boolean;
}

const fixed = (text: string): WireMessage => ({ kind: 'fixed', text });
const own = (text: string): WireMessage => ({ kind: 'own', text });
/** The caller's mistake, found before any charge. */
const caller = { refunded: false, countsAsFailure: false } as const;
/** A bad request (400): costs the caller nothing, so it counts against the key (docs/decisions.md, "Retrieval as a list of stages"). */
const badRequest = { refunded: false, countsAsFailure: true } as const;
/** The service failed after the charge: refunded, and counted against the key that keeps asking for it. */
const service = { refunded: true, countsAsFailure: true } as const;
/** Answered by the daemon before or beside any retrieval: no credits involved. */
const daemon = { refunded: false, countsAsFailure: false } as const;

export const FETCH_PREFIX = 'source page could not be fetched: ';

export const WIRE_TABLE: readonly WireRow[] = [
  {
    codes: ['KEY_MISSING'],
    when: 'the `apikey` header is absent or empty',
    status: 401,
    message: fixed('Path: apikey -  Message: Required'),
    ...caller,
  },
  {
    codes: ['KEY_INVALID', 'KEY_NOT_FOUND'],
    when: 'the key is unknown, revoked or expired',
    status: 401,
    message: fixed('invalid key'),
    ...caller,
  },
  {
    codes: ['NO_DATA', 'CONFIG_NOT_FOUND'],
    when: "no endpoint has that apiId, or the key's scope leaves it out",
    status: 404,
    message: fixed('no data'),
    ...caller,
  },
  { codes: ['ENDPOINT_INACTIVE'], when: 'the endpoint is inactive', status: 403, message: fixed('endpoint is inactive'), ...caller },
  { codes: ['BODY_TOO_LARGE'], when: 'a POST body over 16 KiB', status: 413, message: fixed('request body is too large'), ...caller },
  {
    codes: ['BODY_CONTENT_TYPE'],
    when: 'a POST body with a Content-Type other than application/json',
    status: 415,
    message: fixed('Content-Type must be application/json'),
    ...caller,
  },
  {
    codes: ['BODY_INVALID_JSON'],
    when: 'a POST body that is not JSON',
    status: 400,
    message: fixed('request body is not valid JSON'),
    ...badRequest,
  },
  {
    codes: ['BODY_NOT_OBJECT'],
    when: 'a POST body that is JSON but not an object',
    status: 400,
    message: fixed('request body must be a JSON object'),
    ...badRequest,
  },
  {
    codes: ['VARIABLE_MISSING', 'VARIABLE_UNKNOWN', 'VARIABLE_NOT_STRING', 'VARIABLE_PATTERN', 'VARIABLE_TOO_LONG'],
    when: 'a variable is missing, unknown, not a string, fails its pattern or is over 1,024 characters',
    status: 400,
    message: {
      kind: 'per-problem',
      text: 'one error object per problem: `missing variable: <name>`, `unknown variable: <name>`, `variable <name> must be a string`, `variable <name> does not match <pattern>`, `variable <name> is too long`',
    },
    ...badRequest,
  },
  {
    codes: ['RATE_LIMITED'],
    when: 'the key caused `limits.failedRetrievalsPerMinute` failures this minute and the answer is not in memory',
    status: 429,
    message: own('too many failed retrievals with this key; try again in <N> s'),
    ...caller,
  },
  {
    codes: ['NO_CREDITS'],
    when: "the account's balance is below the cost",
    status: 402,
    message: fixed('No credits left ⚠. Please buy more credits'),
    ...caller,
  },
  {
    codes: [
      'FETCH_FAILED',
      'FETCH_TIMEOUT',
      'FETCH_STATUS',
      'FETCH_NOT_HTML',
      'FETCH_TOO_LARGE',
      'FETCH_BLOCKED_ADDRESS',
      'FETCH_TOO_MANY_REDIRECTS',
      'BROWSER_UNAVAILABLE',
    ],
    when: 'the source page is unreachable, too slow, answers HTTP ≥ 400, is not HTML, is too large, is at a blocked address or redirects too often',
    status: 502,
    message: { kind: 'prefixed', text: FETCH_PREFIX },
    ...service,
  },
  {
    codes: ['ACTION_FAILED'],
    when: 'a browser action of the endpoint failed: a `wait` that never matched, a click on nothing, a step past `fetch.actionsTimeoutMs`',
    status: 502,
    message: { kind: 'prefixed', text: 'browser action failed: ' },
    ...service,
  },
  {
    codes: ['LOGIN_FAILED'],
    when: "the endpoint's `login` failed: no login form, the form answered again, an error status, `loggedIn` missing after signing in (not retried until the time its hint says)",
    status: 502,
    message: { kind: 'prefixed', text: 'source login failed: ' },
    ...service,
  },
  {
    codes: ['SOURCE_BLOCKED'],
    when: 'the source answered with a block page instead of the page: a challenge, a captcha, access denied (docs/block-pages.md); never cached, never given to a model',
    status: 502,
    message: { kind: 'prefixed', text: 'the source answered with a block page, not the page: ' },
    ...service,
  },
  {
    codes: ['SOURCE_RATE_LIMITED'],
    when: 'the source answered 429; until its `Retry-After` (or a backoff) has passed, the origin is not asked again and every request gets this answer',
    status: 503,
    message: own('the source asked to be left alone (HTTP 429); try again in <N> s'),
    refunded: true,
    countsAsFailure: false,
  },
  {
    codes: ['EXTRACTION_EMPTY'],
    when: 'nothing (or no required field) could be extracted',
    status: 502,
    message: fixed('no data could be extracted from the source page'),
    ...service,
  },
  {
    codes: ['EXTRACTION_TIMEOUT', 'EXTRACTION_LIMIT'],
    when: 'the extraction ran past its budget or a document limit',
    status: 502,
    message: own('extraction stopped: <why> (<setting> in pagejson.json)'),
    ...service,
  },
  {
    codes: ['EXTRACTION_FAILED'],
    when: 'the page could not be read as HTML, or the extraction thread failed',
    status: 502,
    message: own('extraction failed: <why>'),
    ...service,
  },
  {
    codes: ['MODEL_FAILED'],
    when: "a field read by the endpoint's model (no selector) could not be filled: the model did not answer within its `timeoutMs`, or answered wrongly twice (docs/models.md); the operator's log says which",
    status: 502,
    // Fixed: a model server's own words may hold an address, a path or part of a key, and are the operator's to read.
    message: fixed('the model could not fill the fields: it did not answer in time, or not with usable data'),
    ...service,
  },
  {
    codes: ['SHUTTING_DOWN'],
    when: 'the daemon is stopping',
    status: 503,
    message: fixed('the server is shutting down, try again shortly'),
    ...service,
  },
  { codes: ['INTERNAL'], when: 'anything else', status: 500, message: fixed('something went wrong'), ...service },
  {
    codes: ['TIMEOUT'],
    when: 'no answer after `fetch.timeoutMs` + 10 s (the retrieval refunds on its own deadline first)',
    status: 503,
    message: fixed('the request took too long'),
    ...daemon,
  },
  {
    codes: ['ROUTE_NOT_FOUND'],
    when: 'no such route (HEAD on /external included)',
    status: 404,
    message: fixed('route not found'),
    ...daemon,
  },
  {
    codes: ['BAD_REQUEST', 'BAD_URL'],
    when: 'a malformed request line, URL, header or Content-Length',
    status: 400,
    message: fixed('bad request'),
    ...daemon,
  },
  {
    codes: ['HEADERS_TOO_LARGE'],
    when: 'request headers over the limit',
    status: 431,
    message: fixed('request headers are too large'),
    ...daemon,
  },
  {
    codes: ['MISDIRECTED_REQUEST'],
    when: 'a Host that does not name this daemon',
    status: 421,
    message: own('this daemon does not answer for the host "<host>": …'),
    ...daemon,
  },
  {
    codes: ['NOT_READY'],
    when: '`/readyz` while the state store does not answer or retrievals keep failing',
    status: 503,
    message: own('not ready: <problem>'),
    ...daemon,
  },
  {
    codes: ['JOB_INVALID'],
    when: '`POST /jobs` with a body that names no endpoint, not one input source, or inputs that cannot be read (docs/jobs.md)',
    status: 400,
    message: own('<what is wrong with the job>'),
    ...daemon,
  },
  {
    codes: ['JOB_NOT_FOUND'],
    when: "`/jobs/{id}` of a job that does not exist or is not the key's",
    status: 404,
    message: fixed('no such job'),
    ...daemon,
  },
];

const byCode = new Map<string, WireRow>(WIRE_TABLE.flatMap((row) => row.codes.map((code) => [code, row] as const)));

/** The INTERNAL row: what every code without a row of its own (and anything that is not a PagejsonError) answers. */
export const INTERNAL_ROW = byCode.get('INTERNAL')!;

/** The row of a code; a code without one is an internal error. */
export function wireRow(code: string | undefined): WireRow {
  return (code !== undefined && byCode.get(code)) || INTERNAL_ROW;
}

/** Whether the code has a row of its own (not only the INTERNAL fallback). */
export function hasWireRow(code: string): boolean {
  return byCode.has(code);
}

/** The fixed text a code always shows (the retrieval throws its errors with it, so the CLI and the wire read alike). */
export function wireText(code: WireCode): string {
  const message = wireRow(code).message;
  if (message.kind !== 'fixed') throw new Error(`${code} has no fixed wire text`);
  return message.text;
}

/**
 * Codes a job's results line may carry that are never an HTTP answer (docs/jobs.md): the job's own reasons for
 * an input that gave no data. They reach callers inside `GET /jobs/{id}/results`, the MCP tool and the webhooks'
 * counts, so docs/wire.md lists them beside the table above. Other lines carry the table's codes.
 */
export interface JobLineRow {
  readonly code: JobLineCode;
  /** How the line ends: an error (counted in `failed`) or skipped (counted in `skipped`). */
  readonly outcome: 'error' | 'skipped';
  readonly when: string;
}
export type JobLineCode = 'ROBOTS_DISALLOWED' | 'URL_NOT_MATCHED' | 'CANCELLED';

export const JOB_LINE_TABLE: readonly JobLineRow[] = [
  {
    code: 'ROBOTS_DISALLOWED',
    outcome: 'error',
    when: 'the source\'s robots.txt disallows the input\'s URL for pagejson (`jobs.robots: "respect"`); the message names the file and the URL',
  },
  { code: 'URL_NOT_MATCHED', outcome: 'skipped', when: "a URL input of another origin or shape than the endpoint's URL template" },
  { code: 'CANCELLED', outcome: 'skipped', when: 'the job was cancelled before the input ran' },
];
