import { CommanderError } from 'commander';
import { isPagejsonError, type PagejsonError } from '../core/shared/errors.js';
import type { CliContext } from './context.js';
import { colors } from './output.js';

/**
 * The CLI's only error printer: one line saying what went wrong, one saying what to do.
 * Exit codes: 1 failure, 2 usage error, 130 cancelled with Ctrl-C in a prompt. Stack traces only with PAGEJSON_DEBUG=1.
 */
/** What the user wrote was wrong (a flag, an argument naming nothing): exit 2. Everything else failed: exit 1. */
const USAGE_CODES = new Set<string>(['USAGE', 'CONFIG_NOT_FOUND', 'KEY_NOT_FOUND']);

export function handleCliError(error: unknown, ctx: CliContext): number {
  if (error instanceof CommanderError) {
    // commander has already printed its message (usage errors, --help, --version).
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) return 0;
    return 2;
  }
  const c = colors(ctx.stderr, ctx.env);
  // Ctrl-C in a prompt: the user chose to stop. One line, no "unexpected failure", the shell's code for SIGINT.
  if ((error as Error | undefined)?.name === 'ExitPromptError') {
    ctx.stderr.write('cancelled: nothing was written\n');
    return 130;
  }
  if (isPagejsonError(error)) {
    ctx.stderr.write(`${c.red('error:')} ${describe(error)}\n`);
    if (error.hint) ctx.stderr.write(`${c.dim('hint:')} ${error.hint}\n`);
    if (ctx.env.PAGEJSON_DEBUG && error.stack) ctx.stderr.write(`${error.stack}\n`);
    return USAGE_CODES.has(error.code) ? 2 : 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  ctx.stderr.write(`${c.red('error:')} unexpected failure: ${message}\n`);
  ctx.stderr.write(`${c.dim('hint:')} run again with PAGEJSON_DEBUG=1 for details, and report it if it persists\n`);
  if (ctx.env.PAGEJSON_DEBUG && error instanceof Error && error.stack) ctx.stderr.write(`${error.stack}\n`);
  return 1;
}

/** A fetch failure names the page and the scraper (src/core/scrapers/index.ts puts them in the context). */
function describe(error: PagejsonError): string {
  const url = error.context.fetchUrl;
  const scraper = error.context.scraper;
  if (typeof url !== 'string' || typeof scraper !== 'string') return error.message;
  return `could not fetch ${url} with scraper ${scraper}: ${error.message}`;
}
