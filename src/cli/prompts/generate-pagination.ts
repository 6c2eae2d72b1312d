import type { ApiConfig } from '../../core/config/schema.js';
import type { NextLinkProposal } from '../../core/generation/next-link.js';
import { writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';

/**
 * `generate`'s pagination proposal (docs/pagination.md): a page with a recognisable next link gets
 * `pagination.next`, so the endpoint reads the whole list and not its first page. Shown under the structure;
 * on a terminal the user is asked whether to keep it, elsewhere it is kept unless `--no-paginate` was given.
 */
export async function offerPagination(
  config: ApiConfig,
  nextLink: NextLinkProposal | undefined,
  ctx: CliContext,
  options: { asking: boolean; json: boolean },
): Promise<ApiConfig> {
  // The proposal is in the config; `nextLink` (where it leads) only says more when the pipeline gave it.
  const next = config.pagination?.next;
  if (next === undefined) return config;
  const out = colors(ctx.stdout, ctx.env);
  const pages = config.pagination!.maxPages;
  if (!options.json) {
    const where = nextLink ? ` ${out.dim(`(page 2: ${nextLink.href})`)}` : '';
    writeLine(
      ctx.stdout,
      `${out.bold('pagination')}  follow the next link ${out.cyan(next)}${where}, up to ${pages} pages, each costing the price of a request`,
    );
    if (!options.asking) writeLine(ctx.stdout, out.dim('  (--no-paginate leaves it out)'));
    writeLine(ctx.stdout);
  }
  if (!options.asking) return config;
  const { confirm, GoBack } = await import('./ask.js');
  const keep = await confirm({
    message: `This page links to a next page. Read the list over its pages (up to ${pages})?`,
    default: true,
  }).catch((error: unknown) => {
    if (error instanceof GoBack) return true;
    throw error;
  });
  if (keep) return config;
  const { pagination: _dropped, ...rest } = config;
  return rest;
}
