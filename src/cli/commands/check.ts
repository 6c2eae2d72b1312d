import type { Command } from 'commander';
import type { ApiConfig } from '../../core/config/schema.js';
import { exampleValues } from '../../core/config/url-template.js';
import { isPagejsonError, PagejsonError } from '../../core/shared/errors.js';
import type { FieldHealth, HealthState } from '../../core/health/index.js';
import { loadProjectConfigs } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors, renderTable } from '../output.js';
import { describeFailing } from './run.js';

/**
 * `pagejson check [apiId...] [--json]`: live. Fetches every endpoint's source now (variables from their
 * examples) and reports its health per endpoint and field, compared with its latest snapshot or, without
 * one, its generated sample. Exit 0 when all are healthy, 1 when any is degraded or broken (or its page
 * could not be fetched). A few endpoints run at a time; the per-origin queue keeps each site to its limit.
 */
const CONCURRENCY = 4;

interface Checked {
  apiId: string;
  url: string;
  state: HealthState | 'unreachable';
  failing: string[];
  fields: FieldHealth[];
  message?: string;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('check')
    .description("fetch every endpoint's page now and report field health (exit 1 when any is degraded or broken)")
    .argument('[apiId...]', 'only these endpoints (default: every active config)')
    .option('--json', 'machine output: one object per endpoint with its fields')
    .addHelpText('after', '\nExamples:\n  pagejson check\n  pagejson check books jobs --json\n  pagejson check || pagejson heal books')
    .action(async (apiIds: string[], options: { json?: boolean }, command: Command) => {
      const { project, set } = await loadProjectConfigs(command, ctx);
      for (const apiId of apiIds) {
        if (!set.configs.has(apiId))
          throw new PagejsonError('USAGE', `no config with apiId "${apiId}"`, {
            hint: `configs: ${[...set.configs.keys()].join(', ') || 'none'}`,
          });
      }
      const configs = [...set.configs.values()]
        .filter((config) => (apiIds.length > 0 ? apiIds.includes(config.apiId) : config.status === 'active'))
        .sort((a, b) => a.apiId.localeCompare(b.apiId));
      const [{ createLocalRetriever }, { readSnapshots }] = await Promise.all([
        import('../local-retriever.js'),
        import('../../core/health/index.js'),
      ]);
      // A thread per endpoint checked at once: a job's wait for a thread would count against its budget.
      const retriever = await createLocalRetriever(project, ctx.env, { threads: Math.min(CONCURRENCY, configs.length) || 1 });
      const progress = ctx.stderr.isTTY && ctx.interactive && !options.json;
      const results: Checked[] = [];
      let done = 0;
      const checkOne = async (config: ApiConfig): Promise<Checked> => {
        const values = exampleValues(config);
        const snapshot = (await readSnapshots(project.configsDir, config.apiId).catch(() => [])).at(0);
        try {
          const result = await retriever.retrieve(config, values, snapshot ? { expected: snapshot.record.data } : {});
          return {
            apiId: config.apiId,
            url: result.sourceUrl,
            state: result.health.state,
            failing: result.health.failing,
            fields: result.health.fields,
          };
        } catch (error) {
          const broken = isPagejsonError(error) && error.code === 'EXTRACTION_EMPTY';
          return {
            apiId: config.apiId,
            url: config.url,
            state: broken ? 'broken' : 'unreachable',
            failing: broken ? config.structure.map((field) => field.name) : [],
            fields: [],
            message: (error as Error).message,
          };
        } finally {
          done += 1;
          if (progress) ctx.stderr.write(`\rchecking ${done}/${configs.length} `);
        }
      };
      try {
        for (let start = 0; start < configs.length; start += CONCURRENCY)
          results.push(...(await Promise.all(configs.slice(start, start + CONCURRENCY).map(checkOne))));
      } finally {
        await retriever.close();
        if (progress) ctx.stderr.write('\r\u001b[K');
      }
      if (results.some((result) => result.state !== 'healthy')) ctx.exitCode = 1;
      if (options.json) return writeJson(ctx.stdout, { ok: ctx.exitCode !== 1, endpoints: results });
      if (results.length === 0) return writeLine(ctx.stdout, 'no active endpoints to check');
      const c = colors(ctx.stdout, ctx.env);
      const paint = (state: Checked['state']) =>
        state === 'healthy' ? c.green(state) : state === 'degraded' ? c.yellow(state) : c.red(state);
      writeLine(
        ctx.stdout,
        renderTable(
          ['endpoint', 'health', 'what failed', 'source'],
          results.map((result) => [
            result.apiId,
            paint(result.state),
            result.message ?? (result.state === 'healthy' ? '' : describeFailing(result.fields)),
            result.url,
          ]),
        ),
      );
      const unhealthy = results.filter((result) => result.state !== 'healthy');
      writeLine(
        ctx.stdout,
        unhealthy.length === 0
          ? c.green(`${results.length} endpoint${results.length === 1 ? '' : 's'} healthy`)
          : c.red(`${unhealthy.length} of ${results.length} endpoint${results.length === 1 ? '' : 's'} not healthy`),
      );
      if (unhealthy.length > 0)
        writeLine(
          ctx.stdout,
          `${c.dim('hint:')} the site may have changed: compare with \`pagejson run <apiId>\`, then fix the selectors with \`pagejson edit <apiId>\``,
        );
    });
}
