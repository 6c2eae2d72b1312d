import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { lineChart, type SeriesPoint } from './chart.js';
import type { LoadResult } from './load.js';
import { listingConfig } from './pages.js';

/**
 * How the cost of a retrieval grows (issue 11, part 4): req/s and p99 against page size, number of fields,
 * number of configs served and concurrent connections, each drawn as an SVG chart under docs/bench/. For
 * every series the growth exponent of the time per request is reported: ~1 where the work grows linearly
 * (page size, fields), ~0 where it should not grow at all (configs served); it must not exceed ~1.
 */
export interface ScalingContext {
  quick: boolean;
  sourceOrigin: string;
  repoRoot: string;
  makeProject(name: string, settings: Record<string, unknown>, configs: Array<Record<string, unknown>>): Promise<string>;
  createKey(dir: string): string;
  startDaemon(dir: string): Promise<{ url: string; output(): string; stop(): Promise<void> }>;
  load(url: string, key: string, connections: number): Promise<LoadResult>;
  record(figure: {
    figure: string;
    value: number;
    unit: string;
    baseline: number | null;
    ratio: number | null;
    target: string;
    pass: boolean;
    note?: string;
  }): void;
}

export type Series = Record<string, SeriesPoint[]>;

const CREDITS = { credits: { enabled: true, freeCredits: 1_000_000_000 } };

/** A point keeps its non-2xx count: a series point of errors answered fast would read as cheap work. */
function point(x: number, result: LoadResult): SeriesPoint {
  return { x, requestsPerSecond: result.requestsPerSecond, p99LatencyMs: result.p99LatencyMs, non2xx: result.non2xx };
}

/**
 * The point of a load, and when it had non-2xx answers, the daemon's first "request failed" line (status, time
 * and code of the first failure) and what one more request answers right after: the load generators count
 * failures but keep no bodies, and a series that failed once in a full run and not when run alone needs its
 * first error to be found, not only the refusals that may follow it.
 */
