import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { buildApp, type DaemonApp } from '../../src/daemon/app.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { envelopeError, issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * The wire contract of docs/wire.md, row by row and in order of precedence, through the real app
 * (inject), a real runtime over a temp project, real lowdb state and the real fixture site.
 */
let site: FixtureSite;
let temp: TempProject;
let runtime: Runtime;
let app: DaemonApp;
let key: string;
let scopedKey: string;
let brokeKey: string;
let revokedKey: string;

const MISSING = envelopeError('Path: apikey -  Message: Required', 'KEY_MISSING');
const INVALID = envelopeError('invalid key', 'KEY_INVALID');
const NO_DATA = envelopeError('no data', 'NO_DATA');
const INACTIVE = envelopeError('endpoint is inactive', 'ENDPOINT_INACTIVE');
const NO_CREDITS = envelopeError('No credits left ⚠. Please buy more credits', 'NO_CREDITS');

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject([
    pageConfig('static', `${site.origin}/daemon/echo?name=fixed`),
    pageConfig('nocache', `${site.origin}/daemon/echo?name=fresh`, { caching: false }),
    pageConfig('dynamic', `${site.origin}/daemon/echo?name={{ name }}`, { variables: { name: { example: 'x', pattern: '^[a-z]{1,8}$' } } }),
    pageConfig('two', `${site.origin}/daemon/echo?name={{ a }}&other={{ b }}`, { variables: { a: { example: 'x' }, b: { example: 'y' } } }),
    pageConfig('off', `${site.origin}/daemon/echo?name=off`, { status: 'inactive' }),
    pageConfig('broken', `${site.origin}/error-500.html`, { caching: false }),
    pageConfig('empty', `${site.origin}/daemon/empty`, { caching: false }),
  ]);
  runtime = await createRuntime(temp.project, { watch: false, memoryCacheOnly: true });
  app = await buildApp(runtime, { logger: false });
  key = (await issueKey(runtime.store)).key;
  scopedKey = (await issueKey(runtime.store, { scope: ['static', 'off'], account: 'scoped' })).key;
  brokeKey = (await issueKey(runtime.store, { account: 'broke', freeCredits: 0 })).key;
  const revoked = await issueKey(runtime.store, { account: 'gone' });
  await runtime.store.updateKey(revoked.id, { status: 'revoked' });
  revokedKey = revoked.key;
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  await site?.close();
  await temp?.cleanup();
});

const get = (path: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: path, headers });
const post = (path: string, payload: string | undefined, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', ...headers },
    ...(payload !== undefined ? { payload } : {}),
  });

