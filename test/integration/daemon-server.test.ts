import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { Client } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isPagejsonError } from '../../src/core/shared/errors.js';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { captureStream, issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/** The running daemon in-process: lock, admin socket, graceful stop, metrics, logs without keys. */
let site: FixtureSite;
let temp: TempProject;
const servers: RunningServer[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await temp?.cleanup();
});

afterAll(async () => {
  await site?.close();
});

async function start(extra: Partial<Parameters<typeof startServer>[0]> = {}): Promise<RunningServer> {
  const server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false }, ...extra });
  servers.push(server);
  return server;
}

describe('the data-dir lock', () => {
  it('makes a second daemon on the same data dir fail fast, naming the running one', async () => {
    temp = await makeProject([]);
    const first = await start();
    const error = await start().catch((e: unknown) => e);
    expect(isPagejsonError(error) && error.code).toBe('DAEMON_RUNNING');
    expect((error as Error).message).toContain(`pid ${process.pid}`);
    expect((error as Error).message).toContain(temp.project.dataDir);
    expect((await readFile(first.lockPath, 'utf8')).trim()).toBe(String(process.pid));
  });

  it('takes over the stale lock of a dead daemon, and releases its own on close', async () => {
    temp = await makeProject([]);
    const dead = await execa(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    await mkdir(temp.project.dataDir, { recursive: true });
    await writeFile(join(temp.project.dataDir, 'daemon.lock'), `${dead.stdout}\n`);
    const server = await start();
    expect((await readFile(server.lockPath, 'utf8')).trim()).toBe(String(process.pid));
    await server.close();
    await expect(stat(server.lockPath)).rejects.toThrow();
  });
});

describe('the admin socket', () => {
  it('is mode 0600 and answers the state API while the daemon runs', async () => {
    temp = await makeProject([]);
    const server = await start();
    expect((await stat(server.socketPath)).mode & 0o777).toBe(0o600);
    const client = new Client('http://admin', { socketPath: server.socketPath });
    try {
      const response = await client.request({ method: 'GET', path: '/health' });
      expect(response.statusCode).toBe(200);
      expect(await response.body.json()).toMatchObject({ ok: true, pid: process.pid });
    } finally {
      await client.close();
    }
  });
});

describe('stopping', () => {
  it('lets in-flight requests finish on keep-alive connections told to close, answers new ones with a 503 envelope, and flushes the debit', async () => {
    temp = await makeProject([
      pageConfig('slow', `${site.origin}/daemon/slow?ms=400`, { caching: false }),
      pageConfig('slowfail', `${site.origin}/daemon/slow?ms=400&fail=1`, { caching: false }),
    ]);
    const server = await start();
    const { key } = await issueKey(server.runtime.store, { freeCredits: 10 });
    site.resetHits();
    // Two keep-alive connections, each with a request in flight when draining starts: one that answers, one
    // that fails. Both answers must tell the client to close, or close() would wait on the idle connections.
    const clients = [new Client(server.url, { keepAliveTimeout: 60_000 }), new Client(server.url, { keepAliveTimeout: 60_000 })];
    try {
      const inflight = clients.map((client, index) =>
        client.request({ method: 'GET', path: `/external/${index === 0 ? 'slow' : 'slowfail'}`, headers: { apikey: key } }),
      );
      await site.whenHits('/daemon/slow', 2);
      server.app.startDraining();
      const refused = await server.app.inject({ method: 'GET', url: '/external/slow', headers: { apikey: key } });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers.connection).toBe('close');
      expect(JSON.parse(refused.body)).toMatchObject({ data: null, errors: [{ code: 'SHUTTING_DOWN' }] });
      const closing = server.close();
      const [answered, failed] = await Promise.all(inflight);
      expect(answered!.statusCode).toBe(200);
      expect(answered!.headers.connection).toBe('close');
      expect(await answered!.body.json()).toEqual({ data: { title: 'Slow page', kind: 'slow' }, errors: null });
      expect(failed!.statusCode).toBe(502);
      expect(failed!.headers.connection).toBe('close');
      await failed!.body.dump();
      await closing;
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
    const reopened = await createLowdbStore({ file: join(temp.project.dataDir, 'state.json') });
    // The failure was refunded; the answer was charged.
    expect((await reopened.getAccount('default'))!.balance).toBe(10_000 - 400);
    await reopened.close();
  });
});

describe('observability', () => {
  it('counts requests, cache results and credits in /metrics', async () => {
    temp = await makeProject([pageConfig('static', `${site.origin}/daemon/echo?name=m`)]);
    const server = await start();
    const { key } = await issueKey(server.runtime.store);
    for (let i = 0; i < 3; i++) await server.app.inject({ method: 'GET', url: '/external/static', headers: { apikey: key } });
    await server.app.inject({ method: 'GET', url: '/external/static' });
    await server.app.inject({ method: 'GET', url: '/external/unknown-id', headers: { apikey: key } });
    // Metrics name every apiId: they are served on their own listener, and the public port does not know them.
    expect((await server.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const metrics = await (await fetch(`${server.metricsUrl!}/metrics`)).text();
    expect(metrics).toContain('pagejson_requests_total{api_id="static",status="200"} 3');
    expect(metrics).toContain('pagejson_requests_total{api_id="static",status="401"} 1');
    expect(metrics).toContain('pagejson_requests_total{api_id="_unknown",status="404"} 1');
    expect(metrics).toContain('pagejson_cache_results_total{result="MISS"} 1');
    expect(metrics).toContain('pagejson_cache_results_total{result="HIT"} 2');
    // The allocator trimmer (native/malloc-trim) is built at install on this Linux machine and says so.
    expect(metrics).toContain('pagejson_allocator_trim_available 1');
    expect(metrics).toMatch(/^pagejson_allocator_trims_total \d+$/m);
    expect(metrics).toMatch(/pagejson_credits_debited_total\{api_id="static"\} 1\.2\d*/);
    expect(metrics).toMatch(/pagejson_fetch_duration_seconds_count\{api_id="static",scraper="1",outcome="ok"\} 1/);
  });

  it('answers an unexpected failure with a bare 500, logs its details with the request id, and refunds', async () => {
    const modelField = { name: 'summary', type: 'string' as const, description: 'filled by a model' };
    temp = await makeProject([
      pageConfig('nomodel', `${site.origin}/daemon/echo?name=z`, {
        model: 'no-such-model',
        structure: [{ name: 'title', type: 'string', selector: 'h1' }, modelField],
      }),
    ]);
    const log = captureStream();
    const server = await start({ app: { logger: { level: 'info', stream: log } } });
    const { key } = await issueKey(server.runtime.store, { freeCredits: 1 });
    const response = await server.app.inject({ method: 'GET', url: '/external/nomodel', headers: { apikey: key } });
    expect(response.statusCode).toBe(500);
    expect(response.body).toBe('{"data":null,"errors":[{"message":"something went wrong","code":"INTERNAL"}]}');
    const requestId = String(response.headers['x-request-id']);
    const line = log
      .text()
      .split('\n')
      .find((l) => l.includes('unexpected failure'));
    expect(line).toBeDefined();
    expect(line).toContain(requestId);
    expect(line).toContain('no-such-model');
    expect((await server.runtime.store.getAccount('default'))!.balance).toBe(1000);
  });

  it('never writes the plaintext key to the log or the data dir', async () => {
    temp = await makeProject([
      pageConfig('static', `${site.origin}/daemon/echo?name=l`),
      pageConfig('broken', `${site.origin}/error-500.html`),
    ]);
    const log = captureStream();
    const server = await start({ app: { logger: { level: 'trace', stream: log } } });
    const { key } = await issueKey(server.runtime.store);
    for (const url of ['/external/static', '/external/static', '/external/broken', '/external/nope', '/nowhere']) {
      await fetch(`${server.url}${url}`, { headers: { apikey: key } });
    }
    await fetch(`${server.url}/external/static`, {
      method: 'POST',
      headers: { apikey: key, 'content-type': 'application/json' },
      body: '{bad',
    });
    await fetch(`${server.url}/healthz`);
    await server.close();
    // One request line per answer, made where the answer is made (no Fastify request logging): /external's
    // hits and failures, unknown routes and the other routes alike, each with its request id and time.
    const lines = log
      .text()
      .split('\n')
      .filter((l) => l.includes('"msg":"request"') || l.includes('"msg":"request failed"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const find = (route: string, status: number, apiId?: string) =>
      lines.filter((l) => l.route === route && l.status === status && l.apiId === apiId);
    expect(find('/external/:apiId', 200, 'static')).toHaveLength(2);
    expect(find('/external/:apiId', 404, 'nope')).toHaveLength(1);
    expect(find('/external/:apiId', 400, 'static')).toHaveLength(1);
    expect(find('none', 404)).toHaveLength(1);
    expect(find('/healthz', 200)).toHaveLength(1);
    for (const line of lines) {
      expect(line.reqId).toMatch(/^[0-9a-f-]{24}[0-9a-f]{12}$/);
      expect(typeof line.ms).toBe('number');
    }
    // A failure's line says which failure it was, not only its status.
    const failed = log
      .text()
      .split('\n')
      .find((l) => l.includes('request failed'));
    expect(failed).toContain('"apiId":"broken","status":502');
    expect(failed).toContain('"code":"FETCH_STATUS"');
    expect(log.text()).not.toContain(key);
    for (const name of await readdir(temp.project.dataDir)) {
      const bytes = await readFile(join(temp.project.dataDir, name)).catch(() => Buffer.alloc(0));
      expect(bytes.includes(key)).toBe(false);
    }
  });
});
