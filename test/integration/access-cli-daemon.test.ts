import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-once.js';
import { createCliProject, initWithExamples, type CliProject } from '../support/cli-project.js';
import { startForwardProxy, type ForwardProxy } from '../support/forward-proxy.js';
import { ACCESS_TOKEN } from '../support/site-routes/access.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { spawnServe, type ServeProcess } from './daemon-support.js';

/**
 * Secrets, request headers and proxies (issue 35 items 1, 2, 4 and 6; docs/access.md) where users meet them:
 * the built CLI (validate, show, run, edit, generate) and the daemon, against the bearer-protected fixture
 * page through a real forward proxy that asks for credentials. Secrets come from the environment only and
 * never appear in a file, an answer, an error or a log line.
 */
const PROXY_USER = 'scraper';
const PROXY_PASS = 'cli-pr0xy-Pw-77';
const ALLOWED = { PAGEJSON_SECRETS: 'FIXTURE_TOKEN,PROXY_PASS,UNSET_TOKEN' };
const SECRETS = { FIXTURE_TOKEN: ACCESS_TOKEN, PROXY_PASS, ...ALLOWED };

let site: FixtureSite;
let proxy: ForwardProxy;
let project: CliProject;

const invoices = () => ({
  apiId: 'invoices',
  url: `${site.origin}/access/bearer.html`,
  request: { headers: { Authorization: 'Bearer ${FIXTURE_TOKEN}' } },
  proxy: { urls: [`http://${PROXY_USER}:\${PROXY_PASS}@127.0.0.1:${proxy.port}`] },
  structure: [
    {
      name: 'invoices',
      type: 'array',
      selector: 'li.invoice',
      fields: [
        { name: 'number', type: 'string', selector: '.number' },
        { name: 'amount', type: 'number', selector: '.amount' },
      ],
    },
  ],
});

function clean(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(ACCESS_TOKEN);
    expect(text).not.toContain(PROXY_PASS);
  }
}

beforeAll(async () => {
  await ensureBuilt();
  [site, proxy] = await Promise.all([startFixtureSite(), startForwardProxy({ username: PROXY_USER, password: PROXY_PASS })]);
  project = await createCliProject();
  await initWithExamples(project, site.origin, []);
  await project.write('configs/invoices.json', `${JSON.stringify(invoices(), null, 2)}\n`);
}, 300_000);

afterAll(async () => {
  await project?.remove();
  await Promise.all([site?.close(), proxy?.close()]);
});

