import type { Command } from 'commander';
import type { Field } from '../../core/config/schema.js';
import { callerVariableNames } from '../../core/config/url-template.js';
import { exampleRequest } from '../../core/config/example-request.js';
import { accessRows, withAccessShown } from '../../core/config/access-display.js';
import { loginRows, withLoginShown } from '../../core/config/login-display.js';
import { scraperByNumber } from '../../core/fetch/scrapers/types.js';
import { displayPath, loadProjectConfigs, requireConfig } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import { actionLines } from '../show-actions.js';

/** `pagejson show <apiId> [--json]`: one config, with defaults filled in, and how to call it. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('show')
    .description('show one endpoint: its settings, structure and an example request')
    .argument('<apiId>', 'the endpoint to show')
    .option('--json', 'print the config as JSON, defaults filled in')
    .action(async (apiId: string, options: { json?: boolean }, command: Command) => {
      const { project, set } = await loadProjectConfigs(command, ctx);
      const config = requireConfig(project, set, apiId, ctx.cwd);
      if (options.json) {
        // Templates as written, a credential written into the file masked (docs/security.md).
        writeJson(ctx.stdout, withLoginShown(withAccessShown(config)));
        return;
      }
      const c = colors(ctx.stdout, ctx.env);
      const variables = callerVariableNames(config);
      const { host, port } = project.settings.server;
      const scraper = scraperByNumber(config.scraper);
      const rows: Array<[string, string]> = [
        ['file', displayPath(set.files.get(apiId)!, ctx.cwd)],
        ['revision', String(config.revision)],
        ['status', config.status === 'active' ? c.green('active') : c.yellow('inactive')],
        ['source url', config.url],
        ['scraper', `${config.scraper} (${scraper.name}: ${scraper.description})`],
        ['session', config.session ? 'use session' : 'no session'],
        ['caching', config.caching ? `enabled (${project.settings.cache.freshMinutes} min)` : 'disabled'],
        ['model', config.model],
        ['selector', config.selector],
        ['rule', config.rule ?? '-'],
      ];
      if (config.pagination) {
        // The pagination module holds its zod schema: loaded when a config has pagination, not at every CLI start.
        const { describePagination } = await import('../../core/config/pagination.js');
        rows.push(['pagination', describePagination(config.pagination)]);
      }
      rows.push(...accessRows(config));
      rows.push(...loginRows(config));
      for (const name of variables) {
        const variable = config.variables[name];
        rows.push([`variable ${name}`, `example "${variable?.example ?? ''}"${variable?.pattern ? `, pattern ${variable.pattern}` : ''}`]);
      }
      writeLine(ctx.stdout, c.bold(config.apiId));
      for (const [key, value] of rows) writeLine(ctx.stdout, `  ${c.dim(key.padEnd(12))} ${value}`);
      writeLine(ctx.stdout);
      writeLine(ctx.stdout, c.bold('structure'));
      for (const line of structureLines(config.structure, '  ')) writeLine(ctx.stdout, line);
      for (const line of actionLines(config.actions, c.bold)) writeLine(ctx.stdout, line);
      writeLine(ctx.stdout);
      writeLine(ctx.stdout, c.bold('request'));
      writeLine(ctx.stdout, `  ${exampleRequest(config, `http://${host}:${port}`)}`);
    });
}

function structureLines(fields: Field[], indent: string): string[] {
  const lines: string[] = [];
  for (const field of fields) {
    const type = field.type === 'array' && field.items ? `array of ${field.items.type}` : field.type;
    const where = field.selector ? `${field.selector}${field.attribute ? ` @${field.attribute}` : ''}` : '(model field)';
    const extras = [field.transform?.length ? `transform ${field.transform.join(', ')}` : '', field.required ? 'required' : '']
      .filter(Boolean)
      .join('; ');
    lines.push(`${indent}${field.name}: ${type}  ${where}${extras ? `  [${extras}]` : ''}`);
    if (field.fields) lines.push(...structureLines(field.fields, `${indent}  `));
  }
  return lines;
}
