import { execFileSync } from 'node:child_process';
import { stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProjectSettingsInput } from '../../src/core/config/schema.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { skipRedisTests, startRedisServer } from '../support/redis-server.js';
import { MESSAGES } from '../../src/daemon/errors.js';
import { issueKey, makeProject, pageConfig, spawnServe, type TempProject } from './daemon-support.js';

/**
 * Hardening (issue 16), each attack as it was found, against a real daemon: a hostile page or selector must
 * not stop it answering, ids from outside never become object keys, variables never leave their segment,
 * strange files in configs/ never hang it, its files are private, and a crash loses no credits.
 */
let site: FixtureSite;
let temp: TempProject | undefined;
const servers: RunningServer[] = [];

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await temp?.cleanup();
  temp = undefined;
});
afterAll(async () => {
  await site?.close();
});

async function start(
  configs: Parameters<typeof makeProject>[0],
  settings: ProjectSettingsInput = {},
  env: Record<string, string> = {},
): Promise<RunningServer> {
  temp = await makeProject(configs, settings);
  const server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false }, env });
  servers.push(server);
  return server;
}

async function envelope(response: Response): Promise<{ data: unknown; errors: Array<{ message: string; code: string }> }> {
  return (await response.json()) as { data: unknown; errors: Array<{ message: string; code: string }> };
}

async function ask(url: string, init: RequestInit = {}): Promise<{ status: number; body: string }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.text() };
}

const siblings = (apiId: string) =>
  pageConfig(apiId, `${site.origin}/hostile/siblings?n={{ n }}`, {
    variables: { n: { example: '40000', pattern: '^[0-9]{1,6}$' } },
    // Allowed (bounded per element), quadratic in the number of siblings: 10 s on this page on one thread.
    structure: [{ name: 'third', type: 'string', selector: 'li:nth-last-of-type(3)' }],
  });

