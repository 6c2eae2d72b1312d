import { closeSync, openSync, writeSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { isPagejsonError, PagejsonError } from '../core/shared/errors.js';
import type { Project } from '../core/config/project.js';
import type { ApiConfig } from '../core/config/schema.js';
import type { JobCounts, JobSource, ResultLine } from '../core/jobs/types.js';
import type { RunEnd } from '../core/jobs/runner.js';
import type { CliContext } from './context.js';
import { errorReply } from '../daemon/errors.js';
import { createProgress } from './jobs-progress.js';

/**
 * `pagejson jobs run`: a job in this process, no daemon (docs/jobs.md): each input one retrieval through the
 * page pipeline `pagejson run` uses (no credits, no cache), its lines written as they end to `--out` (NDJSON,
 * or converted to CSV or JSON once all are in) or to stdout, and a progress line on a terminal.
 */
export interface JobRunOptions {
  concurrency?: number;
  limit?: number;
  out?: string;
  json?: boolean;
}

type OutFormat = 'ndjson' | 'csv' | 'json';

function outFormatOf(path: string): OutFormat {
  const lower = path.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.ndjson') || lower.endsWith('.jsonl')) return 'ndjson';
  throw new PagejsonError('USAGE', `--out ${path}: the file's name must end in .ndjson, .csv or .json`);
}

export async function runJobHere(
  ctx: CliContext,
  project: Project,
  configs: { config: ApiConfig; find(apiId: string): ApiConfig | undefined },
  source: JobSource,
  options: JobRunOptions,
): Promise<{ counts: JobCounts; end: RunEnd }> {
  const format = options.out ? outFormatOf(options.out) : 'ndjson';
  const concurrency = options.concurrency ?? project.settings.jobs.concurrency;
  const [
    { createLocalRetriever },
    { expandSource },
    { runItems },
    { createSitemapFetcher },
    { resultsAs },
    { emptyCounts },
    { jobPoliteness },
  ] = await Promise.all([
    import('./local-retriever.js'),
    import('../core/jobs/job-inputs.js'),
    import('../core/jobs/runner.js'),
    import('../core/jobs/sitemap-fetch.js'),
    import('../core/jobs/results-format.js'),
    import('../core/jobs/types.js'),
    import('../core/jobs/job-politeness.js'),
  ]);
  const retriever = await createLocalRetriever(project, ctx.env, { threads: Math.min(concurrency, 4) });
  const { fetch: fetchSettings, jobs } = project.settings;
  // NDJSON goes where it is asked for as lines end; CSV and JSON are written from it once every line is in.
  const linesPath = options.out && format !== 'ndjson' ? `${options.out}.lines.ndjson` : options.out;
  try {
    const items = await expandSource(
      configs.config,
      source,
      {
        fetchText: createSitemapFetcher({
          allowPrivateNetworks: fetchSettings.allowPrivateNetworks,
          timeoutMs: fetchSettings.timeoutMs,
          maxBytes: 64 * 1024 * 1024,
        }),
        answerOf: async (apiId) => {
          const listConfig = configs.find(apiId);
          if (!listConfig)
            throw new PagejsonError('CONFIG_NOT_FOUND', `no endpoint ${apiId} for --from`, {
              hint: 'run `pagejson list` to see the endpoints',
            });
          return (await retriever.retrieve(listConfig, {})).data;
        },
      },
      { maxInputs: jobs.maxInputs, ...(options.limit !== undefined ? { limit: options.limit } : {}) },
    );
    if (linesPath) await writeFile(linesPath, '', { mode: 0o600 });
    const fd = linesPath ? openSync(linesPath, 'a') : undefined;
    const counts = emptyCounts(items.length);
    const progress = createProgress(ctx.stderr, counts);
    // Job traffic here is as polite as the daemon's: per-origin turns, robots.txt, 429 pauses (docs/jobs.md).
    const politeness = jobPoliteness(project.settings);
    const itemPoliteness = politeness.forEndpoint(configs.config);
    let end: RunEnd;
    try {
      end = await runItems(items, {
        retrieveItem: async (values) => {
          const result = await retriever.retrieve(configs.config, values);
          return { data: result.data, health: result.health.state, fetchedAt: result.fetchedAt.toISOString(), milliCredits: 0 };
        },
        append: (line: ResultLine) => {
          const text = `${JSON.stringify(line)}\n`;
          if (fd !== undefined) writeSync(fd, text);
          else ctx.stdout.write(text);
        },
        finished: new Set(),
        counts,
        concurrency,
        itemTimeoutMs: fetchSettings.timeoutMs * 2 + 10_000,
        errorsOf: (error) => (isPagejsonError(error) ? errorReply(error).errors : [{ message: 'something went wrong', code: 'INTERNAL' }]),
        onLine: () => progress.update(),
        ...(itemPoliteness ? { politeness: itemPoliteness } : {}),
      });
    } finally {
      await politeness.close();
      progress.stop();
      if (fd !== undefined) closeSync(fd);
    }
    if (options.out && linesPath !== options.out) {
      const out = openSync(options.out, 'w', 0o644);
      try {
        for await (const chunk of resultsAs(linesPath!, format)) writeSync(out, chunk);
      } finally {
        closeSync(out);
      }
      await rm(linesPath!, { force: true });
    }
    return { counts, end };
  } finally {
    await retriever.close();
  }
}
