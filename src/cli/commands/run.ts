import type { Command } from 'commander';
import { checkVariableValues, exampleValues, callerVariableNames } from '../../core/config/url-template.js';
import { PagejsonError } from '../../core/shared/errors.js';
import { collectVar, loadProjectConfigs, parseScraperNumber, parseVarAssignments, requireConfig } from '../config-files.js';
import { writeJson, type CliContext } from '../context.js';

interface RunOptions {
  var: string[];
  scraper?: 1 | 2 | 3;
  json?: boolean;
}

/**
 * `pagejson run <apiId> [--var NAME=VALUE]... [--scraper 1|2|3] [--json]`: one real retrieval in this
 * process (no daemon, no credits, no cache), with the project's fetch settings. Prints `data`; with --json
 * the URL fetched, the final URL and the time too. Variables default to each variable's `example`.
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('run')
    .description('fetch and extract one endpoint now, in-process (no daemon, no credits), and print its data')
    .argument('<apiId>', 'the endpoint to run')
    .option('--var <NAME=VALUE>', "a variable value (repeatable; default: the variable's example)", collectVar, [])
    .option('--scraper <n>', "use scraper 1, 2 or 3 for this run instead of the config's", parseScraperNumber)
    .option(
      '--json',
      'print {data, sourceUrl, finalUrl, fetchedAt, scraper} (and pages, pageUrls, partial when paginated) instead of data alone',
    )
    .action(async (apiId: string, options: RunOptions, command: Command) => {
      const { project, set } = await loadProjectConfigs(command, ctx);
      const config = requireConfig(project, set, apiId, ctx.cwd);
      const values = { ...exampleValues(config), ...parseVarAssignments(options.var) };
      const problems = checkVariableValues(config, values);
      if (problems.length > 0) {
        const names = callerVariableNames(config);
        throw new PagejsonError('USAGE', problems.map((p) => p.message).join('; '), {
          context: { problems },
          hint:
            names.length > 0
              ? `variables of ${apiId}: ${names.join(', ')}; pass them as --var NAME=VALUE`
              : `${apiId} has no variables: drop --var`,
        });
      }
      const scraperNumber = options.scraper ?? config.scraper;
      // Loaded here, not at the top: `pagejson --help` and `validate` should not pay for parsers and scrapers.
      const { createLocalRetriever } = await import('../local-retriever.js');
      const retriever = await createLocalRetriever(project, ctx.env);
      const spinner = await startSpinner(ctx, `fetching ${apiId} with scraper ${scraperNumber}`);
      try {
        const result = await retriever.retrieve(config, values, { scraper: scraperNumber });
        spinner?.stop();
        if (options.json) {
          writeJson(ctx.stdout, {
            data: result.data,
            sourceUrl: result.sourceUrl,
            finalUrl: result.finalUrl,
            fetchedAt: result.fetchedAt.toISOString(),
            scraper: scraperNumber,
            health: result.health,
            ...pagesOf(result),
          });
        } else {
          writeJson(ctx.stdout, result.data);
          if (result.pages !== undefined) ctx.stderr.write(`${describePages(result)}\n`);
          // Drift: the data still comes, but fields that used to extract no longer do.
          if (result.health.state !== 'healthy') {
            ctx.stderr.write(`health: ${result.health.state}: ${describeFailing(result.health.fields)}\n`);
            ctx.stderr.write(`hint: the page may have changed; \`pagejson check ${apiId}\` compares every endpoint with the live site\n`);
          }
        }
      } finally {
        spinner?.stop();
        await retriever.close();
      }
    });
}

/** A paginated config's pages (docs/pagination.md): how many, whether cut short, and their addresses. */
function pagesOf(result: {
  pages?: number;
  partial?: string;
  sourceUrl: string;
  morePages?: ReadonlyArray<{ url: string }>;
}): Record<string, unknown> {
  if (result.pages === undefined) return {};
  return {
    pages: result.pages,
    pageUrls: [result.sourceUrl, ...(result.morePages ?? []).map((page) => page.url)],
    ...(result.partial ? { partial: result.partial } : {}),
  };
}

function describePages(result: { pages?: number; partial?: string }): string {
  const cut =
    result.partial === 'time'
      ? ': cut short by the time budget (fetch.timeoutMs)'
      : result.partial === 'error'
        ? ': cut short, a later page failed'
        : '';
  return `pages: ${result.pages}${cut}`;
}

/** A spinner on a terminal only: pipes and CI logs get nothing but the result. */
async function startSpinner(ctx: CliContext, text: string): Promise<{ stop(): void } | undefined> {
  if (!ctx.stderr.isTTY || !ctx.interactive) return undefined;
  const { default: ora } = await import('ora');
  return ora({ text, stream: ctx.stderr }).start();
}

/** `books emptied (had 20 items), title emptied`: the failing fields in words. */
export function describeFailing(fields: Array<{ path: string; problem?: string; expectedItems?: number }>): string {
  return (
    fields
      .filter((field) => field.problem !== undefined)
      .map((field) =>
        field.problem === 'array-emptied'
          ? `${field.path} emptied (had ${field.expectedItems} items)`
          : field.problem === 'required-empty'
            ? `${field.path} (required) empty`
            : `${field.path} emptied`,
      )
      .join(', ') || 'most fields came out empty'
  );
}