describe('extraction never blocks the daemon', () => {
  it('answers /healthz and a cached endpoint while four hostile extractions run, and ends them at the budget', async () => {
    const server = await start([siblings('costly'), pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)], {
      extraction: { timeoutMs: 2_000 },
    });
    const { key } = await issueKey(server.runtime.store, { freeCredits: 10 });
    const headers = { apikey: key };
    expect((await ask(`${server.url}/external/ok`, { headers })).status).toBe(200); // now cached

    const order: string[] = [];
    const allFetched = site.whenHits('/hostile/siblings', site.hitCount('/hostile/siblings') + 4);
    const hostile = ['40000', '40001', '40002', '40003'].map((n) =>
      ask(`${server.url}/external/costly?n=${n}`, { headers }).then((answer) => {
        order.push('hostile');
        return answer;
      }),
    );
    // All four pages fetched: their extractions are running or waiting for a thread.
    await allFetched;
    const health = await ask(`${server.url}/healthz`);
    const cached = await ask(`${server.url}/external/ok`, { headers });
    order.push('others');
    expect(health.status).toBe(200);
    expect(cached.status).toBe(200);
    // Answered while every hostile extraction was still at work: on the main thread, each of these would have
    // waited for tens of seconds of selector work, until after a hostile answer.
    expect(order).toEqual(['others']);

    for (const answer of await Promise.all(hostile)) {
      expect(answer.status).toBe(502);
      expect(JSON.parse(answer.body).errors[0]).toEqual({
        message: 'extraction stopped: it ran past its budget of 2000 ms (extraction.timeoutMs in pagejson.json)',
        code: 'EXTRACTION_TIMEOUT',
      });
    }
    // Failures are refunded: only the two answers of `ok` were paid.
    expect((await server.runtime.store.getAccount('default'))?.balance).toBe(10_000 - 800);

    // A failed extraction is not free to repeat: the same page is answered from memory, not fetched again.
    const fetched = site.hitCount('/hostile/siblings');
    const again = await ask(`${server.url}/external/costly?n=40000`, { headers });
    expect(again.status).toBe(502);
    expect(site.hitCount('/hostile/siblings')).toBe(fetched);

    // The ended workers were replaced: an ordinary extraction works.
    const small = await ask(`${server.url}/external/costly?n=50`, { headers });
    expect(small.status).toBe(200);
    expect(JSON.parse(small.body)).toEqual({ data: { third: 'item' }, errors: null });
  });

  it('keeps answering while its own repair (auto-heal) works on a hostile page, and records the repair stopped at its budget', async () => {
    const grows = pageConfig('grows', `${site.origin}/hostile/grows`, {
      structure: [{ name: 'third', type: 'string', selector: 'li:nth-last-of-type(3)' }],
      generated: { at: '2026-11-01T00:00:00Z', model: 'heuristic', scraper: 1, sample: { third: 'item' } },
    });
    const server = await start([grows, pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)], {
      heal: 'propose',
      extraction: { timeoutMs: 2_000 },
    });
    const order: string[] = [];
    const repairs: unknown[] = [];
    server.runtime.subscribe((event) => {
      if (event.kind !== 'repair') return;
      order.push('repair');
      repairs.push(event);
    });
    const { key } = await issueKey(server.runtime.store);
    const headers = { apikey: key };
    // One item at the first fetch: the selector finds nothing, the endpoint is broken, and a repair starts.
    const broken = await ask(`${server.url}/external/grows`, { headers });
    expect(broken.status).toBe(502);
    expect(JSON.parse(broken.body).errors[0].code).toBe('EXTRACTION_EMPTY');
    // The repair's own fetch gets 40,000 items, on which it measures the old selector again: over a minute of
    // selector work. On the main thread, as it ran before, neither answer below came until the repair ended.
    await site.whenHits('/hostile/grows', 2);
    const health = await ask(`${server.url}/healthz`);
    const other = await ask(`${server.url}/external/ok`, { headers });
    order.push('others');
    expect(health.status).toBe(200);
    expect(other.status).toBe(200);
    expect(order).toEqual(['others']);

    await server.runtime.repairs.idle();
    expect(repairs).toEqual([
      {
        kind: 'repair',
        apiId: 'grows',
        outcome: 'failed',
        reason: 'repair stopped: it ran past its budget of 8000 ms (4 × extraction.timeoutMs in pagejson.json)',
      },
    ]);
    await expect(stat(join(temp!.root, 'configs/grows.proposed.json'))).rejects.toThrow();
    expect((await ask(`${server.url}/healthz`)).status).toBe(200);
  });

  it('stops the 132 KB nested page at the depth limit with an error that names it', async () => {
    const server = await start([pageConfig('nested', `${site.origin}/hostile/nested`)]);
    const { key } = await issueKey(server.runtime.store);
    const answer = await ask(`${server.url}/external/nested`, { headers: { apikey: key } });
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body).errors[0]).toEqual({
      message: 'extraction stopped: the page nests elements deeper than 512 levels (extraction.maxDepth in pagejson.json)',
      code: 'EXTRACTION_LIMIT',
    });
    expect((await ask(`${server.url}/healthz`)).status).toBe(200);
  });

  it('counts failures against the key: past the limit its uncached requests get 429, its cached ones still answer', async () => {
    const nested = pageConfig('nested', `${site.origin}/hostile/nested?v={{ v }}`, { variables: { v: { example: '1' } } });
    const server = await start([nested, pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)], {
      limits: { failedRetrievalsPerMinute: 2 },
    });
    const { key } = await issueKey(server.runtime.store);
    const headers = { apikey: key };
    expect((await ask(`${server.url}/external/ok`, { headers })).status).toBe(200);
    expect((await ask(`${server.url}/external/nested?v=1`, { headers })).status).toBe(502);
    expect((await ask(`${server.url}/external/nested?v=2`, { headers })).status).toBe(502);
    const limited = await fetch(`${server.url}/external/nested?v=3`, { headers });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await envelope(limited)).errors[0]!.message).toMatch(/^too many failed retrievals with this key; try again in \d+ s$/);
    expect((await ask(`${server.url}/external/ok`, { headers })).status).toBe(200);
    // Another key is not affected.
    const other = await issueKey(server.runtime.store);
    expect((await ask(`${server.url}/external/nested?v=4`, { headers: { apikey: other.key } })).status).toBe(502);
  });

  it('refuses a config with :has() over siblings at validate, and the daemon does not serve it', async () => {
    const hasConfig = pageConfig('has', `${site.origin}/daemon/echo?name=x`, {
      structure: [{ name: 'items', type: 'array', selector: 'li:has(~ li ~ li ~ li .nomatch)', items: { type: 'string' } }],
    });
    const server = await start([hasConfig, pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)]);
    const validate = await execa(process.execPath, [CLI_BIN, 'validate', '--project', temp!.root], { reject: false });
    expect(validate.exitCode).toBe(1);
    expect(validate.stdout + validate.stderr).toContain('CSS selector is refused: ":has()" over siblings');
    const { key } = await issueKey(server.runtime.store);
    expect((await ask(`${server.url}/external/has`, { headers: { apikey: key } })).status).toBe(404);
    expect((await ask(`${server.url}/external/ok`, { headers: { apikey: key } })).status).toBe(200);
  });
});

