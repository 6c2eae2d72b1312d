import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { execa } from 'execa';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * The dashboard's doors (issue 18 part 1), over plain HTTP against a real daemon: sign-in only with a one-time
 * link from the admin socket, the session cookie's attributes, 401 without a session, CSRF and cross-site
 * refusals of changes, the headers every page carries, hostile ids, logout, and `dashboard.enabled: false`.
 */
let site: FixtureSite;
let temp: TempProject;
const servers: RunningServer[] = [];

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await temp?.cleanup();
});
afterAll(async () => {
  await site?.close();
});

async function start(settings = {}): Promise<RunningServer> {
  temp = await makeProject([pageConfig('books', `${site.origin}/daemon/echo?name=fixed`)], settings);
  const server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
  servers.push(server);
  return server;
}

/** `pagejson dashboard --json` in the project: the CLI as a process, through the daemon's admin socket. */
async function loginLink(root: string): Promise<string> {
  const result = await execa(process.execPath, [CLI_BIN, 'dashboard', '--json'], { cwd: root, reject: false });
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  const link = JSON.parse(result.stdout) as { url: string; expiresAt: string };
  expect(Date.parse(link.expiresAt)).toBeGreaterThan(Date.now());
  return link.url;
}

async function signIn(server: RunningServer): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const url = await loginLink(temp.root);
  expect(url).toMatch(new RegExp(`^${server.url}/ui/login\\?token=[A-Za-z0-9_-]{43}$`));
  const answer = await fetch(url, { redirect: 'manual' });
  expect(answer.status).toBe(303);
  expect(answer.headers.get('location')).toBe('/ui/');
  const setCookie = answer.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  const session = (await (await fetch(`${server.url}/ui/api/session`, { headers: { cookie } })).json()) as { csrf: string };
  return { cookie, csrf: session.csrf, setCookie };
}

