import { describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { errorEnvelope, errorReply, rawErrorResponse } from '../../src/daemon/errors.js';

/** The one code → status + envelope mapping of the daemon (docs/wire.md). */
describe('errorReply', () => {
  it('maps each row of the wire table to its status and exact message', () => {
    const rows: Array<[PagejsonError, number, string]> = [
      [new PagejsonError('KEY_MISSING', 'whatever'), 401, 'Path: apikey -  Message: Required'],
      [new PagejsonError('KEY_INVALID', 'whatever'), 401, 'invalid key'],
      [new PagejsonError('NO_DATA', 'whatever'), 404, 'no data'],
      [new PagejsonError('ENDPOINT_INACTIVE', 'whatever'), 403, 'endpoint is inactive'],
      [new PagejsonError('BODY_INVALID_JSON', 'x'), 400, 'request body is not valid JSON'],
      [new PagejsonError('BODY_TOO_LARGE', 'x'), 413, 'request body is too large'],
      [new PagejsonError('BODY_NOT_OBJECT', 'x'), 400, 'request body must be a JSON object'],
      [new PagejsonError('BODY_CONTENT_TYPE', 'x'), 415, 'Content-Type must be application/json'],
      [new PagejsonError('NO_CREDITS', 'x'), 402, 'No credits left ⚠. Please buy more credits'],
      [new PagejsonError('EXTRACTION_EMPTY', 'x'), 502, 'no data could be extracted from the source page'],
    ];
    for (const [error, status, message] of rows) {
      expect(errorReply(error)).toEqual({ status, errors: [{ message, code: error.code }], internal: false });
    }
  });

  it('prefixes fetch failures once, whatever the scraper wrote', () => {
    expect(errorReply(new PagejsonError('FETCH_STATUS', 'the source answered HTTP 500')).errors[0]!.message).toBe(
      'source page could not be fetched: the source answered HTTP 500',
    );
    expect(
      errorReply(new PagejsonError('FETCH_TIMEOUT', 'source page could not be fetched: timed out after 20 s')).errors[0]!.message,
    ).toBe('source page could not be fetched: timed out after 20 s');
    expect(errorReply(new PagejsonError('BROWSER_UNAVAILABLE', 'no chromium')).status).toBe(502);
  });

  it('turns variable problems into one error object each', () => {
    const problems = [
      { code: 'VARIABLE_MISSING', name: 'a', message: 'missing variable: a' },
      { code: 'VARIABLE_UNKNOWN', name: 'b', message: 'unknown variable: b' },
    ];
    expect(errorReply(new PagejsonError('VARIABLE_MISSING', 'missing variable: a', { context: { problems } }))).toEqual({
      status: 400,
      errors: [
        { message: 'missing variable: a', code: 'VARIABLE_MISSING' },
        { message: 'unknown variable: b', code: 'VARIABLE_UNKNOWN' },
      ],
      internal: false,
    });
  });

  it('hides the details of anything else behind a 500 `something went wrong`', () => {
    const secret = new Error('ENOENT /var/secret/path at line 3');
    expect(errorReply(secret)).toEqual({ status: 500, errors: [{ message: 'something went wrong', code: 'INTERNAL' }], internal: true });
    expect(errorReply(new PagejsonError('STATE_CORRUPT', 'state.json is broken')).status).toBe(500);
    expect(errorReply('a string').status).toBe(500);
    expect(JSON.stringify(errorReply(secret))).not.toContain('secret');
  });

  it('maps Fastify errors by code, and other client errors to their status without details', () => {
    expect(
      errorReply(Object.assign(new Error('Body is too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 })).errors[0]!.message,
    ).toBe('request body is too large');
    expect(errorReply(Object.assign(new Error('x'), { code: 'FST_ERR_BAD_URL', statusCode: 400 })).status).toBe(400);
    expect(errorReply(Object.assign(new Error('weird header detail'), { statusCode: 400 }))).toEqual({
      status: 400,
      errors: [{ message: 'bad request', code: 'BAD_REQUEST' }],
      internal: false,
    });
  });
});

describe('envelopes', () => {
  it('writes the error envelope and a complete raw HTTP response', () => {
    expect(errorEnvelope([{ message: 'no data', code: 'NO_DATA' }])).toBe(
      '{"data":null,"errors":[{"message":"no data","code":"NO_DATA"}]}',
    );
    const raw = rawErrorResponse(431, 'Request Header Fields Too Large', {
      message: 'request headers are too large',
      code: 'HEADERS_TOO_LARGE',
    });
    const [head, body] = raw.split('\r\n\r\n') as [string, string];
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toEqual({ data: null, errors: [{ message: 'request headers are too large', code: 'HEADERS_TOO_LARGE' }] });
  });
});
