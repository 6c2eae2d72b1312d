import type { Command } from 'commander';
import type { ApiConfig } from '../../core/config/schema.js';
import { exampleValues } from '../../core/config/url-template.js';
import { isPagejsonError, PagejsonError } from '../../core/shared/errors.js';
import type { FieldHealth, Health, HealthState } from '../../core/health/field-health.js';
import type { EndpointObservation } from '../../core/state/types.js';
import { loadProjectConfigs } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors, renderTable } from '../output.js';
import { describeFailing } from './run.js';

/**
 * `pagejson check [apiId...] [--json]`: live. Fetches every endpoint's source now (variables from their
 * examples) and reports its health per endpoint and field, compared with its latest snapshot or, without
 * one, its generated sample. Exit 0 when all are healthy, 1 when any is degraded or broken (or its page
 * could not be fetched). Four endpoints run at a time, each runner taking the next when its last is done; the
 * per-origin queue keeps each site to fetch.perOriginConcurrency.
 */
const CONCURRENCY = 4;

interface Checked {
  apiId: string;
  url: string;
  state: HealthState | 'unreachable';
  failing: string[];
  /** What changed, field by field, in words. */
  findings: string[];
  fields: FieldHealth[];
  message?: string;
  /** Whether `heal` has last good values to repair from. */
  healable: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('check')
    .description("fetch every endpoint's page now and report field health (exit 1 when any is degraded or broken)")
    .argument('[apiId...]', 'only these endpoints (default: every active config)')
    .option('--json', 'machine output: one object per endpoint with its fields')
    .option(
      '--accept',
      "take what each endpoint's page gives now as good: its health baseline is learned anew from it (a change that is right)",
    )
    .addHelpText('after', '\nExamples:\n  pagejson check\n  pagejson check books jobs --json\n  pagejson check || pagejson heal books')
    .action(async (apiIds: string[], options: { json?: boolean; accept?: boolean }, command: Command) => {
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
      const [{ createLocalRetriever }, { loadBaselines, observationOf, recordObservations }] = await Promise.all([
        import('../local-retriever.js'),
        import('../endpoint-health.js'),
      ]);
      // The endpoint's baseline as the daemon judges with it (its status, else its snapshots and sample).
      const baselines = await loadBaselines(project, configs);
      // A thread per endpoint checked at once: a job's wait for a thread would count against its budget.
      const retriever = await createLocalRetriever(project, ctx.env, { threads: Math.min(CONCURRENCY, configs.length) || 1 });
      const progress = ctx.stderr.isTTY && ctx.interactive && !options.json;
      const results: Checked[] = [];
      const observations: EndpointObservation[] = [];
      let done = 0;
      // The model's tokens each endpoint's check spent, recorded in its usage afterwards (docs/models.md).
      const spent: Array<{ apiId: string; usage: unknown }> = [];
      const checkOne = async (config: ApiConfig): Promise<Checked> => {
        const values = exampleValues(config);
        const baseline = baselines.of(config);
        const healable = baseline !== undefined;
        try {
          const result = await retriever.retrieve(config, values, baseline ? { baseline } : {});
          spent.push({ apiId: config.apiId, usage: result.usage });
          if (options.accept) {
            // Accepted: this fetch is the one good observation the baseline starts again from.
            observations.push(await observationOf(config, { ...result, health: acceptedHealth(result.health) }, undefined));
            return { apiId: config.apiId, url: result.sourceUrl, ...acceptedHealth(result.health), healable };
          }
          observations.push(await observationOf(config, result, baseline));
          const { state, failing, findings, fields } = result.health;
          return { apiId: config.apiId, url: result.sourceUrl, state, failing, findings, fields, healable };
        } catch (error) {
          spent.push({ apiId: config.apiId, usage: error });
          const broken = isPagejsonError(error) && error.code === 'EXTRACTION_EMPTY';
          const context = broken ? error.context : {};
          const findings = Array.isArray(context.findings) ? (context.findings as string[]) : [];
          const message = isPagejsonError(error) ? `${error.code}: ${error.message}` : (error as Error).message;
          observations.push(
            await observationOf(config, { error: message, ...(broken ? { health: 'broken' as const, findings } : {}) }, baseline),
          );
          return {
            apiId: config.apiId,
            url: config.url,
            state: broken ? 'broken' : 'unreachable',
            failing: broken
              ? Array.isArray(context.missingRequired)
                ? (context.missingRequired as string[])
                : config.structure.map((field) => field.name)
              : [],
            findings,
            fields: [],
            message: findings.length > 0 ? findings.join('; ') : (error as Error).message,
            healable,
          };
        } finally {
          done += 1;
          if (progress) ctx.stderr.write(`\rchecking ${done}/${configs.length} `);
        }
      };
      try {
        // Each runner takes the next endpoint as soon as its last is done (batches waited for their slowest); the
        // scraper pool's per-origin queue keeps each site to fetch.perOriginConcurrency. Results keep the sorted order.
        let next = 0;
        const runner = async () => {
          for (let index = next++; index < configs.length; index = next++) results[index] = await checkOne(configs[index]!);
        };
        await Promise.all(Array.from({ length: Math.min(CONCURRENCY, configs.length) }, runner));
      } finally {
        await retriever.close();
        if (progress) ctx.stderr.write('\r\u001b[K');
      }
      const { recordCommandTokens } = await import('./generate-credits.js');
      for (const { apiId, usage } of spent) await recordCommandTokens(project, apiId, usage);
      // The last fetch, the health and the learned baseline go into each endpoint's status (the dashboard's "last fetch").
      if (baselines.stateRead) await recordObservations(project, observations, ctx);
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
            result.message ?? (result.state === 'healthy' ? '' : describeFailing(result)),
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
      if (unhealthy.length > 0) writeLine(ctx.stdout, `${c.dim('hint:')} ${checkHint(unhealthy)}`);
    });
}

/** The way out: `heal` for endpoints it can repair (they have last good values), `edit` for the others. */
function checkHint(unhealthy: Checked[]): string {
  const healable = unhealthy.filter((result) => result.healable && result.state !== 'unreachable').map((result) => result.apiId);
  if (healable.length > 0)
    return `the site may have changed: repair the selectors with ${healable
      .slice(0, 3)
      .map((apiId) => `\`pagejson heal ${apiId}\``)
      .join(', ')}${healable.length > 3 ? ' (and the others)' : ''}; or fix them by hand with \`pagejson edit <apiId>\``;
  return 'the site may have changed: compare with `pagejson run <apiId>`, then fix the selectors with `pagejson edit <apiId>` (take a `pagejson snapshot` while it works, so `heal` can repair it next time)';
}

/** A judgement taken as good (`--accept`): healthy, its fields without problems. */
function acceptedHealth(health: Health): Health & Pick<Checked, 'state' | 'failing' | 'findings' | 'fields'> {
  return {
    state: 'healthy',
    failing: [],
    findings: [],
    fields: health.fields.map(({ problem: _problem, message: _message, ...field }) => field),
    // What the page gives now is taken as whole: a list read short on purpose is the length from now on.
    ...(health.read ? { read: { ...health.read, whole: true } } : {}),
  };
}
