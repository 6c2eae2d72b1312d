import { createWriteStream } from 'node:fs';
import type { Command } from 'commander';
import { PagejsonError, type ErrorCode } from '../../core/shared/errors.js';
import { loadProjectConfigs } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { sourceFromOptions, withSourceOptions, type SourceOptions } from '../jobs-source.js';
import { runningDaemonUrl } from './mcp.js';

/**
 * `pagejson jobs start|status|results|cancel|list`: jobs of the running daemon, through its HTTP routes with the
 * key in PAGEJSON_API_KEY (docs/jobs.md): the jobs are the key's, charged to its account.
 */
interface Daemon {
  call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
  stream(path: string): Promise<Response>;
}

async function daemonOf(command: Command, ctx: CliContext): Promise<Daemon> {
  const { project } = await loadProjectConfigs(command, ctx);
  const url = await runningDaemonUrl(project.dataDir);
  if (!url)
    throw new PagejsonError('DAEMON_UNREACHABLE', 'no daemon is running for this project', {
      hint: 'start it with `pagejson serve`, or run the job here with `pagejson jobs run`',
    });
  const apikey = ctx.env.PAGEJSON_API_KEY;
  if (!apikey)
    throw new PagejsonError('USAGE', "jobs of the daemon are a key's: PAGEJSON_API_KEY is not set", {
      hint: 'make a key with `pagejson keys create` and export PAGEJSON_API_KEY=pj_…',
    });
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { apikey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).catch((error: unknown) => {
      throw new PagejsonError('DAEMON_UNREACHABLE', `the daemon at ${url} did not answer: ${(error as Error).message}`, {
        hint: 'check that `pagejson serve` is still running',
      });
    });
  const failure = async (response: Response) => {
    const envelope = (await response.json().catch(() => ({}))) as { errors?: Array<{ message: string; code: string }> | null };
    const first = envelope.errors?.[0] ?? { message: `the daemon answered ${response.status}`, code: 'INTERNAL' };
    return new PagejsonError(first.code as ErrorCode, first.message);
  };
  return {
    async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
      const response = await send(method, path, body);
      if (!response.ok) throw await failure(response);
      return ((await response.json()) as { data: T }).data;
    },
    async stream(path) {
      const response = await send('GET', path);
      if (!response.ok) throw await failure(response);
      return response;
    },
  };
}

interface JobView {
  id: string;
  apiId: string;
  state: string;
  total: number;
  done?: number;
  failed?: number;
  skipped?: number;
  credits?: number;
  reason?: string;
}

function describe(job: JobView): string {
  const counts =
    job.done === undefined
      ? `${job.total} inputs`
      : `${job.done + (job.failed ?? 0) + (job.skipped ?? 0)}/${job.total} · done ${job.done} · failed ${job.failed} · skipped ${job.skipped} · ${job.credits} credits`;
  return `${job.id}  ${job.apiId}  ${job.state}  ${counts}${job.reason ? `  (${job.reason})` : ''}`;
}

const idPath = (id: string) => `/jobs/${encodeURIComponent(id)}`;