describe('ids and variables from outside', () => {
  it('refuses `keys revoke __proto__` through the admin socket, and retrievals keep answering', async () => {
    const server = await start([pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)]);
    const { key } = await issueKey(server.runtime.store);
    const revoke = await execa(process.execPath, [CLI_BIN, 'keys', 'revoke', '__proto__', '--project', temp!.root], { reject: false });
    expect(revoke.exitCode).not.toBe(0);
    expect(revoke.stderr).toMatch(/no key with id "__proto__"/);
    expect(({} as Record<string, unknown>).status).toBeUndefined();
    const answer = await ask(`${server.url}/external/ok`, { headers: { apikey: key } });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data).toEqual({ title: 'ok', kind: 'echo' });
  });

  it('keeps two variables in one segment from making ".." (no request outside the prefix reaches the site)', async () => {
    const files = pageConfig('files', `${site.origin}/daemon/files/{{ name }}.{{ ext }}`, {
      variables: { name: { example: 'a' }, ext: { example: 'html' } },
    });
    const server = await start([files]);
    const { key } = await issueKey(server.runtime.store);
    site.resetHits();
    const post = (body: string) =>
      fetch(`${server.url}/external/files`, { method: 'POST', headers: { apikey: key, 'content-type': 'application/json' }, body });
    const traversal = await post('{"name":".","ext":""}');
    expect(traversal.status).toBe(400);
    expect((await envelope(traversal)).errors).toEqual([
      { message: 'variable name does not match a path segment other than "", "." or ".."', code: 'VARIABLE_PATTERN' },
    ]);
    const separators = await post('{"name":"..%2f..","ext":"x/../../y"}');
    expect(separators.status).toBe(400);
    const surrogate = await post('{"name":"\\ud800","ext":"html"}');
    expect(surrogate.status).toBe(400);
    expect((await envelope(surrogate)).errors[0]).toEqual({
      message: 'variable name does not match well-formed Unicode text',
      code: 'VARIABLE_PATTERN',
    });
    expect([...site.hits.keys()]).toEqual([]);
  });
});

describe('files: config folder, data dir, crashes', () => {
  it('skips a FIFO and an escaping symlink in configs/, keeps reloading on SIGHUP and stops on SIGTERM', async () => {
    await ensureBuilt();
    temp = await makeProject([pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)]);
    const configs = join(temp.root, 'configs');
    execFileSync('mkfifo', [join(configs, 'pipe.json')]);
    await writeFile(join(temp.root, 'secret.json'), 'TOP-SECRET-CONTENT');
    await symlink(join(temp.root, 'secret.json'), join(configs, 'leak.json'));
    const serve = await spawnServe(temp.root);
    expect(serve.stderr()).toMatch(/pipe\.json \$: skipped: a named pipe \(FIFO\)/);
    expect(serve.stderr()).toMatch(/leak\.json \$: skipped: a symbolic link that leads outside the configs folder/);
    expect(serve.stderr()).not.toContain('TOP-SECRET-CONTENT');

    await temp.writeConfig(pageConfig('later', `${site.origin}/daemon/echo?name=later`));
    serve.child.kill('SIGHUP');
    const status = async () => (await execa(process.execPath, [CLI_BIN, 'status', '--json'], { cwd: temp!.root })).stdout;
    await vi.waitFor(async () => expect(await status()).toContain('"later"'), { timeout: 10_000, interval: 100 });
    expect(await status()).toContain('"later"');

    serve.child.kill('SIGTERM');
    const result = await serve.child;
    // 0: it closed by itself (close-with-grace ends a close that hangs past its delay with exit code 1).
    expect(result.exitCode).toBe(0);
  });

  it('makes the data dir 0700 and every file in it 0600 on first start', async () => {
    const server = await start([pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)]);
    const { key } = await issueKey(server.runtime.store);
    expect((await ask(`${server.url}/external/ok`, { headers: { apikey: key } })).status).toBe(200);
    await server.runtime.store.flush();
    const dataDir = temp!.project.dataDir;
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    for (const name of ['state.json.journal', 'cache.sqlite', 'cache.sqlite-wal', 'cache.sqlite-shm', 'admin.sock', 'daemon.lock']) {
      expect(((await stat(join(dataDir, name))).mode & 0o777).toString(8), name).toBe('600');
    }
  });

  it('after kill -9 with 20 slow requests in flight, the restarted daemon gives their credits back', async () => {
    await ensureBuilt();
    const slow = pageConfig('slow', `${site.origin}/daemon/slow?ms=8000&i={{ i }}`, { caching: false, variables: { i: { example: '0' } } });
    temp = await makeProject([slow, pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)]);
    const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp!.root });
    const serve = await spawnServe(temp.root);
    const key = JSON.parse((await cli('keys', 'create', '--json')).stdout).key as string;
    const credits = async () => JSON.parse((await cli('credits', '--json')).stdout).balance as number;
    expect((await fetch(`${serve.url}/external/ok`, { headers: { apikey: key } })).status).toBe(200);
    expect((await fetch(`${serve.url}/external/ok`, { headers: { apikey: key } })).status).toBe(200);
    const afterAnswered = await credits();

    site.resetHits();
    const inFlight = Array.from({ length: 20 }, (_, i) =>
      fetch(`${serve.url}/external/slow?i=${i}`, { headers: { apikey: key } }).catch(() => undefined),
    );
    await site.whenHits('/daemon/slow', 20);
    expect(site.hitCount('/daemon/slow')).toBe(20);
    serve.child.kill('SIGKILL');
    await serve.child;
    await Promise.all(inFlight);

    const restarted = await spawnServe(temp.root);
    expect(await credits()).toBe(afterAnswered);
    restarted.child.kill('SIGTERM');
    await restarted.child;
  });
});

