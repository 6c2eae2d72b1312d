import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * DNS rebinding (issue 40, item 8): a page on evil.example makes the browser resolve its own name to the
 * daemon's address, so every request it sends carries `Host: evil.example`. Every route answers 421 to that,
 * on the public port and the metrics listener, whatever the key; the daemon's own names still work.
 */
let site: FixtureSite;
let temp: TempProject | undefined;
const servers: RunningServer[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
});
afterEach(async () => {
  site.resetHits();
  for (const server of servers.splice(0)) await server.close();
  await temp?.cleanup();
  temp = undefined;
});
afterAll(async () => {
  await site?.close();
});

/** A request to `base` whatever the Host header says (fetch would not let a test set it). */
function call(
  base: string,
  path: string,
  host: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  const target = new URL(path, base);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        hostname: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        path: target.pathname + target.search,
        method: options.method ?? 'GET',
        headers: { host, ...options.headers },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

async function start(settings = {}, host = '127.0.0.1'): Promise<RunningServer> {
  temp = await makeProject([pageConfig('books', `${site.origin}/daemon/echo?name=books`)], {
    metrics: { listen: '127.0.0.1:0', tokenEnv: 'METRICS_TOKEN' },
    ...settings,
  });
  const server = await startServer({
    project: temp.project,
    host,
    port: 0,
    watch: false,
    env: { METRICS_TOKEN: 'a-metrics-token' },
    app: { logger: false },
  });
  servers.push(server);
  return server;
}

describe('the Host check', () => {
  it('answers 421 on every route to a request whose Host is a foreign name, with or without a valid key', async () => {
    const server = await start();
    const { key } = await issueKey(server.runtime.store);
    const withKey = { apikey: key };
    const routes: Array<[string, string, { method?: string; headers?: Record<string, string>; body?: string }?]> = [
      ['GET', '/external/books', { headers: withKey }],
      ['POST', '/external/books', { method: 'POST', headers: { ...withKey, 'content-type': 'application/json' }, body: '{}' }],
      ['GET', '/external', { headers: withKey }],
      ['GET', '/external/books/schema', { headers: withKey }],
      ['GET', '/openapi.json', { headers: withKey }],
      ['GET', '/docs'],
      ['GET', '/docs/init.js'],
      ['GET', '/docs/assets/swagger-ui.css'],
      [
        'POST',
        '/mcp',
        {
          method: 'POST',
          headers: { ...withKey, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}',
        },
      ],
      ['GET', '/ui/'],
      ['GET', '/ui/login'],
      ['GET', '/ui/api/session'],
      ['GET', '/readyz'],
      ['GET', '/metrics', { headers: { authorization: 'Bearer a-metrics-token' } }],
      ['GET', '/no-such-route'],
    ];
    for (const [label, path, options] of routes) {
      const foreign = await call(server.url, path, `evil.example:${server.port}`, options);
      expect([label, path, foreign.status]).toEqual([label, path, 421]);
      expect(JSON.parse(foreign.body)).toEqual({
        data: null,
        errors: [{ message: expect.stringContaining('"evil.example:'), code: 'MISDIRECTED_REQUEST' }],
      });
    }
    // Refused before any work: nothing fetched, nothing charged.
    expect(site.hitCount('/daemon/echo')).toBe(0);
    expect((await server.runtime.store.getAccount('default'))?.balance).toBe(100_000);
    // The same requests by the daemon's own names are answered as before.
    for (const [label, path, options] of routes) {
      for (const own of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, 'LOCALHOST.', `app.localhost:${server.port}`]) {
        expect([label, path, own, (await call(server.url, path, own, options)).status]).not.toEqual([label, path, own, 421]);
      }
    }
    expect((await call(server.url, '/external/books', `127.0.0.1:${server.port}`, { headers: withKey })).status).toBe(200);
  });

  it('leaves /healthz unchecked (a probe sends a Host of its own), and checks the metrics listener too', async () => {
    const server = await start();
    const health = await call(server.url, '/healthz', 'evil.example');
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { data: { status: 'ok' }, errors: null }]);
    const metricsUrl = server.metricsUrl!;
    expect((await call(metricsUrl, '/metrics', 'evil.example:9464')).status).toBe(421);
    const own = await call(metricsUrl, '/metrics', new URL(metricsUrl).host);
    expect(own.status).toBe(200);
    expect(own.body).toContain('pagejson_requests_total');
  });

  it("answers for dashboard.publicUrl and server.allowedHosts, and on a wildcard bind for the machine's addresses", async () => {
    const server = await start(
      { dashboard: { publicUrl: 'https://pagejson.example.com' }, server: { allowedHosts: ['api.example.com'] } },
      '0.0.0.0',
    );
    const base = `http://127.0.0.1:${server.port}`;
    expect((await call(base, '/readyz', 'pagejson.example.com')).status).toBe(200);
    expect((await call(base, '/readyz', 'API.example.com:443')).status).toBe(200);
    expect((await call(base, '/readyz', `[::1]:${server.port}`)).status).toBe(200);
    expect((await call(base, '/readyz', 'evil.example')).status).toBe(421);
    expect((await call(base, '/readyz', 'example.com')).status).toBe(421);
    const address = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && !entry.internal && entry.family === 'IPv4')?.address;
    if (address) expect((await call(base, '/readyz', `${address}:${server.port}`)).status).toBe(200);
    // An address of no interface here is not the daemon's.
    expect((await call(base, '/readyz', '203.0.113.9')).status).toBe(421);
  });
});
