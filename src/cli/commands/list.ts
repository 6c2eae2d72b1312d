import type { Command } from 'commander';
import { callerVariableNames } from '../../core/config/url-template.js';
import type { ApiConfig } from '../../core/config/schema.js';
import { displayPath, loadProjectConfigs } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors, renderTable } from '../output.js';

/** What `list --json` prints per endpoint: what a script needs to pick one, not the whole structure. */
export function endpointSummary(config: ApiConfig, file: string, cwd: string): Record<string, unknown> {
  const variables = callerVariableNames(config);
  return {
    apiId: config.apiId,
    revision: config.revision,
    status: config.status,
    method: variables.length > 0 ? 'POST' : 'GET',
    path: `/external/${config.apiId}`,
    url: config.url,
    variables,
    scraper: config.scraper,
    session: config.session,
    caching: config.caching,
    model: config.model,
    selector: config.selector,
    fields: config.structure.length,
    file: displayPath(file, cwd),
  };
}

/** `pagejson list [--json]`: every valid config of the project; invalid ones are counted on stderr. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('list')
    .description('list the endpoints (configs) of the project')
    .option('--json', 'print machine-readable JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { set } = await loadProjectConfigs(command, ctx);
      const configs = [...set.configs.values()].sort((a, b) => a.apiId.localeCompare(b.apiId));
      if (options.json) {
        writeJson(
          ctx.stdout,
          configs.map((config) => endpointSummary(config, set.files.get(config.apiId)!, ctx.cwd)),
        );
      } else if (configs.length === 0) {
        writeLine(ctx.stdout, 'no configs yet: create one with `pagejson generate <url>`');
      } else {
        const c = colors(ctx.stdout, ctx.env);
        const rows = configs.map((config) => {
          const dynamic = callerVariableNames(config).length > 0;
          return [
            c.bold(config.apiId),
            config.status === 'active' ? c.green('active') : c.yellow('inactive'),
            dynamic ? 'POST' : 'GET',
            config.url,
            config.scraper,
            config.caching ? 'on' : 'off',
            config.session ? 'on' : 'off',
            config.structure.length,
          ];
        });
        writeLine(ctx.stdout, renderTable(['apiId', 'status', 'method', 'source url', 'scraper', 'cache', 'session', 'fields'], rows));
      }
      const invalid = new Set(set.problems.map((p) => p.file)).size;
      if (invalid > 0) {
        const c = colors(ctx.stderr, ctx.env);
        writeLine(
          ctx.stderr,
          c.yellow(`${invalid} invalid config file${invalid === 1 ? '' : 's'} skipped: run \`pagejson validate\` for details`),
        );
      }
    });
}
