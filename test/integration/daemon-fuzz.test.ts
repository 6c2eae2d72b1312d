import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { buildApp, type DaemonApp } from '../../src/daemon/app.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * Bad input never crashes or leaks (docs/daemon.md): random methods, paths, headers and bodies always
 * get an envelope, and never a 5xx while the source is healthy. Errors met before Fastify has a request
 * (a garbage request line, oversize headers) are answered on the raw socket, still as an envelope.
 */
let site: FixtureSite;
let temp: TempProject;
let runtime: Runtime;
let app: DaemonApp;
let key: string;

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject([
    pageConfig('static', `${site.origin}/daemon/echo?name=fixed`),
    pageConfig('dynamic', `${site.origin}/daemon/echo?name={{ name }}`, { variables: { name: { example: 'x' } } }),
  ]);
  runtime = await createRuntime(temp.project, { watch: false, memoryCacheOnly: true });
  app = await buildApp(runtime, { logger: false });
  key = (await issueKey(runtime.store, { freeCredits: 1_000_000 })).key;
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  await site?.close();
  await temp?.cleanup();
});

const NON_ENVELOPE_ROUTES = new Set(['/metrics', '/healthz', '/readyz']);

function assertEnvelope(body: string): void {
  const parsed = JSON.parse(body) as { data: unknown; errors: unknown };
  expect(Object.keys(parsed).sort()).toEqual(['data', 'errors']);
  if (parsed.errors === null) {
    expect(parsed.data).not.toBeNull();
  } else {
    expect(parsed.data).toBeNull();
    expect(Array.isArray(parsed.errors)).toBe(true);
    for (const error of parsed.errors as Array<{ message: unknown }>) expect(typeof error.message).toBe('string');
  }
}

const printable = fc.string({
  unit: fc.constantFrom(...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCXYZabcxyz[\\]^_`{|}~é⚠'.split('')),
  maxLength: 40,
});
const headerSafe = fc.string({ unit: fc.constantFrom(...'abcXYZ0123456789-_.;=/ +'.split('')), maxLength: 40 });

describe('fuzzing buildApp through inject', () => {
  it('answers every random request with an envelope and a status below 500', async () => {
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      path: fc.oneof(
        fc.constantFrom('/external/static', '/external/dynamic', '/external/', '/external', '/', '/external/static/extra'),
        printable.map((s) => `/external/${encodeURIComponent(s)}`),
        printable.map((s) => `/${s.replace(/[^A-Za-z0-9/%._~-]/g, '')}`),
        fc
          .tuple(fc.constantFrom('/external/static', '/external/dynamic'), printable)
          .map(([p, q]) => `${p}?${encodeURIComponent('name')}=${encodeURIComponent(q)}&x[]=${encodeURIComponent(q)}`),
      ),
      apikey: fc.option(fc.oneof(fc.constant('KEY'), headerSafe), { nil: undefined }),
      contentType: fc.option(
        fc.oneof(
          fc.constantFrom(
            'application/json',
            'application/json; charset=utf-8',
            'text/plain',
            'multipart/form-data; boundary=x',
            'application/x-www-form-urlencoded',
          ),
          headerSafe,
        ),
        { nil: undefined },
      ),
      body: fc.option(
        fc.oneof(
          printable,
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.constant('{"name":"ok"}'),
        ),
        { nil: undefined },
      ),
      extraHeader: fc.option(fc.tuple(fc.constantFrom('x-anything', 'accept', 'x-request-id', 'age', 'accept-encoding'), headerSafe), {
        nil: undefined,
      }),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {};
        if (r.apikey !== undefined) headers.apikey = r.apikey === 'KEY' ? key : r.apikey;
        if (r.contentType !== undefined) headers['content-type'] = r.contentType;
        if (r.extraHeader) headers[r.extraHeader[0]] = r.extraHeader[1];
        const hasBody = r.body !== undefined && !['GET', 'HEAD'].includes(r.method);
        const response = await app.inject({ method: r.method as 'GET', url: r.path, headers, ...(hasBody ? { payload: r.body } : {}) });
        expect(response.statusCode).toBeLessThan(500);
        expect(response.headers['x-request-id']).toBeDefined();
        if (r.method === 'HEAD' || NON_ENVELOPE_ROUTES.has(r.path.split('?')[0]!)) return;
        expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
        assertEnvelope(response.body);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 250) },
    );
  });
});

function rawExchange(port: number, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => resolve(received));
    socket.on('close', () => resolve(received));
    socket.on('error', (error) => (received ? resolve(received) : reject(error)));
    socket.write(payload);
  });
}

describe('raw sockets', () => {
  let port: number;
  beforeAll(async () => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });

  it('answers a garbage request line with a 400 envelope', async () => {
    const response = await rawExchange(port, 'THIS IS NOT HTTP\r\n\r\n');
    expect(response.startsWith('HTTP/1.1 400 ')).toBe(true);
    const body = response.slice(response.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toEqual({ data: null, errors: [{ message: 'bad request', code: 'BAD_REQUEST' }] });
  });

  it('answers oversize headers with a 431 envelope', async () => {
    const response = await rawExchange(port, `GET /external/static HTTP/1.1\r\nHost: x\r\napikey: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    expect(response.startsWith('HTTP/1.1 431 ')).toBe(true);
    const body = response.slice(response.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toMatchObject({ data: null, errors: [{ message: 'request headers are too large' }] });
  });

  it('answers a malformed URL with an envelope', async () => {
    const response = await rawExchange(port, `GET /external/%E0%A4%A HTTP/1.1\r\nHost: x\r\napikey: ${key}\r\nConnection: close\r\n\r\n`);
    const status = Number(response.slice(9, 12));
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    const body = response.slice(response.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body).data).toBeNull();
  });
});
