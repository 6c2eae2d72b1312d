import { isPagejsonError, PagejsonError, wireRow } from '../shared/index.js';
import type { RetrievalContext } from './context.js';
import type { RetrievalEnv } from './env.js';
import { recordLateTokens } from './load.js';

/** Answers that refuse the request itself: 400 (body, variables), 413 (body too large), 415 (not JSON), 429. */
const REFUSED_STATUSES = new Set([400, 413, 415, 429]);

/**
 * What a failed request leaves behind, by the error table's row (src/core/shared/error-table.ts): a failure
 * that counts against the key is counted (bad requests always, the service's failures once they followed the
 * charge); after the charge, the service's failures release the hold (a refund) and the caller's settle it.
 * Returns the error to answer with: after the charge, a copy carrying the balance (concurrent misses share one
 * load and so one error object, and each caller has its own balance).
 */
export async function failed(ctx: RetrievalContext, env: RetrievalEnv, error: unknown): Promise<unknown> {
  const row = wireRow(isPagejsonError(error) ? error.code : undefined);
  const charged = ctx.charged;
  if (row.countsAsFailure && (charged || !row.refunded)) env.failureRate.count(ctx.key.id);
  if (!charged) {
    // A refused request of a known key and endpoint (a bad body or variables, a key over its failure rate) is
    // one of that endpoint's and key's requests in usage, and an error, though it costs nothing.
    if (REFUSED_STATUSES.has(row.status) && ctx.key !== undefined && ctx.config !== undefined)
      env.usage.add(ctx.config.apiId, ctx.key.id, ctx.key.account, 'ERROR', 0, env.nowMs());
    return error;
  }

  const { config, key } = ctx;
  if (isPagejsonError(error) && error.code === 'EXTRACTION_EMPTY') env.emit({ kind: 'health', apiId: config.apiId, state: 'broken' });
  // The request's own load may still finish after this failure (its deadline passed): its tokens are nobody's request.
  if (ctx.ownLoad)
    void ctx.ownLoad.then(
      (late) => recordLateTokens(env, config.apiId, key.account, late.tokens),
      () => undefined,
    );
  const holdId = ctx.holdId;
  if (row.refunded) {
    if (holdId !== undefined) {
      ctx.creditsRemaining = (await env.deps.store.release(holdId)) ?? ctx.creditsRemaining;
      env.emit({ kind: 'refund', apiId: config.apiId, milliCredits: ctx.cost });
    }
    env.usage.add(config.apiId, key.id, key.account, 'ERROR', 0, env.nowMs());
  } else if (holdId !== undefined) {
    await env.deps.store.settle(holdId);
  }
  if (!isPagejsonError(error)) return error;
  return new PagejsonError(error.code, error.message, {
    context: { ...error.context, creditsRemaining: ctx.creditsRemaining },
    ...(error.hint ? { hint: error.hint } : {}),
    cause: error,
  });
}
