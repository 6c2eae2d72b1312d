import type { RetrievalContext } from '../context.js';
import type { RetrievalEnv } from '../env.js';

/**
 * Credits of a paginated endpoint (docs/pagination.md, docs/wire.md "Credits"): the request's price once per
 * page the answer holds, whether the answer comes from the source or the cache, so the price never depends on
 * the cache's state. The hold covers the most it can cost (maxPages pages); the settle keeps what it cost and
 * refunds the rest in the same step. An answer in memory knows its pages: its debit is final at once.
 * `credits.hit` in pagejson.json prices an answer from the cache apart: that price, whatever its pages.
 */

/** price: a paginated request holds for its most pages. */
export function pricePages(ctx: RetrievalContext): void {
  const pagination = ctx.config.pagination;
  if (pagination) ctx.cost = ctx.pageCost * pagination.maxPages;
}

/** cache: an answer in memory costs the cache-hit price, or the pages it holds; debited at once. */
export function priceInMemory(ctx: RetrievalContext, env: RetrievalEnv): void {
  if (!ctx.inMemory) return;
  const hit = env.deps.credits.hitMilliCredits;
  if (hit !== undefined) ctx.cost = hit;
  else if (ctx.config.pagination) ctx.cost = ctx.pageCost * ctx.inMemory.pages;
}

/** What the answer cost: the cache-hit price for one from the cache (when set), else its pages at the page price. */
function answeredCost(ctx: RetrievalContext, env: RetrievalEnv): number {
  const answer = ctx.answer!;
  const hit = env.deps.credits.hitMilliCredits;
  if (hit !== undefined && (answer.state === 'HIT' || answer.state === 'STALE')) return hit;
  return ctx.config.pagination ? ctx.pageCost * answer.pages : ctx.pageCost;
}

/** settle: the hold (if any) settled at what the answer cost, the rest refunded in the same step. */
export function settleAnswered(ctx: RetrievalContext, env: RetrievalEnv): Promise<void> | undefined {
  if (ctx.answer === ctx.inMemory) return undefined;
  const held = ctx.cost;
  // With credits off nothing is held, and usage still records what the request would have cost.
  ctx.cost = Math.min(held, answeredCost(ctx, env));
  const holdId = ctx.holdId;
  if (holdId === undefined) return undefined;
  if (ctx.cost === held) {
    return env.deps.store.settle(holdId).then(() => {
      ctx.holdId = undefined;
    });
  }
  return env.deps.store.settle(holdId, ctx.cost).then((balance) => {
    ctx.holdId = undefined;
    if (balance === undefined) return;
    ctx.creditsRemaining = balance;
    env.emit({ kind: 'refund', apiId: ctx.config.apiId, milliCredits: held - ctx.cost });
  });
}
