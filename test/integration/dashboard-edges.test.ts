import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * The dashboard's sign-in, from the outside (issue 40, item 11 and the cookie): the link never appears on a
 * command line, where any local user reads it (`/proc/<pid>/cmdline`), and behind TLS the session cookie is
 * a `__Host-` cookie, which no other name under the domain and no plain-HTTP page can set or shadow.
 */
let site: FixtureSite;
let temp: TempProject | undefined;
let fakeBin: string | undefined;
const servers: RunningServer[] = [];

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
}, 300_000);
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await temp?.cleanup();
  temp = undefined;
  if (fakeBin) await rm(fakeBin, { recursive: true, force: true });
  fakeBin = undefined;
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

/** Openers that only write down the command line they were started with, one argument per line. */
async function recordingOpeners(): Promise<{ bin: string; record: string }> {
  fakeBin = await mkdtemp(join(tmpdir(), 'pagejson-openers-'));
  const record = join(fakeBin, 'argv.txt');
  const script = `#!/bin/sh\nfor arg in "$0" "$@"; do printf '%s\\n' "$arg" >> '${record}'; done\nexit 0\n`;
  for (const name of ['xdg-open', 'run-mailcap', 'x-www-browser', 'www-browser', 'sensible-browser', 'browser']) {
    await writeFile(join(fakeBin, name), script);
    await chmod(join(fakeBin, name), 0o755);
  }
  return { bin: fakeBin, record };
}

describe('pagejson dashboard', () => {
  it('opens a private page that forwards to the link, and never puts the link on a command line', async () => {
    const server = await start();
    const { bin, record } = await recordingOpeners();
    const env = {
      PATH: `${bin}:${process.env.PATH}`,
      BROWSER: join(bin, 'browser'),
      DISPLAY: '',
      WAYLAND_DISPLAY: '',
      XDG_CURRENT_DESKTOP: '',
      NO_COLOR: '1',
    };
    const result = await execa(process.execPath, [CLI_BIN, 'dashboard'], { cwd: temp!.root, reject: false, env });
    expect(result.exitCode, result.stderr).toBe(0);
    const link = result.stdout.trim();
    expect(link).toMatch(new RegExp(`^${server.url}/ui/login\\?token=[A-Za-z0-9_-]{43}$`));
    const token = new URL(link).searchParams.get('token')!;

    // The opener runs detached from the CLI: wait for what it wrote down.
    await expect.poll(() => readFile(record, 'utf8').catch(() => ''), { timeout: 10_000 }).toContain('dashboard-sign-in.html');
    const argv = await readFile(record, 'utf8');
    expect(argv).not.toContain(token);
    expect(argv).not.toContain('/ui/login');

    const page = join(temp!.project.dataDir, 'dashboard-sign-in.html');
    expect(argv).toContain(page);
    expect((await stat(page)).mode & 0o777).toBe(0o600);
    const html = await readFile(page, 'utf8');
    expect(html).toContain(`<meta http-equiv="refresh" content="0;url=${link}">`);
    expect(html).toContain('<meta name="referrer" content="no-referrer">');
    // The page's link signs in, once.
    const signedIn = await fetch(link, { redirect: 'manual' });
    expect([signedIn.status, signedIn.headers.get('location')]).toEqual([303, '/ui/']);
  });
});

describe('the session cookie', () => {
  it('is a __Host- cookie (Secure, Path=/, no Domain) when the dashboard is reached over https', async () => {
    const server = await start({ dashboard: { publicUrl: 'https://pagejson.example.com' } });
    const link = server.app.dashboardLoginLink()!.url.replace('https://pagejson.example.com', server.url);
    const answer = await fetch(link, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    const setCookie = answer.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^__Host-pagejson_session=[A-Za-z0-9_-]{43}; /);
    const attributes = setCookie
      .split('; ')
      .slice(1)
      .map((part) => part.split('=')[0]!.toLowerCase());
    expect(attributes.sort()).toEqual(['expires', 'httponly', 'path', 'samesite', 'secure']);
    expect(setCookie).toContain('; Path=/;');
    expect(setCookie).toContain('; SameSite=Strict');
    const cookie = setCookie.split(';')[0]!;
    expect((await fetch(`${server.url}/ui/api/session`, { headers: { cookie } })).status).toBe(200);
    // The same id under the name a plain-HTTP page could set is nobody.
    const shadow = cookie.replace('__Host-pagejson_session=', 'pagejson_session=');
    expect((await fetch(`${server.url}/ui/api/session`, { headers: { cookie: shadow } })).status).toBe(401);
    // Log out clears it with the attributes the browser needs to accept the clearing.
    const session = (await (await fetch(`${server.url}/ui/api/session`, { headers: { cookie } })).json()) as { csrf: string };
    const out = await fetch(`${server.url}/ui/api/logout`, {
      method: 'POST',
      headers: { cookie, 'x-pagejson-csrf': session.csrf, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-pagejson_session=; .*Path=\/.*Secure/);
    expect((await fetch(`${server.url}/ui/api/session`, { headers: { cookie } })).status).toBe(401);
  });
});
