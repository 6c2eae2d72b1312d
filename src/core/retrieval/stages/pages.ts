import type { RetrievalContext } from '../context.js';
import type { RetrievalEnv } from '../env.js';

/**
 * Credits of a paginated endpoint (docs/pagination.md, docs/wire.md "Credits"): the request's price once per
 * page the answer holds, whether the answer comes from the source or the cache, so the price never depends on
 * the cache's state. The hold covers the most it can cost (maxPages pages); the settle keeps what it cost and
 * refunds the rest in the same step. An answer in memory knows its pages: its debit is final at once.
 */

/** price: a paginated request holds for its most pages. */
export function pricePages(ctx: RetrievalContext): void {
  const pagination = ctx.config.pagination;
  if (pagination) ctx.cost = ctx.pageCost * pagination.maxPages;
}

/** cache: an answer in memory costs the pages it holds, debited at once. */
export function priceInMemory(ctx: RetrievalContext): void {
  if (ctx.inMemory && ctx.config.pagination) ctx.cost = ctx.pageCost * ctx.inMemory.pages;
}

/** settle: what the answer cost, its pages; the hold (if any) settled at that, the rest refunded. */
export function settlePages(ctx: RetrievalContext, env: RetrievalEnv): Promise<void> | undefined {
  if (!ctx.config.pagination || ctx.answer === ctx.inMemory) return undefined;
  const held = ctx.cost;
  const cost = ctx.pageCost * ctx.answer!.pages;
  // With credits off nothing is held, and usage still records what the request would have cost.
  ctx.cost = Math.min(held, cost);
  const holdId = ctx.holdId;
  if (holdId === undefined) return undefined;
  return env.deps.store.settle(holdId, ctx.cost).then((balance) => {
    ctx.holdId = undefined;
    if (balance === undefined) return;
    ctx.creditsRemaining = balance;
    env.emit({ kind: 'refund', apiId: ctx.config.apiId, milliCredits: held - ctx.cost });
  });
}
