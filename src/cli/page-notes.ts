import type { PageCharset } from '../core/fetch/scrapers/types.js';
import { scriptBuiltSignal } from '../core/fetch/net/script-built.js';
import { writeLine, type CliContext } from './context.js';

/**
 * What a fetched page says about itself that the person running `generate` or `run` should know, on stderr
 * (stdout stays the data or the config): a charset the page did not declare and was guessed, and a page whose
 * content its scripts build, read with a scraper that runs none (scraper 3 would see it).
 */
export function writePageNotes(
  ctx: CliContext,
  page: { charset?: PageCharset | undefined; readonly html: string },
  scraper: 1 | 2 | 3,
  retry: string,
): void {
  if (page.charset) writeLine(ctx.stderr, `charset: the page declares none; read as ${page.charset.encoding}, as browsers guess it`);
  if (scraper === 3) return;
  const signal = scriptBuiltSignal(page.html);
  if (!signal) return;
  writeLine(ctx.stderr, `note: this page looks built by JavaScript: ${signal.reason}; scraper ${scraper} runs no scripts`);
  writeLine(ctx.stderr, `hint: try scraper 3 (a headless browser): ${retry}`);
}
