import type { Command } from 'commander';
import { formatCredits, fromMilli } from '../../core/shared/credit-amounts.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors, renderTable } from '../output.js';
import { projectFor } from '../project-option.js';
import { currentTableWidth } from '../table-width.js';
import { withStateClient } from '../state-session.js';
import type { ProjectSettings } from '../../core/config/index.js';
import type { BrowserProbe } from '../../core/fetch/index.js';

/** How long `status` waits for a remote browser to answer. */
const BROWSER_PROBE_MS = 15_000;

/**
 * `pagejson status [--json]`: the dashboard's view — per endpoint its status, source URL, scraper,
 * caching, session, dynamic variables, last fetch time and usage — whether a daemon is serving, and which
 * browser scraper 3 uses and whether it answers.
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('every endpoint: status, source, scraper, cache, session, dynamic, last fetch, usage')
    .option('--json', 'machine output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const project = await projectFor(command, ctx);
      const { mode, driver, driverUrl, endpoints } = await withStateClient(project, async (client) => ({
        mode: client.mode,
        driver: client.driver,
        driverUrl: client.driverUrl,
        endpoints: await client.status(),
      }));
      const daemon = mode === 'daemon';
      // Schedules, only when some config has one (reading them without a daemon opens a runtime).
      const { loadConfigDir } = await import('../../core/registry/load.js');
      const scheduled = [...(await loadConfigDir(project.configsDir)).configs.values()].some((config) => config.monitor);
      const monitors = scheduled
        ? await (await import('../watch-client.js')).withWatchClient(project, (client) => client.list(), ctx.env)
        : [];
      const monitorsOf = (apiId: string) => monitors.filter((m) => m.apiId === apiId).map(({ apiId: _apiId, ...rest }) => rest);
      const browser = await probeScraper3(project.settings, ctx.env);
      if (options.json) {
        return writeJson(ctx.stdout, {
          daemon,
          state: driver,
          browser,
          endpoints: endpoints.map((e) => ({
            ...e,
            usage: { ...e.usage, credits: fromMilli(e.usage.milliCredits) },
            monitors: monitorsOf(e.apiId),
          })),
        });
      }
      const c = colors(ctx.stdout, ctx.env);
      // With Redis the command reads the shared state itself, whether or not a daemon runs on this machine.
      if (driver === 'redis' && !daemon)
        writeLine(ctx.stdout, `state: Redis at ${driverUrl ?? 'PAGEJSON_REDIS_URL'} (shared by every daemon pointed at it)`);
      else
        writeLine(
          ctx.stdout,
          `daemon: ${daemon ? c.green('running') : c.dim('not running')}${driver === 'redis' ? ', state in Redis' : ''}`,
        );
      writeLine(
        ctx.stdout,
        `browser (scraper 3): ${browser.browser}, ${browser.answers ? c.green('answers') : c.red(`does not answer${browser.problem ? `: ${browser.problem}` : ''}`)}`,
      );
      if (endpoints.length === 0) return writeLine(ctx.stdout, 'no endpoints yet: create one with `pagejson generate <url>`');
      writeLine(
        ctx.stdout,
        renderTable(
          [
            'endpoint',
            'status',
            'health',
            'source',
            'scraper',
            'cache',
            'session',
            'dynamic',
            'last fetch',
            'last error',
            'monitor',
            'requests',
            'credits',
            'tokens',
          ],
          endpoints.map((e) => [
            e.apiId,
            e.status,
            healthCell(e, c),
            // Cut to its column where the table fits a width: the scheme takes room the address needs.
            currentTableWidth() === undefined ? e.sourceUrl : e.sourceUrl.replace(/^https?:\/\//, ''),
            `${e.scraper} (${e.scraperName})`,
            e.caching ? 'enabled' : 'disabled',
            e.session ? 'use session' : 'no session',
            e.dynamic ? e.variables.join(',') : 'disabled',
            e.lastFetchAt,
            e.lastError,
            monitorsOf(e.apiId)
              .map(
                (m) =>
                  `every ${m.every}, next ${m.nextRunAt.slice(11, 16)}${m.lastRunAt ? `, last ${m.lastRunAt.slice(11, 16)} ${m.lastOutcome}` : ', not run yet'}`,
              )
              .join('\n'),
            e.usage.requests,
            formatCredits(e.usage.milliCredits),
            e.usage.promptTokens + e.usage.completionTokens,
          ]),
          // One line an endpoint: thirteen of them wrapped to four lines each did not fit a terminal.
          { oneLine: true },
        ),
      );
    });
}

/** Which browser scraper 3 uses (pagejson.json's `browser`, PAGEJSON_BROWSER_URL) and whether it answers, asked from here. */
async function probeScraper3(settings: ProjectSettings, env: Record<string, string | undefined>): Promise<BrowserProbe> {
  const { createScraperPool, scraperOptionsFromSettings } = await import('../../core/fetch/index.js');
  const pool = createScraperPool(scraperOptionsFromSettings(settings.fetch, env, settings.browser));
  try {
    return await pool.probeBrowser(AbortSignal.timeout(BROWSER_PROBE_MS));
  } finally {
    await pool.close();
  }
}

/** `degraded since 2026-11-23 10:02 (books.price)`: the health, since when, and the fields that failed. */
export function healthCell(
  e: {
    apiId?: string;
    health: string | null;
    healthSince: string | null;
    failingFields: string[];
    repair?: { outcome: string; revision: number } | null;
  },
  c: ReturnType<typeof colors>,
): string {
  const proposed = e.repair?.outcome === 'proposed' ? `; repair proposed: pagejson heal ${e.apiId ?? '<apiId>'}` : '';
  if (!e.health) return proposed ? c.yellow(proposed.slice(2)) : '';
  if (e.health === 'healthy') return c.green('healthy');
  const since = e.healthSince ? ` since ${e.healthSince.slice(0, 16).replace('T', ' ')}` : '';
  const fields = e.failingFields.length > 0 ? ` (${e.failingFields.slice(0, 4).join(', ')}${e.failingFields.length > 4 ? ', …' : ''})` : '';
  return (e.health === 'broken' || e.health === 'blocked' ? c.red : c.yellow)(`${e.health}${since}${fields}${proposed}`);
}
