import type { Command } from 'commander';
import { loadProjectConfigs, requireConfig } from '../config-files.js';
import { writeJson, type CliContext } from '../context.js';
import { sourceFromOptions, withSourceOptions, type SourceOptions } from '../jobs-source.js';
import { registerDaemonJobCommands } from './jobs-daemon.js';

/**
 * `pagejson jobs`: one endpoint over many inputs (docs/jobs.md). `run` runs a job in this process; `start`,
 * `status`, `results`, `cancel` and `list` go through the running daemon with PAGEJSON_API_KEY.
 */
interface RunOptions extends SourceOptions {
  limit?: number;
  concurrency?: number;
  out?: string;
  json?: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  const jobs = program
    .command('jobs')
    .description("run one endpoint over many inputs: a list of variables, URLs, a sitemap, or another endpoint's list")
    .addHelpText(
      'after',
      '\nExamples:\n  pagejson jobs run product --inputs skus.csv --out products.csv\n  pagejson jobs start book --urls urls.txt && pagejson jobs list',
    );
  withSourceOptions(
    jobs
      .command('run')
      .description('run a job in this process (no daemon, no credits): results as NDJSON to stdout or --out')
      .argument('<apiId>', 'the endpoint to run over the inputs'),
  )
    .option('--out <file>', 'write the results to a .ndjson, .csv or .json file')
    .option('--json', 'print the counts as JSON when done')
    .addHelpText(
      'after',
      '\nExamples:\n  pagejson jobs run product --inputs skus.csv --out products.csv\n  pagejson jobs run book --from catalogue:books[].url --out books.ndjson',
    )
    .action(async (apiId: string, options: RunOptions, command: Command) => {
      const { project, set } = await loadProjectConfigs(command, ctx);
      const config = requireConfig(project, set, apiId, ctx.cwd);
      const source = await sourceFromOptions(options, ctx.cwd, project.settings.jobs.maxInputs);
      const { runJobHere } = await import('../jobs-run.js');
      const find = (id: string) => set.configs.get(id);
      const { counts, end } = await runJobHere(ctx, project, { config, find }, source, options);
      const summary = {
        state: end.state,
        ...counts,
        credits: 0,
        ...(end.state === 'failed' || end.state === 'cancelled' ? { reason: end.reason } : {}),
      };
      if (options.json) writeJson(options.out ? ctx.stdout : ctx.stderr, summary);
      else
        ctx.stderr.write(
          `${counts.total} inputs: ${counts.done} done, ${counts.failed} failed, ${counts.skipped} skipped${options.out ? ` (results in ${options.out})` : ''}\n`,
        );
      if (counts.failed > 0 || end.state === 'failed') ctx.exitCode = 1;
    });
  registerDaemonJobCommands(jobs, ctx);
}
