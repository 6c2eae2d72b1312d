import type { Command } from 'commander';
import { checkVariableValues, exampleValues, callerVariableNames } from '../../core/config/url-template.js';
import { isPagejsonError, PagejsonError } from '../../core/shared/errors.js';
import type { RetrieveResult } from '../../core/retrieval/retrieve.js';
import type { EndpointObservation } from '../../core/state/types.js';
import { collectVar, loadProjectConfigs, parseScraperNumber, parseVarAssignments, requireConfig } from '../config-files.js';
import { writeJson, type CliContext } from '../context.js';
import type { PageCharset } from '../../core/fetch/scrapers/types.js';

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
      const [{ createLocalRetriever }, { loadBaselines, observationOf, recordObservations }] = await Promise.all([
        import('../local-retriever.js'),
        import('../endpoint-health.js'),
      ]);
      // Judged as the daemon judges it: against the endpoint's baseline (its status, else its snapshots and sample).
      const baselines = await loadBaselines(project, [config]);
      const baseline = baselines.of(config);
      const retriever = await createLocalRetriever(project, ctx.env);
      const spinner = await startSpinner(ctx, `fetching ${apiId} with scraper ${scraperNumber}`);
      let observation: EndpointObservation | undefined;
      // The model's tokens go into the endpoint's usage, as the daemon's retrievals' do (docs/models.md).
      let spent: unknown;
      try {
        const result = await retriever.retrieve(config, values, { scraper: scraperNumber, ...(baseline ? { baseline } : {}) });
        spent = result.usage;
        spinner?.stop();
        // Only the config's own page and scraper say how the endpoint is (a one-off --var or --scraper does not).
        if (options.var.length === 0 && options.scraper === undefined) observation = await observationOf(config, result, baseline);
        printResult(ctx, apiId, scraperNumber, result, options.json === true);
      } catch (error) {
        spent = error;
        if (isPagejsonError(error) && error.code === 'EXTRACTION_EMPTY' && options.var.length === 0 && options.scraper === undefined) {
          const findings = Array.isArray(error.context.findings) ? (error.context.findings as string[]) : [];
          observation = await observationOf(config, { error: `${error.code}: ${error.message}`, health: 'broken', findings }, baseline);
        }
        throw error;
      } finally {
        spinner?.stop();
        // Also when nothing extracted: a page built by scripts is why, often (page-notes.ts).
        const page = retriever.firstPage();
        if (page) await notePage(ctx, page, scraperNumber, apiId);
        await retriever.close();
        // The endpoint's last fetch and health, as the dashboard and `status` show them.
        if (observation && baselines.stateRead) await recordObservations(project, [observation], ctx);
        const { recordCommandTokens } = await import('./generate-credits.js');
        await recordCommandTokens(project, apiId, spent);
      }
    });
}

function printResult(ctx: CliContext, apiId: string, scraperNumber: number, result: RetrieveResult, json: boolean): void {
  if (json) {
    return writeJson(ctx.stdout, {
      data: result.data,
      sourceUrl: result.sourceUrl,
      finalUrl: result.finalUrl,
      fetchedAt: result.fetchedAt.toISOString(),
      scraper: scraperNumber,
      health: result.health,
      ...(result.charset ? { charset: result.charset } : {}),
      ...pagesOf(result),
    });
  }
  writeJson(ctx.stdout, result.data);
  if (result.pages !== undefined) ctx.stderr.write(`${describePages(result)}\n`);
  // Drift: the data still comes, but fields that used to extract no longer do.
  if (result.health.state !== 'healthy') {
    ctx.stderr.write(`health: ${result.health.state}: ${describeFailing(result.health)}\n`);
    ctx.stderr.write(`hint: the page may have changed; \`pagejson heal ${apiId}\` repairs the selectors from the last good values\n`);
  }
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

/** A guessed charset, a page built by scripts read without a browser (page-notes.ts). */
async function notePage(
  ctx: CliContext,
  page: { charset?: PageCharset; readonly html: string },
  scraper: 1 | 2 | 3,
  apiId: string,
): Promise<void> {
  const { writePageNotes } = await import('../page-notes.js');
  writePageNotes(ctx, page, scraper, `\`pagejson run ${apiId} --scraper 3\`, then \`pagejson edit ${apiId}\` to keep it`);
}

/** A spinner on a terminal only: pipes and CI logs get nothing but the result. */
async function startSpinner(ctx: CliContext, text: string): Promise<{ stop(): void } | undefined> {
  if (!ctx.stderr.isTTY || !ctx.interactive) return undefined;
  const { default: ora } = await import('ora');
  return ora({ text, stream: ctx.stderr }).start();
}

/** The findings in words (`price: empty in 1 of 1 (was filled in 5 of 5)`), one judgement's (health/field-health.ts). */
export function describeFailing(health: { findings?: string[] }): string {
  return (health.findings ?? []).join('; ') || 'most fields came out empty';
}