async function measuredPoint(x: number, url: string, key: string, result: LoadResult, daemonOutput: string): Promise<SeriesPoint> {
  const measured = point(x, result);
  if (result.non2xx === 0) return measured;
  const firstLogged = daemonOutput.split('\n').find((line) => line.includes('request failed'));
  const sample = await request(url, { headers: { apikey: key } }).then(
    async (response) => `${response.statusCode} ${(await response.body.text()).slice(0, 300)}`,
    (error: Error) => `request failed: ${error.message}`,
  );
  return { ...measured, sampleFailure: `${sample}${firstLogged ? `; the daemon's first failure: ${firstLogged.slice(0, 400)}` : ''}` };
}

const failedAnswers = (points: SeriesPoint[]): number => points.reduce((sum, p) => sum + (p.non2xx ?? 0), 0);
const failureNote = (points: SeriesPoint[]): { note?: string } => {
  if (failedAnswers(points) === 0) return {};
  const sample = points.find((p) => p.sampleFailure !== undefined)?.sampleFailure;
  return {
    note: `${failedAnswers(points)} non-2xx answers in the series${sample ? `; after the first failing point one request answered: ${sample}` : ''}`,
  };
};

/** d log(time per request) / d log(x) between the first and the last point. */
function growth(points: SeriesPoint[]): number {
  const first = points[0]!;
  const last = points.at(-1)!;
  return Math.log(first.requestsPerSecond / last.requestsPerSecond) / Math.log(last.x / first.x);
}

function fieldsConfig(apiId: string, url: string, fields: number): Record<string, unknown> {
  return {
    apiId,
    url,
    caching: false,
    structure: Array.from({ length: fields }, (_, i) => ({
      name: `f${i}`,
      type: 'number',
      selector: `article.product:nth-of-type(${(i % 50) + 1}) .price`,
    })),
  };
}

export async function runScaling(ctx: ScalingContext): Promise<Series> {
  const series: Series = {};
  const pick = <T>(full: T[], quick: T[]) => (ctx.quick ? quick : full);

  // Page size and number of fields: uncached retrievals (the work is the fetch and the extraction).
  const sizes = pick([10, 100, 1024, 5120], [10, 1024]);
  const fieldCounts = pick([5, 50, 500], [5, 500]);
  const work = await ctx.makeProject('scaling-work', CREDITS, [
    ...sizes.map((kb) => listingConfig(`size-${kb}`, `${ctx.sourceOrigin}/sized?kb=${kb}`, { caching: false })),
    ...fieldCounts.map((n) => fieldsConfig(`fields-${n}`, `${ctx.sourceOrigin}/sized?kb=100`, n)),
    listingConfig('cached', `${ctx.sourceOrigin}/listing.html`, { caching: true }),
  ]);
  const workKey = ctx.createKey(work);
  const workDaemon = await ctx.startDaemon(work);
  series.pageSize = [];
  for (const kb of sizes) {
    const url = `${workDaemon.url}/external/size-${kb}`;
    series.pageSize.push(await measuredPoint(kb, url, workKey, await ctx.load(url, workKey, 8), workDaemon.output()));
  }
  series.fields = [];
  for (const n of fieldCounts) {
    const url = `${workDaemon.url}/external/fields-${n}`;
    series.fields.push(await measuredPoint(n, url, workKey, await ctx.load(url, workKey, 8), workDaemon.output()));
  }

  // Concurrent connections: cached retrievals (the daemon's own overhead).
  series.connections = [];
  for (const connections of pick([1, 4, 16, 64, 256], [1, 16, 256])) {
    series.connections.push(point(connections, await ctx.load(`${workDaemon.url}/external/cached`, workKey, connections)));
  }
  await workDaemon.stop();

  // Number of configs served: cached retrievals of one endpoint among N (lookup must not grow with N).
  series.configs = [];
  for (const count of pick([1, 100, 1_000, 10_000], [1, 1_000])) {
    const configs = Array.from({ length: count }, (_, i) =>
      listingConfig(`endpoint-${i}`, `${ctx.sourceOrigin}/listing.html`, { caching: true }),
    );
    const dir = await ctx.makeProject(`scaling-configs-${count}`, CREDITS, configs);
    const key = ctx.createKey(dir);
    const begin = performance.now();
    const daemon = await ctx.startDaemon(dir);
    const readyMs = performance.now() - begin;
    if (count === 10_000)
      ctx.record({
        figure: 'daemon start to ready with 10,000 configs',
        value: readyMs,
        unit: 'ms',
        baseline: null,
        ratio: null,
        target: '< 3000 ms',
        pass: readyMs < 3000,
        note: 'includes Node start-up',
      });
    series.configs.push(point(count, await ctx.load(`${daemon.url}/external/endpoint-0`, key, 50)));
    await daemon.stop();
  }

  const linear = { pageSize: 'page size (KB)', fields: 'fields per config' } as const;
  for (const [name, label] of Object.entries(linear)) {
    const exponent = growth(series[name]!);
    ctx.record({
      figure: `growth of time per request with ${label}`,
      value: exponent,
      unit: 'exponent',
      baseline: 1,
      ratio: null,
      target: '≤ 1.1 (linear work)',
      pass: exponent <= 1.1 && failedAnswers(series[name]!) === 0,
      ...failureNote(series[name]!),
    });
  }
  const flat = growth(series.configs!);
  ctx.record({
    figure: 'growth of time per request with configs served',
    value: flat,
    unit: 'exponent',
    baseline: 0,
    ratio: null,
    target: '≤ 0.1 (constant work)',
    pass: flat <= 0.1 && failedAnswers(series.configs!) === 0,
    ...failureNote(series.configs!),
  });

  // Every series counts, the connections one too: errors answered fast would draw as cheap work.
  const failures = Object.values(series).reduce((sum, points) => sum + failedAnswers(points), 0);
  ctx.record({
    figure: 'non-2xx answers across the scaling series',
    value: failures,
    unit: 'answers',
    baseline: 0,
    ratio: null,
    target: '0',
    pass: failures === 0,
    ...failureNote(Object.values(series).flat()),
  });

  const charts = join(ctx.repoRoot, 'docs/bench');
  await mkdir(charts, { recursive: true });
  const titles: Record<string, [string, string, (x: number) => string]> = {
    pageSize: ['Uncached GET against page size', 'page size (log scale)', (x) => (x >= 1024 ? `${x / 1024} MB` : `${x} KB`)],
    fields: ['Uncached GET against fields per config', 'fields (log scale)', String],
    connections: ['Cached GET against concurrent connections', 'connections (log scale)', String],
    configs: ['Cached GET against configs served', 'configs (log scale)', (x) => (x >= 1000 ? `${x / 1000}k` : String(x))],
  };
  for (const [name, points] of Object.entries(series)) {
    const [title, xLabel, xFormat] = titles[name]!;
    await writeFile(join(charts, `${name}.svg`), lineChart(title, xLabel, points, xFormat));
  }
  return series;
}
