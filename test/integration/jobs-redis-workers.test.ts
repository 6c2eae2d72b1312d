import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Jobs on BullMQ in Redis (issue 50, part 7), with the real parts: redis-server, a daemon on port 0 that only
 * starts and reads jobs, and two `pagejson worker` processes splitting one job's items. One worker is killed
 * with SIGKILL while it holds items; after `jobs.workerLockMs` the other takes them over, and every input ends
 * in exactly one line. The per-origin limit holds across both workers (3, where the workers could run 4).
 */
const skip = skipRedisTests();
const INPUTS = 16;
let redis: RedisServer;
let site: FixtureSite;
let temp: TempProject;
let server: RunningServer;
let key = '';
const workers: Array<{ child: ResultPromise; stderr: () => string }> = [];

function startWorker(): Promise<{ child: ResultPromise; stderr: () => string }> {
  const child = execa(process.execPath, [CLI_BIN, 'worker', '--redis', redis.url], {
    cwd: temp.root,
    env: { PAGEJSON_LOG_LEVEL: 'warn' },
    reject: false,
    buffer: false,
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += String(chunk)));
  const worker = { child, stderr: () => err };
  workers.push(worker);
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += String(chunk);
      if (out.includes('taking job items')) resolve(worker);
    });
    void child.then((result) => reject(new Error(`worker exited (${result.exitCode}) before it was ready: ${err}`)));
  });
}

beforeAll(async () => {
  if (skip) return;
  await ensureBuilt();
  [redis, site] = await Promise.all([startRedisServer(), startFixtureSite()]);
  temp = await makeProject(
    [
      {
        apiId: 'polite',
        url: `${site.origin}/jobs/polite?id={{id}}&ms=400`,
        caching: false,
        variables: { id: { example: '1' } },
        structure: [{ name: 'title', type: 'string', selector: 'h1' }],
      },
    ],
    {
      extraction: { timeoutMs: 60_000 },
      fetch: { timeoutMs: 20_000 },
      jobs: { concurrency: 2, perOriginConcurrency: 3, minDelayMs: 0, workerLockMs: 1_500 },
    },
  );
  // The daemon starts and reads jobs; the workers run them.
  server = await startServer({
    project: temp.project,
    host: '127.0.0.1',
    port: 0,
    watch: false,
    app: { logger: false },
    runtime: { redisUrl: redis.url, jobWorker: false },
  });
  key = (await issueKey(server.runtime.store, { freeCredits: 100 })).key;
}, 300_000);

afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await server?.close();
  await site?.close();
  await temp?.cleanup();
  await redis?.stop();
});

interface Line {
  index: number;
  outcome: string;
  data: { title: string } | null;
}

describe.skipIf(skip)('pagejson worker on Redis', () => {
  it('two workers split a job; the items of one killed with SIGKILL are finished by the other', async () => {
    const [first] = await Promise.all([startWorker(), startWorker()]);
    const response = await fetch(`${server.url}/jobs`, {
      method: 'POST',
      headers: { apikey: key, 'content-type': 'application/json' },
      body: JSON.stringify({ apiId: 'polite', inputs: Array.from({ length: INPUTS }, (_, n) => ({ id: `w${n}` })) }),
    });
    expect(response.status).toBe(202);
    const id = ((await response.json()) as { data: { id: string } }).data.id;

    // Both workers take items; the first is killed once it has ended one (it holds its next ones then).
    await vi.waitFor(() => expect(first!.stderr() + workers[1]!.stderr()).toMatch(/item \d+: data/), { timeout: 60_000, interval: 50 });
    await vi.waitFor(() => expect(first!.stderr()).toMatch(/item \d+: data/), { timeout: 60_000, interval: 50 });
    await vi.waitFor(() => expect(workers[1]!.stderr()).toMatch(/item \d+: data/), { timeout: 60_000, interval: 50 });
    first!.child.kill('SIGKILL');
    const byFirst = new Set([...first!.stderr().matchAll(/item (\d+): data/g)].map((match) => Number(match[1])));

    const job = await vi.waitFor(
      async () => {
        const view = (
          (await (await fetch(`${server.url}/jobs/${id}`, { headers: { apikey: key } })).json()) as {
            data: { state: string; total: number; done: number; failed: number; skipped: number };
          }
        ).data;
        if (view.state !== 'done') throw new Error(`still ${view.state}: ${JSON.stringify(view)}`);
        return view;
      },
      { timeout: 120_000, interval: 200 },
    );
    expect(job).toMatchObject({ state: 'done', total: INPUTS, done: INPUTS, failed: 0, skipped: 0 });

    const text = await (await fetch(`${server.url}/jobs/${id}/results`, { headers: { apikey: key } })).text();
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    // Every input exactly once, with its data.
    expect(lines.map((line) => line.index).sort((a, b) => a - b)).toEqual(Array.from({ length: INPUTS }, (_, n) => n));
    expect(lines.every((line) => line.outcome === 'data' && line.data?.title === `Item w${line.index}`)).toBe(true);
    // The second worker ended every item the first did not, those the first held when it died included.
    const bySecond = new Set([...workers[1]!.stderr().matchAll(/item (\d+): data/g)].map((match) => Number(match[1])));
    expect(byFirst.size).toBeGreaterThan(0);
    expect([...byFirst, ...bySecond].sort((a, b) => a - b)).toEqual(Array.from({ length: INPUTS }, (_, n) => n));
    // The origin's limit held across both processes.
    expect(Number(site.state.get('polite-max'))).toBeLessThanOrEqual(3);
  }, 180_000);
});
