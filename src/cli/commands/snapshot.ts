import { relative } from 'node:path';
import type { Command } from 'commander';
import { checkVariableValues, exampleValues } from '../../core/config/url-template.js';
import { PagejsonError } from '../../core/shared/errors.js';
import { collectVar, loadProjectConfigs, parseVarAssignments, requireConfig } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';

/**
 * `pagejson snapshot <apiId> [--var NAME=VALUE]... [--json]`: fetch the endpoint's page now and keep it, with
 * the data extracted from it, under `configs/__snapshots__/<apiId>/`: the evidence `pagejson test` checks
 * the config against, offline, in CI.
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('snapshot')
    .description("fetch an endpoint's page and keep it with its extracted data under configs/__snapshots__/ (for `pagejson test`)")
    .argument('<apiId>', 'the endpoint to snapshot')
    .option(
      '--var <NAME=VALUE>',
      "a variable value (repeatable; default: the variable's example); a dynamic config gets one snapshot per set of values",
      collectVar,
      [],
    )
    .option('--json', 'print {apiId, name, url, dataFile, pageFile}')
    .addHelpText(
      'after',
      '\nExamples:\n  pagejson snapshot books\n  pagejson snapshot search --var q=shoes --var page=2\n  pagejson snapshot books && pagejson test books',
    )
    .action(async (apiId: string, options: { var: string[]; json?: boolean }, command: Command) => {
      const { project, set } = await loadProjectConfigs(command, ctx);
      const config = requireConfig(project, set, apiId, ctx.cwd);
      const values = { ...exampleValues(config), ...parseVarAssignments(options.var) };
      const problems = checkVariableValues(config, values);
      if (problems.length > 0)
        throw new PagejsonError('USAGE', problems.map((p) => p.message).join('; '), { hint: 'pass each variable as --var NAME=VALUE' });
      const [{ createLocalRetriever }, { writeSnapshot }] = await Promise.all([
        import('../local-retriever.js'),
        import('../../core/health/index.js'),
      ]);
      const retriever = await createLocalRetriever(project, ctx.env);
      try {
        const result = await retriever.retrieve(config, values);
        // A paginated config keeps every page its data holds (docs/pagination.md).
        const written = await writeSnapshot(
          project.configsDir,
          { apiId, revision: config.revision, url: result.sourceUrl, variables: values, data: result.data },
          result.html,
          result.morePages,
        );
        const show = (file: string) => relative(ctx.cwd, file) || file;
        if (options.json)
          return writeJson(ctx.stdout, {
            apiId,
            name: written.name,
            url: result.sourceUrl,
            dataFile: show(written.dataFile),
            pageFile: show(written.pageFile),
            ...(result.pages !== undefined ? { pages: result.pages, pageFiles: written.pageFiles.map(show) } : {}),
          });
        const more =
          written.pageFiles.length > 0
            ? ` (+ ${written.pageFiles.length} more page${written.pageFiles.length === 1 ? '' : 's'}: ${written.name}.page-*.html.gz)`
            : '';
        writeLine(ctx.stdout, `snapshot ${apiId}/${written.name}: ${show(written.dataFile)} and ${show(written.pageFile)}${more}`);
        if (result.partial)
          writeLine(
            ctx.stdout,
            `note: the pages were cut short (${result.partial === 'time' ? 'the time budget, fetch.timeoutMs, ended' : 'a later page failed'}); take the snapshot again when the site answers`,
          );
        writeLine(ctx.stdout, `next: commit them, and run \`pagejson test ${apiId}\` in CI`);
      } finally {
        await retriever.close();
      }
    });
}