describe('dashboard security', () => {
  it('has no way in without a link: pages lead to the sign-in page, every API answers 401', async () => {
    const server = await start();
    const page = await fetch(`${server.url}/ui/keys`, { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/ui/login');
    const login = await fetch(`${server.url}/ui/login`);
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('pagejson dashboard');
    for (const [method, path] of [
      ['GET', '/ui/api/endpoints'],
      ['GET', '/ui/api/keys'],
      ['GET', '/ui/api/usage'],
      ['POST', '/ui/api/keys'],
      ['POST', '/ui/api/endpoints/books/edits'],
    ] as const) {
      const answer = await fetch(`${server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
    }
    // A made-up session id or token is nobody.
    expect((await fetch(`${server.url}/ui/api/endpoints`, { headers: { cookie: `pagejson_session=${'A'.repeat(43)}` } })).status).toBe(401);
    const forged = await fetch(`${server.url}/ui/login?token=${'A'.repeat(43)}`, { redirect: 'manual' });
    expect(forged.headers.get('location')).toBe('/ui/login?reason=expired');
    expect(forged.headers.get('set-cookie')).toBeNull();
  });

  it('signs in once per link with a strict session cookie; pages carry a strict CSP and refuse framing', async () => {
    const server = await start();
    const { cookie, setCookie } = await signIn(server);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Path=\/ui/);
    expect(setCookie).toMatch(/Expires=/);
    // Plain HTTP here: not Secure (a browser would drop it); behind TLS (publicUrl https) it is.
    expect(setCookie).not.toMatch(/Secure/i);

    const page = await fetch(`${server.url}/ui/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // No inline script in the page itself.
    expect(await page.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    // The retrieval path is untouched by the dashboard's headers.
    expect((await fetch(`${server.url}/healthz`)).headers.get('content-security-policy')).toBeNull();
  });

  it('`pagejson dashboard --no-open` prints the link alone on stdout and a warning on stderr', async () => {
    const server = await start();
    const result = await execa(process.execPath, [CLI_BIN, 'dashboard', '--no-open'], {
      cwd: temp.root,
      reject: false,
      env: { NO_COLOR: '1' },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${server.url}/ui/login\\?token=[A-Za-z0-9_-]{43}$`));
    expect(result.stderr).toContain('one-time sign-in link');
    expect((await fetch(result.stdout, { redirect: 'manual' })).headers.get('location')).toBe('/ui/');
  });

  it('a link works once: the second use signs nobody in', async () => {
    await start();
    const url = await loginLink(temp.root);
    expect((await fetch(url, { redirect: 'manual' })).headers.get('location')).toBe('/ui/');
    const again = await fetch(url, { redirect: 'manual' });
    expect(again.headers.get('location')).toBe('/ui/login?reason=expired');
    expect(again.headers.get('set-cookie')).toBeNull();
  });

  it('refuses changes without the CSRF token or from another site, even with a valid cookie', async () => {
    const server = await start();
    const { cookie, csrf } = await signIn(server);
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/ui/api/keys`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ label: 'x' }),
      });
    const codeOf = async (answer: Response) => ((await answer.json()) as { error: { code: string } }).error.code;

    const noToken = await post({});
    expect(noToken.status).toBe(403);
    expect(await codeOf(noToken)).toBe('CSRF');
    expect((await post({ 'x-pagejson-csrf': 'A'.repeat(43) })).status).toBe(403);
    const crossSite = await post({ 'x-pagejson-csrf': csrf, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(await codeOf(crossSite)).toBe('CROSS_SITE');
    expect((await post({ 'x-pagejson-csrf': csrf, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ 'x-pagejson-csrf': csrf, origin: 'null' })).status).toBe(403);
    // Nothing was created by the refused requests.
    expect(((await (await fetch(`${server.url}/ui/api/keys`, { headers: { cookie } })).json()) as { keys: unknown[] }).keys).toEqual([]);

    const ok = await post({ 'x-pagejson-csrf': csrf, origin: server.url, 'sec-fetch-site': 'same-origin' });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { key: string }).key).toMatch(/^pj_/);
  });

  it('checks ids and bodies before any lookup, and never lets outside names reach object keys', async () => {
    const server = await start();
    const { cookie, csrf } = await signIn(server);
    const get = (path: string) => fetch(`${server.url}/ui/api${path}`, { headers: { cookie } });
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}/ui/api${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', 'x-pagejson-csrf': csrf },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    expect((await get('/endpoints/__proto__')).status).toBe(400);
    expect((await get('/endpoints/..%2f..%2fetc')).status).toBe(400);
    expect((await get('/endpoints/constructor')).status).toBe(404);
    expect((await post('/keys/k_..%2f/revoke', {})).status).toBe(400);
    expect((await get('/usage?unit=week')).status).toBe(400);
    expect((await get('/usage?apiId=__proto__')).status).toBe(400);
    expect((await post('/keys', '{not json')).status).toBe(400);
    expect((await post('/keys', { label: 'x', admin: true })).status).toBe(400);
    // Raw JSON: an object literal would turn `__proto__` into a prototype instead of sending the key.
    const polluted = await post('/endpoints/books/try', '{"values":{"__proto__":{"polluted":"yes"},"constructor":"x"}}');
    expect(polluted.status).toBe(400);
    expect(((await polluted.json()) as { error: { message: string } }).error.message).toContain('constructor');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // An edit that sets an inherited name is a clear usage error, not a call of Object's constructor.
    const edit = await post('/endpoints/books/edits', {
      baseRevision: 1,
      operations: [{ kind: 'set', key: 'constructor', value: 'x' }],
      save: true,
    });
    expect(edit.status).toBe(400);
    expect(((await edit.json()) as { error: { message: string } }).error.message).toContain('cannot set "constructor"');
    // A save from a stale revision is refused, not merged.
    const stale = await post('/endpoints/books/edits', {
      baseRevision: 7,
      operations: [{ kind: 'set', key: 'caching', value: 'false' }],
      save: true,
    });
    expect(stale.status).toBe(409);
  });

  it('behind a proxy, changes from the public origin are accepted and the cookie is Secure', async () => {
    const server = await start({ dashboard: { publicUrl: 'https://pagejson.example.com' } });
    const link = server.app.dashboardLoginLink()!;
    expect(link.url).toMatch(/^https:\/\/pagejson\.example\.com\/ui\/login\?token=/);
    // The proxy forwards to the daemon's own address.
    const answer = await fetch(link.url.replace('https://pagejson.example.com', server.url), { redirect: 'manual' });
    const setCookie = answer.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/; Secure/i);
    const cookie = setCookie.split(';')[0]!;
    const { csrf } = (await (await fetch(`${server.url}/ui/api/session`, { headers: { cookie } })).json()) as { csrf: string };
    const create = (origin: string) =>
      fetch(`${server.url}/ui/api/keys`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', 'x-pagejson-csrf': csrf, origin },
        body: '{}',
      });
    expect((await create('https://pagejson.example.com')).status).toBe(201);
    expect((await create('https://evil.example.com')).status).toBe(403);
  });

  it('logout ends the session', async () => {
    const server = await start();
    const { cookie, csrf } = await signIn(server);
    const out = await fetch(`${server.url}/ui/api/logout`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'x-pagejson-csrf': csrf },
      body: '{}',
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/pagejson_session=;/);
    expect((await fetch(`${server.url}/ui/api/endpoints`, { headers: { cookie } })).status).toBe(401);
  });

  it('dashboard.enabled false: no /ui/, and `pagejson dashboard` says how to turn it on', async () => {
    const server = await start({ dashboard: { enabled: false } });
    expect((await fetch(`${server.url}/ui/`)).status).toBe(404);
    expect((await fetch(`${server.url}/ui/api/session`)).status).toBe(404);
    const result = await execa(process.execPath, [CLI_BIN, 'dashboard', '--no-open'], { cwd: temp.root, reject: false });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('the dashboard is off in this project');
    expect(result.stderr).toContain('"dashboard": {"enabled": true}');
  });

  it('a daemon whose dashboard assets are missing says how to build them, and serves /external as ever', async () => {
    temp = await makeProject([pageConfig('books', `${site.origin}/daemon/echo?name=fixed`)]);
    const server = await startServer({
      project: temp.project,
      host: '127.0.0.1',
      port: 0,
      watch: false,
      app: { logger: false, dashboardAssetsDir: join(temp.root, 'no-such-build') },
    });
    servers.push(server);
    const page = await fetch(server.app.dashboardLoginLink()!.url.replace(/^http:\/\/[^/]+/, server.url));
    expect(page.status).toBe(503);
    expect(await page.json()).toMatchObject({
      error: { code: 'DASHBOARD_NOT_BUILT', hint: 'run `npm run build` in the pagejson checkout' },
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('`pagejson dashboard` without a running daemon says to start one', async () => {
    temp = await makeProject([]);
    const result = await execa(process.execPath, [CLI_BIN, 'dashboard', '--json'], { cwd: temp.root, reject: false });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('no daemon is running for this project');
    expect(result.stderr).toContain('pagejson serve');
  });
});