describe('the CLI', () => {
  it('validate accepts ${NAME} without the variables set, and refuses a malformed one where it stands', async () => {
    const ok = await project.run(['validate']);
    expect(ok.exitCode).toBe(0);

    await project.write(
      'configs/broken.json',
      JSON.stringify(
        {
          ...invoices(),
          apiId: 'broken',
          request: { headers: { Authorization: 'Bearer ${fixture_token}' } },
          proxy: { urls: ['socks5://127.0.0.1:1080'] },
        },
        null,
        2,
      ),
    );
    try {
      const result = await project.run(['validate', '--format', 'json']);
      expect(result.exitCode).toBe(1);
      const problems = (JSON.parse(result.stdout) as { problems: Array<{ path: string; message: string; line?: number }> }).problems;
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            path: '$.request.headers.Authorization',
            message: expect.stringContaining('"${fixture_token}" is not an environment variable name'),
            line: expect.any(Number),
          }),
          expect.objectContaining({ path: '$.proxy.urls[0]', message: expect.stringContaining('SOCKS proxies are not supported') }),
        ]),
      );
    } finally {
      await rm(join(project.dir, 'configs/broken.json'));
    }
  });

  it('show prints the templates, and a credential written into the file masked', async () => {
    const shown = await project.run(['show', 'invoices']);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain('Authorization: Bearer ${FIXTURE_TOKEN}');
    expect(shown.stdout).toContain(`http://${PROXY_USER}:\${PROXY_PASS}@127.0.0.1:${proxy.port} (round-robin)`);

    await project.write(
      'configs/literal.json',
      JSON.stringify({
        ...invoices(),
        apiId: 'literal',
        request: { headers: { Authorization: `Bearer ${ACCESS_TOKEN}` }, cookies: { member: ACCESS_TOKEN } },
        proxy: { urls: [`http://${PROXY_USER}:${PROXY_PASS}@127.0.0.1:${proxy.port}`] },
      }),
    );
    try {
      const text = await project.run(['show', 'literal']);
      const json = await project.run(['show', 'literal', '--json']);
      expect(text.stdout).toContain('Authorization: Bearer ••••');
      expect(JSON.parse(json.stdout).request.cookies.member).toBe('••••');
      clean(text.stdout, text.stderr, json.stdout, json.stderr);
    } finally {
      await rm(join(project.dir, 'configs/literal.json'));
    }
  });

  it('run fails naming an unset secret, and fetches through the proxy once it is set', async () => {
    const unset = await project.run(['run', 'invoices'], { env: { PROXY_PASS, ...ALLOWED } });
    expect(unset.exitCode).toBe(1);
    expect(unset.stderr).toContain('the environment variable FIXTURE_TOKEN is not set (used in request.headers.Authorization)');
    expect(unset.stderr).toContain('hint: set FIXTURE_TOKEN');

    proxy.reset();
    const ran = await project.run(['run', 'invoices'], { env: SECRETS });
    expect(ran.exitCode).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({
      invoices: [
        { number: 'INV-1', amount: 120 },
        { number: 'INV-2', amount: 75.5 },
      ],
    });
    expect(proxy.countTo('/access/bearer.html')).toBe(1);
    clean(ran.stdout, ran.stderr, unset.stdout, unset.stderr);
  });

  it('run sends the headers with every page of a pagination', async () => {
    await project.write(
      'configs/paged.json',
      JSON.stringify({
        apiId: 'paged',
        url: `${site.origin}/access/paged.html?page=1`,
        request: { headers: { Authorization: 'Bearer ${FIXTURE_TOKEN}' } },
        pagination: { next: 'a[rel=next]' },
        structure: [{ name: 'invoices', type: 'array', selector: 'li.invoice .number', items: { type: 'string' } }],
      }),
    );
    try {
      site.resetHits();
      const ran = await project.run(['run', 'paged'], { env: SECRETS });
      expect(ran.exitCode).toBe(0);
      expect(JSON.parse(ran.stdout)).toEqual({ invoices: ['P1-A', 'P1-B', 'P2-A', 'P2-B', 'P3-A', 'P3-B'] });
      expect(site.hitCount('/access/paged.html')).toBe(3);
    } finally {
      await rm(join(project.dir, 'configs/paged.json'));
    }
  });

  it('run through a proxy refusing the password names the proxy, not the password', async () => {
    const refused = await project.run(['run', 'invoices'], {
      env: { FIXTURE_TOKEN: ACCESS_TOKEN, PROXY_PASS: 'not-the-password-9', ...ALLOWED },
    });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `the proxy http://127.0.0.1:${proxy.port} failed: it refused the credentials (407 Proxy Authentication Required)`,
    );
    expect(refused.stderr).not.toContain('not-the-password-9');
    clean(refused.stderr);
  });

  it('edit --set changes headers and the proxy as templates, said in words', async () => {
    const edited = await project.run([
      'edit',
      'invoices',
      '--set',
      'request.headers.X-Client=pagejson',
      '--set',
      'request.cookies.member=${MEMBER_COOKIE}',
      '--set',
      'proxy.rotate=sticky',
    ]);
    expect(edited.exitCode).toBe(0);
    expect(edited.stdout).toContain('request header X-Client added ("pagejson")');
    expect(edited.stdout).toContain('request cookie member added ("${MEMBER_COOKIE}")');
    const file = JSON.parse(await project.read('configs/invoices.json'));
    expect(file.request).toEqual({
      headers: { Authorization: 'Bearer ${FIXTURE_TOKEN}', 'X-Client': 'pagejson' },
      cookies: { member: '${MEMBER_COOKIE}' },
    });
    expect(file.proxy.rotate).toBe('sticky');

    const refused = await project.run(['edit', 'invoices', '--set', 'request.headers.Host=evil.example']);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('request.headers cannot set Host');

    const back = await project.run([
      'edit',
      'invoices',
      '--set',
      'request.headers.X-Client=off',
      '--set',
      'request.cookies.member=off',
      '--set',
      'proxy.rotate=round-robin',
    ]);
    expect(back.exitCode).toBe(0);
    expect(JSON.parse(await project.read('configs/invoices.json')).request).toEqual({
      headers: { Authorization: 'Bearer ${FIXTURE_TOKEN}' },
    });
  });

  it('generate --header and --proxy fetch a protected page and keep the templates in the config', async () => {
    proxy.reset();
    const generated = await project.run(
      [
        'generate',
        `${site.origin}/access/bearer.html`,
        '--id',
        'generated',
        '--selector',
        'ul.invoices',
        '--header',
        'Authorization: Bearer ${FIXTURE_TOKEN}',
        '--proxy',
        `http://${PROXY_USER}:\${PROXY_PASS}@127.0.0.1:${proxy.port}`,
        '--yes',
        '--json',
      ],
      { env: SECRETS },
    );
    expect(generated.exitCode).toBe(0);
    expect(proxy.countTo('/access/bearer.html')).toBe(1);
    const text = await project.read('configs/generated.json');
    expect(JSON.parse(text)).toMatchObject({
      request: { headers: { Authorization: 'Bearer ${FIXTURE_TOKEN}' } },
      proxy: { urls: [`http://${PROXY_USER}:\${PROXY_PASS}@127.0.0.1:${proxy.port}`], rotate: 'round-robin' },
    });
    clean(text, generated.stdout, generated.stderr);

    const bad = await project.run(['generate', `${site.origin}/access/bearer.html`, '--header', 'no colon here', '--yes']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--header takes "Name: value"');
  });
});

