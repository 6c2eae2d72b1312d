import type { Project } from '../../core/config/project.js';
import type { ApiConfig } from '../../core/config/schema.js';
import { actionSteps } from '../../core/config/action-text.js';
import { resolveSourceUrl, exampleValues } from '../../core/config/url-template.js';
import { compileStructure, parseHtml, previewSelector, validateSelector, type HtmlDocument } from '../../core/extract/engine/index.js';
import type { CliContext } from '../context.js';
import { accessOf } from '../../core/fetch/net/access-of.js';
import { startSpinner } from '../spinner.js';

/** The page an edit session shows samples from: fetched once, parsed once, reused for every redraw. */
export interface SamplePage {
  html?: string;
  doc?: HtmlDocument;
  finalUrl?: string;
  error?: string;
}

export async function loadSamplePage(config: ApiConfig, project: Project, ctx: CliContext): Promise<SamplePage> {
  const spinner = await startSpinner(ctx, `fetching ${config.apiId} for a live sample`);
  const { createScraperPool, scraperOptionsFromSettings } = await import('../../core/fetch/scrapers/index.js');
  const pool = createScraperPool(scraperOptionsFromSettings(project.settings.fetch, ctx.env));
  try {
    const url = resolveSourceUrl(config, exampleValues(config));
    const result = await pool
      .get(config.scraper)
      .fetch({ url, session: config.session, ...accessOf(config), ...actionSteps(config, exampleValues(config)) });
    return { html: result.html, doc: parseHtml(result.html), finalUrl: result.finalUrl };
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    spinner.stop();
    await pool.close();
  }
}

/** The data the config would return for the sample page; undefined while a half-made structure cannot compile. */
export function sampleData(config: ApiConfig, page: SamplePage): unknown {
  if (page.html === undefined || page.finalUrl === undefined) return undefined;
  try {
    return compileStructure({ selector: config.selector, structure: config.structure }).extract(page.html, page.finalUrl).data;
  } catch {
    return undefined;
  }
}

export function previewMatches(
  page: SamplePage,
  selector: string,
  attribute?: string,
): { count: number; values: string[]; error?: string } {
  const problem = validateSelector(selector);
  if (problem) return { count: 0, values: [], error: `the selector does not parse: ${problem}` };
  if (!page.doc) return { count: 0, values: [] };
  const values = previewSelector(page.doc, selector, {
    limit: 10_000,
    ...(attribute ? { attribute } : {}),
    ...(page.finalUrl ? { baseUrl: page.finalUrl } : {}),
  });
  return { count: values.length, values: values.slice(0, 3) };
}