export function registerDaemonJobCommands(jobs: Command, ctx: CliContext): void {
  withSourceOptions(
    jobs
      .command('start')
      .description('start a job on the running daemon (PAGEJSON_API_KEY; credits apply)')
      .argument('<apiId>', 'the endpoint'),
  )
    .option('--webhook', "tell the project's webhook subscribers when the job ends")
    .addHelpText(
      'after',
      '\nExamples:\n  PAGEJSON_API_KEY=pj_... pagejson jobs start product --inputs skus.csv\n  pagejson jobs start book --sitemap https://shop.example/sitemap.xml --limit 500 --json',
    )
    .option('--json', 'print the job as JSON')
    .action(
      async (
        apiId: string,
        options: SourceOptions & { limit?: number; concurrency?: number; webhook?: boolean; json?: boolean },
        command: Command,
      ) => {
        const daemon = await daemonOf(command, ctx);
        const { project } = await loadProjectConfigs(command, ctx);
        const source = await sourceFromOptions(options, ctx.cwd, project.settings.jobs.maxInputs);
        const { kind: _kind, ...fields } = source;
        const job = await daemon.call<JobView>('POST', '/jobs', {
          apiId,
          ...fields,
          ...(options.limit !== undefined ? { limit: options.limit } : {}),
          ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
          ...(options.webhook ? { webhook: true } : {}),
        });
        if (options.json) writeJson(ctx.stdout, job);
        else writeLine(ctx.stdout, `${describe({ ...job, apiId })}\nfollow it with: pagejson jobs status ${job.id}`);
      },
    );
  jobs
    .command('status')
    .description("a job's state and counts")
    .addHelpText('after', '\nExamples:\n  pagejson jobs status j_4fQk8ZpLw2cT\n  pagejson jobs status j_4fQk8ZpLw2cT --json')
    .argument('<id>', 'the job')
    .option('--json', 'print the job as JSON')
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      const job = await (await daemonOf(command, ctx)).call<JobView>('GET', idPath(id));
      if (options.json) writeJson(ctx.stdout, job);
      else writeLine(ctx.stdout, describe(job));
    });
  jobs
    .command('results')
    .description("a job's results: one line per input (NDJSON), or CSV or JSON")
    .addHelpText(
      'after',
      '\nExamples:\n  pagejson jobs results j_4fQk8ZpLw2cT --format csv --out products.csv\n  pagejson jobs results j_4fQk8ZpLw2cT --errors-only',
    )
    .argument('<id>', 'the job')
    .option('--format <format>', 'ndjson, csv or json', 'ndjson')
    .option('--errors-only', 'only the inputs that gave no data, with their reason')
    .option('--out <file>', 'write them to this file instead of stdout')
    .action(async (id: string, options: { format: string; errorsOnly?: boolean; out?: string }, command: Command) => {
      if (!['ndjson', 'csv', 'json'].includes(options.format))
        throw new PagejsonError('USAGE', `--format ${options.format}: write ndjson, csv or json`);
      const query = new URLSearchParams({ format: options.format, ...(options.errorsOnly ? { errors: 'only' } : {}) });
      const response = await (await daemonOf(command, ctx)).stream(`${idPath(id)}/results?${query}`);
      const out = options.out ? createWriteStream(options.out) : ctx.stdout;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) out.write(chunk);
      if (options.out)
        await new Promise<void>((resolve, reject) =>
          (out as ReturnType<typeof createWriteStream>).end((error?: Error | null) => (error ? reject(error) : resolve())),
        );
    });
  jobs
    .command('cancel')
    .description('cancel a job: items not run yet end as cancelled')
    .addHelpText('after', '\nExamples:\n  pagejson jobs cancel j_4fQk8ZpLw2cT\n  pagejson jobs cancel j_4fQk8ZpLw2cT --json')
    .argument('<id>', 'the job')
    .option('--json', 'print the job as JSON')
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      const job = await (await daemonOf(command, ctx)).call<JobView>('DELETE', idPath(id));
      if (options.json) writeJson(ctx.stdout, job);
      else writeLine(ctx.stdout, describe(job));
    });
  jobs
    .command('list')
    .description("the key's jobs, newest first")
    .addHelpText('after', '\nExamples:\n  pagejson jobs list\n  pagejson jobs list --json')
    .option('--json', 'print them as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = await (await daemonOf(command, ctx)).call<JobView[]>('GET', '/jobs');
      if (options.json) writeJson(ctx.stdout, list);
      else for (const job of list) writeLine(ctx.stdout, describe(job));
      if (!options.json && list.length === 0)
        writeLine(ctx.stderr, 'no jobs yet: start one with `pagejson jobs start <apiId> --inputs FILE`');
    });
}
