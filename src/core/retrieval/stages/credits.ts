import { randomUUID } from 'node:crypto';
import { retrievalCost } from '../../access/index.js';
import { PagejsonError, wireText } from '../../shared/index.js';
import type { RetrievalContext } from '../context.js';
import type { RetrievalEnv } from '../env.js';
import { pricePages, settleAnswered } from './pages.js';

/**
 * The stages about credits. The debit is final at once for an answer already in memory (it cannot fail);
 * anything else holds it (the store remembers the hold with the debit, in the same write) until `settle`, or
 * until a failure of the service releases it (failure.ts). Either applies synchronously inside the store, so no
 * await separates the balance check from the debit.
 */

/** price: the cost, and the key's account made on first sight. */
export function price(ctx: RetrievalContext, env: RetrievalEnv): Promise<void> | undefined {
  ctx.cost = ctx.pageCost = retrievalCost(ctx.config.scraper);
  pricePages(ctx);
  const account = ctx.key.account;
  if (env.ensuredAccounts.has(account)) return undefined;
  return env.deps.store.ensureAccount(account, env.deps.credits.freeMilliCredits).then(() => {
    env.ensuredAccounts.add(account);
  });
}

/** limit: a key that keeps causing failures is refused work, but never an answer memory holds (it cannot fail). */
export function limit(ctx: RetrievalContext, env: RetrievalEnv): undefined {
  // A job's items are bounded by the job's concurrency instead: a site's 404s must not turn its later items into 429s.
  if (ctx.inMemory || ctx.request.keyId !== undefined) return undefined;
  const wait = env.failureRate.retryAfter(ctx.key.id);
  if (wait <= 0) return undefined;
  throw new PagejsonError('RATE_LIMITED', `too many failed retrievals with this key; try again in ${wait} s`, {
    context: { retryAfterSeconds: wait, keyId: ctx.key.id },
    hint: 'the endpoint keeps failing: check it with `pagejson run` before calling it again',
  });
}

/**
 * charge: the debit (or hold), refused with NO_CREDITS when the balance is short. With credits off it only
 * reads the balance: callers still see it, and usage still records what the request would have cost.
 */
export function charge(ctx: RetrievalContext, env: RetrievalEnv): Promise<void> {
  const { store, credits } = env.deps;
  const account = ctx.key.account;
  if (!credits.enabled) {
    return store.getAccount(account).then((found) => {
      ctx.creditsRemaining = found?.balance;
      ctx.charged = true;
    });
  }
  const holdId = ctx.inMemory ? undefined : randomUUID();
  // A `then` on the store's promise rather than an async function: one promise less on every hit.
  return (holdId ? store.hold(account, ctx.cost, holdId) : store.reserve(account, ctx.cost)).then((reservation) => {
    const balance = reservation.balance;
    ctx.creditsRemaining = balance;
    if (!reservation.ok) {
      env.usage.add(ctx.config.apiId, ctx.key.id, account, 'ERROR', 0, ctx.atMs);
      throw new PagejsonError('NO_CREDITS', wireText('NO_CREDITS'), { context: { balance, cost: ctx.cost, creditsRemaining: balance } });
    }
    ctx.charged = true;
    ctx.holdId = holdId;
    env.emit({ kind: 'debit', apiId: ctx.config.apiId, milliCredits: ctx.cost });
  });
}

/** settle: the request counts as answered once its settled hold is durable (a kill -9 before that refunds it). */
export function settle(ctx: RetrievalContext, env: RetrievalEnv): Promise<void> | undefined {
  if (ctx.holdId === undefined && !ctx.config.pagination && env.deps.credits.hitMilliCredits === undefined) return undefined;
  return settleAnswered(ctx, env);
}
