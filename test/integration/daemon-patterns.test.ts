import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { writeSnapshot } from '../../src/core/health/snapshots.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, pageConfig, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * Issue 40, items 1 and 2, replayed against a real daemon and the built CLI. `([a-z0-9]+-?)+`, a common slug
 * pattern `validate` accepted, took 15 s on 31 characters and hours on 40 with JavaScript's backtracking
 * engine: on the daemon's main thread for a request's value (free for the caller: a 400 before credits), and
 * at every load of a config whose monitor watches such a value (`validate`, `list`, `test`, the daemon's
 * reload). Patterns now run on RE2; the test's own timeout is the bound.
 */
const SLUG = '([a-z0-9]+-?)+';
const HOSTILE = `${'a'.repeat(40)}!`;

let site: FixtureSite;
let temp: TempProject | undefined;
let serve: ServeProcess | undefined;

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
});
afterEach(async () => {
  if (serve) {
    // A daemon that froze would not stop on SIGTERM: it is killed after a grace.
    serve.child.kill('SIGTERM');
    const killer = setTimeout(() => serve?.child.kill('SIGKILL'), 5_000);
    await serve.child;
    clearTimeout(killer);
    serve = undefined;
  }
  await temp?.cleanup();
  temp = undefined;
});
afterAll(async () => {
  await site?.close();
});

const slug = (extra: Partial<ApiConfigInput> = {}) =>
  pageConfig('slug', `${site.origin}/daemon/echo?name={{ slug }}`, { variables: { slug: { example: 'abc', pattern: SLUG } }, ...extra });
const ok = () => pageConfig('ok', `${site.origin}/daemon/echo?name=ok`);

/** `pagejson serve` as a process: a frozen daemon must not freeze the test runner (its timeout is the bound). */
async function start(configs: ApiConfigInput[]): Promise<{ url: string; key: string }> {
  temp = await makeProject(configs);
  serve = await spawnServe(temp.root);
  const created = await execa(process.execPath, [CLI_BIN, 'keys', 'create', '--json'], { cwd: temp.root });
  return { url: serve.url, key: (JSON.parse(created.stdout) as { key: string }).key };
}

describe('variable patterns on the daemon', () => {
  it('answers a hostile value for the slug pattern with a 400 at once, and /healthz meanwhile', { timeout: 30_000 }, async () => {
    const { url, key } = await start([slug(), ok()]);
    const headers = { apikey: key };
    const [byQuery, byBody, health] = await Promise.all([
      fetch(`${url}/external/slug?slug=${HOSTILE}`, { headers }),
      fetch(`${url}/external/slug`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: HOSTILE }),
      }),
      fetch(`${url}/healthz`),
    ]);
    for (const answer of [byQuery, byBody]) {
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toBe(
        `variable slug does not match ${SLUG}`,
      );
    }
    expect(health.status).toBe(200);
    const good = await fetch(`${url}/external/slug?slug=summer-sale`, { headers });
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ data: { title: 'summer-sale', kind: 'echo' }, errors: null });
  });

  it('skips configs dropped into configs/ whose patterns cannot run in linear time, and keeps serving', { timeout: 30_000 }, async () => {
    const { url, key } = await start([ok()]);
    // A monitor watching a hostile value: its check used to run the pattern on the event loop at load.
    const monitored = await temp!.writeConfig(slug({ monitor: { every: '1h', variables: [{ slug: HOSTILE }] } }));
    const lookahead = await temp!.writeConfig(
      pageConfig('lookahead', `${site.origin}/daemon/echo?name={{ q }}`, {
        variables: { q: { example: 'abc', pattern: '(?!admin)[a-z]+' } },
      }),
    );
    const reported = [
      `config problem: ${monitored} $.monitor.variables[0]: variable slug does not match ${SLUG}`,
      `config problem: ${lookahead} $.variables.q.pattern: pattern cannot run in linear time: (?!…) is a lookahead; match the text itself (a capture group takes the part you want)`,
    ];
    await vi.waitFor(() => expect(reported.filter((line) => serve!.stderr().includes(line))).toEqual(reported), {
      timeout: 15_000,
      interval: 50,
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/external/ok`, { headers: { apikey: key } })).status).toBe(200);
    expect((await fetch(`${url}/external/lookahead?q=abc`, { headers: { apikey: key } })).status).toBe(404);
  });
});

describe('the CLI on a config whose monitor watches a hostile value', () => {
  it('validate, list and test finish with a clear error', { timeout: 60_000 }, async () => {
    temp = await makeProject([slug({ monitor: { every: '1h', variables: [{ slug: HOSTILE }] } }), ok()]);
    await writeSnapshot(
      temp.project.configsDir,
      {
        apiId: 'slug',
        revision: 1,
        url: `${site.origin}/daemon/echo?name=abc`,
        variables: { slug: 'abc' },
        data: { title: 'abc', kind: 'echo' },
      },
      '<h1>abc</h1><p class="kind">echo</p>',
    );
    const cli = (...args: string[]) =>
      execa(process.execPath, [CLI_BIN, ...args], { cwd: temp!.root, reject: false, env: { NO_COLOR: '1' }, timeout: 30_000 });
    const file = join('configs', 'slug.json');

    const validate = await cli('validate');
    expect(validate.timedOut).toBe(false);
    expect(validate.exitCode).toBe(1);
    const line = validate.stdout.split('\n').find((text) => text.includes('$.monitor.variables[0]'));
    expect(line).toMatch(/^configs\/slug\.json:\d+:\d+ /);
    expect(line).toContain(`$.monitor.variables[0]: variable slug does not match ${SLUG}`);

    const list = await cli('list', '--json');
    expect(list.timedOut).toBe(false);
    expect(list.exitCode).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ apiId: string }>).map((entry) => entry.apiId)).toEqual(['ok']);

    const test = await cli('test', '--format', 'json');
    expect(test.timedOut).toBe(false);
    expect(test.exitCode).toBe(1);
    expect(JSON.parse(test.stdout).outcomes).toEqual([
      {
        apiId: 'slug',
        snapshot: '*',
        ok: false,
        differences: [],
        error: `the config is invalid at $.monitor.variables[0]: variable slug does not match ${SLUG} (see \`pagejson validate\`)`,
      },
    ]);
    const named = await cli('test', 'slug');
    expect(named.exitCode).toBe(1);
    expect(named.stderr).toContain(`error: ${file} at $.monitor.variables[0]: variable slug does not match ${SLUG}`);
  });
});