describe('precedence table', () => {
  it('answers a missing or empty apikey with the exact SPEC bytes, before anything else', async () => {
    for (const response of [
      await get('/external/static'),
      await get('/external/static', { apikey: '' }),
      await get('/external/nope'),
      await post('/external/off', '{bad'),
    ]) {
      expect(response.statusCode).toBe(401);
      expect(response.body).toBe(MISSING);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('answers an unknown, malformed or revoked key with `invalid key`, even for an unknown apiId', async () => {
    const typo = `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
    for (const apikey of ['nonsense', typo, revokedKey]) {
      const response = await get('/external/static', { apikey });
      expect(response.statusCode).toBe(401);
      expect(response.body).toBe(INVALID);
    }
    expect((await get('/external/nope', { apikey: 'nonsense' })).body).toBe(INVALID);
  });

  it('answers `no data` 404 for an unknown apiId and for one outside the key scope (scope beats inactive)', async () => {
    const unknown = await get('/external/nope', { apikey: key });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toBe(NO_DATA);
    const outOfScope = await get('/external/dynamic', { apikey: scopedKey });
    expect(outOfScope.statusCode).toBe(404);
    expect(outOfScope.body).toBe(NO_DATA);
    expect((await get(`/external/${'x'.repeat(300)}`, { apikey: key })).body).toBe(NO_DATA);
  });

  it('answers 403 for an inactive endpoint, before body, variables and credits', async () => {
    expect((await get('/external/off', { apikey: key })).statusCode).toBe(403);
    expect((await get('/external/off', { apikey: key })).body).toBe(INACTIVE);
    expect((await post('/external/off', '{not json', { apikey: key })).body).toBe(INACTIVE);
    expect((await get('/external/off', { apikey: brokeKey })).body).toBe(INACTIVE);
  });

  it('keeps the table order for bodies over the transport limit (1 MiB): key and apiId rows still come first', async () => {
    const huge = JSON.stringify({ name: 'a'.repeat(1_100_000) });
    const noKey = await post('/external/dynamic', huge);
    expect([noKey.statusCode, noKey.body]).toEqual([401, MISSING]);
    const badKey = await post('/external/dynamic', huge, { apikey: 'pj_not-a-key' });
    expect([badKey.statusCode, badKey.body]).toEqual([401, INVALID]);
    const unknown = await post('/external/nope', huge, { apikey: key });
    expect([unknown.statusCode, unknown.body]).toEqual([404, NO_DATA]);
    const before = (await runtime.store.getAccount('default'))?.balance;
    const tooLarge = await post('/external/dynamic', huge, { apikey: key });
    expect([tooLarge.statusCode, tooLarge.body]).toEqual([413, envelopeError('request body is too large', 'BODY_TOO_LARGE')]);
    // Judging the order never charges: the service stops at the body row, before credits.
    expect((await runtime.store.getAccount('default'))?.balance).toBe(before);
  });

  it('judges the POST body: not JSON 400, too large 413, not an object 400, wrong content type 415', async () => {
    const bad = await post('/external/dynamic', '{"name":', { apikey: key });
    expect([bad.statusCode, bad.body]).toEqual([400, envelopeError('request body is not valid JSON', 'BODY_INVALID_JSON')]);
    const big = await post('/external/dynamic', JSON.stringify({ name: 'a'.repeat(17 * 1024) }), { apikey: key });
    expect([big.statusCode, big.body]).toEqual([413, envelopeError('request body is too large', 'BODY_TOO_LARGE')]);
    for (const payload of ['[]', '"text"', '42', 'null']) {
      const notObject = await post('/external/dynamic', payload, { apikey: key });
      expect([notObject.statusCode, notObject.body]).toEqual([400, envelopeError('request body must be a JSON object', 'BODY_NOT_OBJECT')]);
    }
    const wrongType = await post('/external/dynamic', '{"name":"abc"}', { apikey: key, 'content-type': 'text/plain' });
    expect([wrongType.statusCode, wrongType.body]).toEqual([
      415,
      envelopeError('Content-Type must be application/json', 'BODY_CONTENT_TYPE'),
    ]);
    // Only application/json itself: a JSON-based media type of another meaning is refused too.
    const patchType = await post('/external/dynamic', '{"name":"abc"}', { apikey: key, 'content-type': 'application/merge-patch+json' });
    expect([patchType.statusCode, patchType.body]).toEqual([
      415,
      envelopeError('Content-Type must be application/json', 'BODY_CONTENT_TYPE'),
    ]);
    // A form or text body is the wrong type, not broken JSON: 415, naming the accepted type (both before variables).
    const form = await post('/external/dynamic', 'a=b', { apikey: key, 'content-type': 'application/x-www-form-urlencoded' });
    expect([form.statusCode, form.body]).toEqual([415, envelopeError('Content-Type must be application/json', 'BODY_CONTENT_TYPE')]);
    expect((await post('/external/dynamic', 'plain words', { apikey: key, 'content-type': 'text/plain' })).statusCode).toBe(415);
    expect((await post('/external/dynamic', '{}', { apikey: key, 'content-type': 'text/plain' })).statusCode).toBe(415);
  });

  it('answers a key sent as a bearer token with the missing-header error and a hint to the apikey header', async () => {
    const bearer = await app.inject({ method: 'GET', url: '/external/dynamic?name=abc', headers: { authorization: `Bearer ${key}` } });
    expect(bearer.statusCode).toBe(401);
    expect(JSON.parse(bearer.body)).toEqual({
      data: null,
      errors: [
        {
          message: 'Path: apikey -  Message: Required',
          code: 'KEY_MISSING',
          hint: 'pagejson reads the key from the apikey header, not Authorization: send `apikey: <your key>`',
        },
      ],
    });
    // Without a bearer token the answer is the spec's, byte for byte.
    const none = await app.inject({ method: 'GET', url: '/external/dynamic?name=abc' });
    expect(none.body).toBe(envelopeError('Path: apikey -  Message: Required', 'KEY_MISSING'));
  });

  it('reports every variable problem as its own error object, with the exact messages', async () => {
    const missing = await post('/external/two', '{}', { apikey: key });
    expect(missing.statusCode).toBe(400);
    expect(JSON.parse(missing.body)).toEqual({
      data: null,
      errors: [
        { message: 'missing variable: a', code: 'VARIABLE_MISSING' },
        { message: 'missing variable: b', code: 'VARIABLE_MISSING' },
      ],
    });
    const mixed = await post('/external/dynamic', JSON.stringify({ name: 5, extra: 'x' }), { apikey: key });
    const messages = (JSON.parse(mixed.body) as { errors: Array<{ message: string }> }).errors.map((e) => e.message);
    expect(messages).toContain('variable name must be a string');
    expect(messages).toContain('unknown variable: extra');
    const pattern = await post('/external/dynamic', JSON.stringify({ name: 'UPPER' }), { apikey: key });
    expect(JSON.parse(pattern.body).errors[0].message).toBe('variable name does not match ^[a-z]{1,8}$');
    const long = await post('/external/two', JSON.stringify({ a: 'x'.repeat(1025), b: 'y' }), { apikey: key });
    expect(JSON.parse(long.body).errors).toEqual([{ message: 'variable a is too long', code: 'VARIABLE_TOO_LONG' }]);
    // Variables beat credits: a broke account with a bad request hears about the request.
    expect((await post('/external/two', '{}', { apikey: brokeKey })).statusCode).toBe(400);
  });

  it('refuses with the no-credits envelope (402) when the balance is below the cost, charging nothing', async () => {
    const response = await get('/external/static', { apikey: brokeKey });
    expect(response.statusCode).toBe(402);
    expect(response.body).toBe(NO_CREDITS);
    expect(response.headers['x-pagejson-credits-remaining']).toBe('0');
    expect((await runtime.store.getAccount('broke'))?.balance).toBe(0);
  });

  it('answers 502 for a source that fails and for an empty extraction, and refunds both', async () => {
    const before = (await runtime.store.getAccount('default'))!.balance;
    const failed = await get('/external/broken', { apikey: key });
    expect(failed.statusCode).toBe(502);
    const error = JSON.parse(failed.body).errors[0];
    expect(error.message.startsWith('source page could not be fetched: ')).toBe(true);
    expect(error.code).toBe('FETCH_STATUS');
    const empty = await get('/external/empty', { apikey: key });
    expect([empty.statusCode, empty.body]).toEqual([
      502,
      envelopeError('no data could be extracted from the source page', 'EXTRACTION_EMPTY'),
    ]);
    expect((await runtime.store.getAccount('default'))!.balance).toBe(before);
    expect(empty.headers['x-pagejson-credits-remaining']).toBe(String(before / 1000));
    await runtime.store.flush();
    const statuses = await runtime.store.listEndpointStatus();
    expect(statuses.find((s) => s.apiId === 'broken')).toMatchObject({
      lastFetchAt: null,
      lastError: expect.stringContaining('FETCH_STATUS'),
    });
    expect(statuses.find((s) => s.apiId === 'empty')?.lastError).toContain('EXTRACTION_EMPTY');
  });
});

describe('success', () => {
  it('serves a static config: MISS then HIT with Age, credits and request id headers', async () => {
    const first = await get('/external/static', { apikey: key });
    expect(first.statusCode).toBe(200);
    expect(first.body).toBe('{"data":{"title":"fixed","kind":"echo"},"errors":null}');
    expect(first.headers['x-pagejson-cache']).toBe('MISS');
    expect(first.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const remaining = Number(first.headers['x-pagejson-credits-remaining']);
    const second = await get('/external/static?cachebuster=1', { apikey: key });
    expect(second.body).toBe(first.body);
    expect(second.headers['x-pagejson-cache']).toBe('HIT');
    expect(second.headers.age).toMatch(/^\d+$/);
    // A hit costs the full price (docs/wire.md).
    expect(Number(second.headers['x-pagejson-credits-remaining'])).toBeCloseTo(remaining - 0.4, 6);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    const status = (await runtime.store.listEndpointStatus()).find((s) => s.apiId === 'static');
    expect(status?.lastFetchAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(status?.lastError).toBeNull();
  });

  it('accepts a POST to a static config with an empty body or {}', async () => {
    expect((await post('/external/static', undefined, { apikey: key })).statusCode).toBe(200);
    expect((await post('/external/static', '{}', { apikey: key })).statusCode).toBe(200);
    expect((await post('/external/static', '{"x":"1"}', { apikey: key })).body).toBe(
      envelopeError('unknown variable: x', 'VARIABLE_UNKNOWN'),
    );
  });

  it('fills dynamic variables from a POST body and from GET query parameters', async () => {
    const viaPost = await post('/external/dynamic', '{"name":"alpha"}', { apikey: key });
    expect(viaPost.statusCode).toBe(200);
    expect(JSON.parse(viaPost.body).data.title).toBe('alpha');
    const viaGet = await get('/external/dynamic?name=beta', { apikey: key });
    expect(JSON.parse(viaGet.body).data.title).toBe('beta');
    expect((await get('/external/dynamic', { apikey: key })).body).toBe(envelopeError('missing variable: name', 'VARIABLE_MISSING'));
  });

  it('bypasses the cache for a config with caching off: every request fetches', async () => {
    const before = site.hitCount('/daemon/echo');
    const a = await get('/external/nocache', { apikey: key });
    const b = await get('/external/nocache', { apikey: key });
    expect([a.headers['x-pagejson-cache'], b.headers['x-pagejson-cache']]).toEqual(['BYPASS', 'BYPASS']);
    expect(site.hitCount('/daemon/echo') - before).toBe(2);
    expect(a.headers.age).toBeUndefined();
  });

  it('answers unknown routes, HEAD and other methods with an envelope', async () => {
    for (const response of [
      await get('/nowhere'),
      await app.inject({ method: 'PUT', url: '/external/static' }),
      await app.inject({ method: 'HEAD', url: '/external/static' }),
    ]) {
      expect(response.statusCode).toBe(404);
      if (response.body) expect(JSON.parse(response.body)).toMatchObject({ data: null, errors: [{ message: 'route not found' }] });
    }
    const health = await get('/healthz');
    expect(JSON.parse(health.body)).toEqual({ data: { status: 'ok' }, errors: null });
  });
});
