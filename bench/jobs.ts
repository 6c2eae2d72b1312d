import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKey } from '../src/core/access/key-service.js';
import { loadProject } from '../src/core/config/project.js';
import { reasonsOf } from '../src/core/jobs/results-format.js';
import type { JobItem } from '../src/core/jobs/types.js';
import { createRuntime } from '../src/core/runtime.js';
import { startRedisServer } from '../test/support/redis-server.js';
import type { FigureSink } from './browser-actions.js';
import { jobItemConfig } from './job-pages.js';
import { pinned, rssMegabytes, startUntil, type Started } from './proc.js';

/**
 * Jobs (issue 50, docs/jobs.md): a job of 10,000 inputs (1,000 with --quick) on the fixture site's item pages
 * by `pagejson jobs run`, beside a hand-written runner (bench/servers/jobs-baseline.ts: a pool, undici, the
 * same compiled extraction) at the same concurrency, each a process pinned to the same core, in alternating
 * rounds; the items per second from the first line written to the process's end, and pagejson's RSS over the
 * job. Then on Redis with a source that takes 50 ms a page: the same job by one `pagejson worker`, then three.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
const CONCURRENCY = 8;
const JOB_CPU = 0;
const SOURCE_CPU = 1;

interface Run {
  itemsPerSecond: number;
  wallSeconds: number;
  rss: number[];
}

/** Runs a process that writes one line per input to `out`: its pace from the first line to its exit, its RSS every 50 ms. */
async function timedRun(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; out: string; total: number },
): Promise<Run> {
  await rm(options.out, { force: true });
  const [cmd, argv] = pinned(JOB_CPU, command, args);
  const begin = performance.now();
  const child = spawn(cmd, argv, {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors = `${errors}${chunk.toString()}`.slice(-4_000)));
  let first: number | undefined;
  const rss: number[] = [];
  const sampler = setInterval(() => {
    // taskset execs the command, so the child's pid is the measured process.
    const mb = child.pid ? rssMegabytes(child.pid) : null;
    if (mb !== null && first !== undefined) rss.push(mb);
    if (first === undefined)
      void stat(options.out).then(
        (info) => (first ??= info.size > 0 ? performance.now() : undefined),
        () => undefined,
      );
  }, 50);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const end = performance.now();
  clearInterval(sampler);
  if (code !== 0 && code !== 1) throw new Error(`${args.join(' ')} exited ${code}: ${errors}`);
  const lines = (await readFile(options.out, 'utf8')).split('\n').filter((line) => line.includes('"outcome":"data"')).length;
  if (lines !== options.total) throw new Error(`${args.join(' ')} wrote ${lines} data lines of ${options.total}: ${errors}`);
  const seconds = (end - (first ?? begin)) / 1000;
  return { itemsPerSecond: options.total / seconds, wallSeconds: (end - begin) / 1000, rss };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** RSS growth over a job: the median sample of its last quarter less that of its second (start-up and single GC peaks left out). */
function rssGrowth(samples: number[]): { growth: number; peak: number } {
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  const second = samples.slice(quarter, 2 * quarter);
  const last = samples.slice(-quarter);
  return { growth: median(last) - median(second.length > 0 ? second : last), peak: Math.max(...samples) };
}

async function throughputFigures(sink: FigureSink, quick: boolean, origin: string, dir: string, cli: string): Promise<void> {
  const total = quick ? 1_000 : 10_000;
  await writeFile(join(dir, 'inputs.jsonl'), Array.from({ length: total }, (_, index) => `{"id":"i${index}"}\n`).join(''));
  const out = join(dir, 'out.ndjson');
  const ours: Run[] = [];
  const theirs: Run[] = [];
  for (let round = 0; round < (quick ? 1 : 3); round += 1) {
    ours.push(
      await timedRun(
        process.execPath,
        [cli, 'jobs', 'run', 'item', '--inputs', 'inputs.jsonl', '--concurrency', String(CONCURRENCY), '--out', out],
        {
          cwd: dir,
          out,
          total,
        },
      ),
    );
    theirs.push(
      await timedRun(process.execPath, [join(here, 'servers/jobs-baseline.js')], {
        cwd: dir,
        env: { BENCH_ORIGIN: origin, BENCH_N: String(total), BENCH_CONCURRENCY: String(CONCURRENCY), BENCH_OUT: out },
        out,
        total,
      }),
    );
  }
  const [a, b] = [median(ours.map((run) => run.itemsPerSecond)), median(theirs.map((run) => run.itemsPerSecond))];
  sink.record({
    figure: `jobs: a ${total.toLocaleString('en')}-input job (pagejson jobs run) items/s`,
    value: a,
    unit: 'items/s',
    baseline: b,
    ratio: a / b,
    target: '≥ 0.9 × a hand-written runner',
    pass: a / b >= 0.9,
    note: `concurrency ${CONCURRENCY}, the fixture site's item pages (its own process); from the first line to the end, median of ${ours.length} alternating round(s); whole process ${median(ours.map((run) => run.wallSeconds)).toFixed(1)} s vs ${median(theirs.map((run) => run.wallSeconds)).toFixed(1)} s`,
  });
  const rss = rssGrowth(ours[ours.length - 1]!.rss);
  sink.record({
    figure: `jobs: RSS growth over a ${total.toLocaleString('en')}-input job`,
    value: rss.growth,
    unit: 'MB',
    baseline: null,
    ratio: null,
    target: '≤ 16 MB (lines go to disk, not memory)',
    pass: rss.growth <= 16,
    note: `median RSS of the job's last quarter less that of its second; peak ${rss.peak.toFixed(0)} MB, ${ours[ours.length - 1]!.rss.length} samples`,
  });
}

/** Seconds from a job's start to its end with `workers` pagejson worker processes on the Redis. */
async function workersRun(options: { cli: string; dir: string; redisUrl: string; workers: number; total: number }): Promise<number> {
  const workers: Started[] = [];
  const project = await loadProject({ cwd: options.dir, env: {} });
  const runtime = await createRuntime(project, { redisUrl: options.redisUrl, jobWorker: false, watch: false, memoryCacheOnly: true });
  try {
    for (let n = 0; n < options.workers; n += 1)
      workers.push(
        await startUntil(undefined, process.execPath, [options.cli, 'worker', '--redis', options.redisUrl], /taking job items/, {
          cwd: options.dir,
          env: { NO_COLOR: '1' },
        }),
      );
    const { id: keyId } = await createKey(runtime.store, { scope: null }, { freeMilliCredits: 0 });
    const runJob = async (total: number): Promise<number> => {
      const items: JobItem[] = Array.from({ length: total }, (_, index) => ({
        index,
        input: { id: `slow${index}` },
        values: { id: `slow${index}` },
      }));
      const begin = performance.now();
      const job = await runtime.jobs.start({
        apiId: 'item',
        source: { kind: 'inputs', inputs: items.map((item) => item.input) },
        items,
        concurrency: 64,
        webhook: false,
        keyId,
      });
      for (;;) {
        const record = await runtime.jobs.get(job.id);
        if (record?.finishedAt) {
          if (record.counts.done !== total)
            throw new Error(
              `the Redis job ended ${JSON.stringify(record.counts)}: ${JSON.stringify(await reasonsOf(runtime.jobs.results(job.id)))}`,
            );
          return (performance.now() - begin) / 1000;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    // A first small job warms every worker (its extraction threads, robots.txt, the key): not measured.
    await runJob(options.workers * 16);
    return await runJob(options.total);
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await runtime.close();
  }
}

async function workerFigures(sink: FigureSink, quick: boolean, origin: string, dir: string, cli: string): Promise<void> {
  const redis = await startRedisServer();
  const total = quick ? 300 : 2_000;
  await mkdir(join(dir, 'configs'), { recursive: true });
  await writeFile(
    join(dir, 'pagejson.json'),
    JSON.stringify({
      fetch: { allowPrivateNetworks: true, perOriginConcurrency: 64 },
      credits: { enabled: false },
      // A busy machine starts extraction threads slowly: that is no failure of the queue.
      extraction: { timeoutMs: 60_000 },
      jobs: { concurrency: 8, perOriginConcurrency: 64, minDelayMs: 0 },
      heal: 'off',
    }),
  );
  await writeFile(join(dir, 'configs/item.json'), JSON.stringify(jobItemConfig(origin, '&ms=50')));
  try {
    const one = await workersRun({ cli, dir, redisUrl: redis.url, workers: 1, total });
    const three = await workersRun({ cli, dir, redisUrl: redis.url, workers: 3, total });
    sink.record({
      figure: `jobs on Redis: ${total.toLocaleString('en')} inputs of 50 ms, three pagejson workers against one`,
      value: one / three,
      unit: '× faster',
      baseline: null,
      ratio: null,
      target: '≥ 2.5',
      pass: one / three >= 2.5,
      note: `one worker ${one.toFixed(1)} s, three ${three.toFixed(1)} s, each after a warm-up job; each worker 8 items at once; redis-server and the source on this machine`,
    });
  } finally {
    await redis.stop();
  }
}

export async function jobFigures(sink: FigureSink, quick: boolean, options: { cli: string; workDir: string }): Promise<void> {
  const source = await startUntil(
    SOURCE_CPU,
    process.execPath,
    [join(here, 'servers/paged-source.js')],
    /paged source ready on (http:\/\/\S+)/,
  );
  const origin = source.match[1]!;
  const dir = join(options.workDir, 'jobs');
  await mkdir(join(dir, 'configs'), { recursive: true });
  await writeFile(
    join(dir, 'pagejson.json'),
    JSON.stringify({
      fetch: { allowPrivateNetworks: true, perOriginConcurrency: CONCURRENCY },
      extraction: { timeoutMs: 60_000 },
      jobs: { concurrency: CONCURRENCY, perOriginConcurrency: CONCURRENCY, minDelayMs: 0 },
    }),
  );
  await writeFile(join(dir, 'configs/item.json'), JSON.stringify(jobItemConfig(origin)));
  try {
    await throughputFigures(sink, quick, origin, dir, options.cli);
    await workerFigures(sink, quick, origin, join(options.workDir, 'jobs-redis'), options.cli);
  } finally {
    await source.stop();
  }
}
