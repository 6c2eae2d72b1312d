import type { Project } from '../../core/config/project.js';
import type { ApiConfig } from '../../core/config/schema.js';
import { actionSteps } from '../../core/config/action-text.js';
import { resolveSourceUrl, exampleValues } from '../../core/config/url-template.js';
import { validateSelector } from '../../core/extract/engine/dom.js';
import type { PageProbe } from '../../core/extract/workers/page-probe.js';
import { writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import { confirm, input } from './ask.js';
import { accessOf } from '../../core/fetch/net/access-of.js';
import { loginOf } from '../../core/fetch/login/login-of.js';
import { cliLogins } from '../login-sessions.js';
import { startSpinner } from '../spinner.js';

/**
 * The page an edit session shows samples from: fetched once, parsed once in a thread of its own within the
 * project's document limits, and every selector tried there with the extraction budget (page-probe.ts), so a
 * hostile page or selector shows the budget's error instead of holding the editor (issue 40).
 */
export interface SamplePage {
  probe?: PageProbe;
  finalUrl?: string;
  error?: string;
}

/** A fetched page, parsed in its probe thread; a page past the limits (or the budget) has no samples, and says why. */
export async function probePage(page: { html: string; finalUrl: string }, apiId: string, project: Project): Promise<SamplePage> {
  const { createPageProbe } = await import('../../core/extract/workers/page-probe.js');
  const { timeoutMs, maxDepth, maxElements } = project.settings.extraction;
  let probe: PageProbe | undefined;
  try {
    probe = createPageProbe(page, { apiId, timeoutMs, limits: { maxDepth, maxElements } });
    await probe.ready();
    return { probe, finalUrl: page.finalUrl };
  } catch (error) {
    await probe?.close();
    return { error: (error as Error).message };
  }
}

export async function loadSamplePage(config: ApiConfig, project: Project, ctx: CliContext): Promise<SamplePage> {
  const spinner = await startSpinner(ctx, `fetching ${config.apiId} for a live sample`);
  const { createScraperPool, scraperOptionsFromSettings } = await import('../../core/fetch/scrapers/index.js');
  const pool = createScraperPool({
    ...scraperOptionsFromSettings(project.settings.fetch, ctx.env, project.settings.browser),
    logins: await cliLogins(project, ctx.env),
  });
  try {
    const url = resolveSourceUrl(config, exampleValues(config));
    const result = await pool
      .get(config.scraper)
      .fetch({ url, session: config.session, ...accessOf(config), ...loginOf(config), ...actionSteps(config, exampleValues(config)) });
    spinner.stop();
    return await probePage(result, config.apiId, project);
  } catch (error) {
    return { error: `the page could not be fetched: ${(error as Error).message}` };
  } finally {
    spinner.stop();
    await pool.close();
  }
}

/** Errors of the page's work (its budget, its limits) are told; a half-made structure that cannot compile is not. */
const PAGE_WORK_CODES = new Set(['EXTRACTION_TIMEOUT', 'EXTRACTION_LIMIT', 'EXTRACTION_FAILED']);

/**
 * The data the config would return for the sample page: none while a half-made structure cannot compile, and
 * none, with the reason, when the page's work fails (a selector past the extraction budget).
 */
export async function sampleData(config: ApiConfig, page: SamplePage): Promise<{ data?: unknown; error?: string }> {
  if (!page.probe) return {};
  try {
    return { data: await page.probe.sample(config) };
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code !== undefined && PAGE_WORK_CODES.has(code) ? { error: (error as Error).message } : {};
  }
}

export async function previewMatches(
  page: SamplePage,
  selector: string,
  attribute?: string,
): Promise<{ count: number; values: string[]; error?: string }> {
  const problem = validateSelector(selector);
  if (problem) return { count: 0, values: [], error: `the selector does not parse: ${problem}` };
  if (!page.probe) return { count: 0, values: [] };
  try {
    return await page.probe.preview(selector, attribute);
  } catch (error) {
    return { count: 0, values: [], error: `the selector could not be tried on the page: ${(error as Error).message}` };
  }
}

/** Ask for a selector (the section, a next link, a button) and show what it matches on the page before it is accepted. */
export async function askSelector(page: SamplePage, ctx: CliContext, options: { message: string; default?: string }): Promise<string> {
  const c = colors(ctx.stdout, ctx.env);
  for (;;) {
    const selector = (await input({ message: options.message, ...(options.default ? { default: options.default } : {}) })).trim();
    if (!selector) continue;
    const preview = await previewMatches(page, selector);
    if (preview.error) {
      writeLine(ctx.stdout, c.red(preview.error));
      continue;
    }
    writeLine(
      ctx.stdout,
      `${c.cyan(`${preview.count} match${preview.count === 1 ? '' : 'es'} on the page`)}${preview.values.length ? `: ${preview.values.map((v) => JSON.stringify(v)).join(', ')}` : ''}`,
    );
    if (page.error || (await confirm({ message: 'Use this selector?', default: preview.count > 0 }))) return selector;
  }
}