describe('the daemon', () => {
  let serve: ServeProcess | undefined;
  let key: string;

  beforeAll(async () => {
    const created = await project.run(['keys', 'create', '--json']);
    key = (JSON.parse(created.stdout) as { key: string }).key;
    await project.write(
      'configs/unset.json',
      JSON.stringify({ ...invoices(), apiId: 'unset', request: { headers: { Authorization: 'Bearer ${UNSET_TOKEN}' } } }),
    );
    await project.write('configs/fresh.json', JSON.stringify({ ...invoices(), apiId: 'fresh', caching: false }));
    serve = await spawnServe(project.dir, ['--no-watch'], { ...SECRETS, PAGEJSON_LOG_LEVEL: 'debug' });
  }, 120_000);

  afterAll(async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGTERM');
      await serve.child;
    }
  });

  it('answers from the protected page through the proxy, and never shows a secret in errors, documents or logs', async () => {
    proxy.reset();
    const ok = await fetch(`${serve!.url}/external/invoices`, { headers: { apikey: key } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { invoices: unknown[] } }).data.invoices).toHaveLength(2);
    expect(proxy.countTo('/access/bearer.html')).toBe(1);

    const unset = await fetch(`${serve!.url}/external/unset`, { headers: { apikey: key } });
    expect(unset.status).toBe(502);
    expect(((await unset.json()) as { errors: Array<{ message: string }> }).errors[0]?.message).toBe(
      'source page could not be fetched: the environment variable UNSET_TOKEN is not set (used in request.headers.Authorization)',
    );

    site.state.set('access.token', 'rotated-by-the-site');
    let refusedBody: string;
    try {
      const refused = await fetch(`${serve!.url}/external/fresh`, { headers: { apikey: key } });
      expect(refused.status).toBe(502);
      refusedBody = await refused.text();
      expect(refusedBody).toContain('HTTP 401');
    } finally {
      site.state.delete('access.token');
    }
    const openapi = await (await fetch(`${serve!.url}/openapi.json`, { headers: { apikey: key } })).text();
    expect(openapi).not.toContain('FIXTURE_TOKEN');
    clean(refusedBody, openapi, serve!.stderr());
  });
});