describe('operations endpoints', () => {
  it('serves /metrics on the public port only with the configured bearer token', async () => {
    const server = await start(
      [pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)],
      { metrics: { listen: false, tokenEnv: 'PJ_METRICS_TOKEN' } },
      { PJ_METRICS_TOKEN: 'metrics-secret-token' },
    );
    expect(server.metricsUrl).toBeUndefined();
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-of-same-len' } })).status).toBe(404);
    const allowed = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer metrics-secret-token' } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('pagejson_requests_total');
  });

  it('says not ready after consecutive internal errors, and ready again after a success; /healthz stays live', async () => {
    const broken = pageConfig('broken', `${site.origin}/daemon/echo?name=z`, {
      model: 'no-such-model',
      structure: [
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'summary', type: 'string' },
      ],
    });
    const server = await start([broken, pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)], {
      limits: { failedRetrievalsPerMinute: 100 },
    });
    const { key } = await issueKey(server.runtime.store);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await fetch(`${server.url}/external/broken`, { headers: { apikey: key } })).status).toBe(500);
    const notReady = await fetch(`${server.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect((await envelope(notReady)).errors[0]).toEqual({
      message: 'not ready: the last 5 retrievals failed with internal errors',
      code: 'NOT_READY',
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/external/ok`, { headers: { apikey: key } })).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it.skipIf(skipRedisTests())('answers 503 when the state store stops answering mid-request, and recovers when it is back', async () => {
    const redis = await startRedisServer();
    try {
      temp = await makeProject([pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)]);
      const server = await startServer({
        project: temp.project,
        host: '127.0.0.1',
        port: 0,
        watch: false,
        app: { logger: false, handlerTimeoutMs: 1_500 },
        runtime: { redisUrl: redis.url },
      });
      servers.push(server);
      const { key } = await issueKey(server.runtime.store);
      expect((await fetch(`${server.url}/external/ok`, { headers: { apikey: key } })).status).toBe(200);
      redis.pause();
      // The key lookup and the debit wait for Redis, which has no deadline of its own: the backstop answers.
      const hung = await ask(`${server.url}/external/ok`, { headers: { apikey: key } });
      expect(hung.status).toBe(503);
      // The backstop's own answer (its timing is tested on a fake clock in test/unit/backstop.test.ts).
      expect(JSON.parse(hung.body)).toEqual({ data: null, errors: [{ message: MESSAGES.timeout, code: 'TIMEOUT' }] });
      // When Redis is back the hung work finishes after its answer was sent: nothing is sent twice, the daemon
      // goes on answering.
      redis.resume();
      const status = await vi.waitFor(
        async () => {
          const answer = (await fetch(`${server.url}/external/ok`, { headers: { apikey: key } })).status;
          expect(answer).toBe(200);
          return answer;
        },
        { timeout: 10_000, interval: 200 },
      );
      expect(status).toBe(200);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await redis.stop().catch(() => undefined);
    }
  });

  it.skipIf(skipRedisTests())('says not ready while the state store (Redis) does not answer', async () => {
    const redis = await startRedisServer();
    try {
      temp = await makeProject([pageConfig('ok', `${site.origin}/daemon/echo?name=ok`)]);
      const server = await startServer({
        project: temp.project,
        host: '127.0.0.1',
        port: 0,
        watch: false,
        app: { logger: false },
        runtime: { redisUrl: redis.url },
      });
      servers.push(server);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      await redis.stop();
      const answer = await fetch(`${server.url}/readyz`);
      expect(answer.status).toBe(503);
      expect((await envelope(answer)).errors[0]!.message).toMatch(/^not ready: the state store \(redis\) does not answer/);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await redis.stop().catch(() => undefined);
    }
  });
});
