import { isPagejsonError, PagejsonError, wireText } from '../../shared/index.js';
import type { TokenUsage } from '../../models/index.js';
import type { CacheAnswer } from '../../cache/index.js';
import type { RetrievalContext } from '../context.js';
import type { RetrievalEnv } from '../env.js';
import { backgroundLoad, cacheValue, healthOf, loadEndpoint, recordLateTokens } from '../load.js';
import { priceInMemory } from './pages.js';

/**
 * cache: the answer memory holds (HIT or STALE), taken now; it decides the rest of the way (no limit, a final
 * debit). An endpoint refused while unhealthy (`health.refuseDegraded`) is loaded again instead (see load).
 */
export function lookUp(ctx: RetrievalContext, env: RetrievalEnv): undefined {
  if (ctx.config.caching && !refusesNow(ctx, env)) ctx.inMemory = env.deps.cache.fromMemory(ctx.entryKey);
  priceInMemory(ctx, env);
  return undefined;
}

/** The request's own load, when the cache asks it for one: its outcome (tokens included) stays on the context. */
function ownLoad(ctx: RetrievalContext, env: RetrievalEnv): Promise<unknown> {
  const outcome = loadEndpoint(env, ctx.config, ctx.values, ctx.sourceUrl, ctx.entryKey);
  ctx.ownLoad = outcome;
  outcome.catch((error: unknown) => recordFailedTokens(ctx, env, error));
  return outcome.then((loaded) => {
    ctx.loaded = loaded;
    return cacheValue(loaded);
  });
}

/**
 * A model that failed the load's fill (timed out after a try, answered wrongly twice) spent tokens all the same
 * (MODEL_FAILED carries them, models/openai.ts): recorded against the request's key, at no cost, and once, since
 * only the request that owns the load records them (the requests that joined it share its error).
 */
function recordFailedTokens(ctx: RetrievalContext, env: RetrievalEnv, error: unknown): void {
  const usage = isPagejsonError(error) && error.code === 'MODEL_FAILED' ? error.context.usage : undefined;
  if (!isTokenUsage(usage) || usage.promptTokens + usage.completionTokens === 0) return;
  const { config, key } = ctx;
  env.usage.record({
    apiId: config.apiId,
    keyId: key.id,
    account: key.account,
    milliCredits: 0,
    outcome: 'MODEL',
    at: env.deps.now(),
    ...usage,
  });
}

function isTokenUsage(value: unknown): value is TokenUsage {
  const usage = value as TokenUsage | undefined;
  return typeof usage?.promptTokens === 'number' && typeof usage.completionTokens === 'number';
}

/**
 * The request's one deadline: it waits for its data no longer than `answerTimeoutMs`, then fails as a
 * FETCH_TIMEOUT (refunded). The load goes on (it is shared with the requests that joined it) and may still fill
 * the cache. Answers from memory never start it: they involve no I/O.
 */
function withinDeadline(work: Promise<CacheAnswer>, ms: number | undefined): Promise<CacheAnswer> {
  if (ms === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new PagejsonError('FETCH_TIMEOUT', `timed out after ${ms} ms`, {
            context: { timeoutMs: ms },
            hint: 'the source or the model is slow; raise fetch.timeoutMs in pagejson.json if it is just slow',
          }),
        ),
      ms,
    );
  });
  // A late failure of the work after the deadline answered must not become an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * load: the answer. From memory as it is (a STALE one refreshed in the background, after its debit, so a caller
 * without credits never makes the daemon fetch); else from the cache's store, a load another request started,
 * or a load of its own (fetch → classify → extract → assess, retrieve.ts), within the request's deadline. A
 * costly failure of the same page a moment ago is answered again without a load.
 */
export function load(ctx: RetrievalContext, env: RetrievalEnv): Promise<void> | undefined {
  const inMemory = ctx.inMemory;
  if (inMemory) {
    ctx.answer = inMemory;
    if (inMemory.state === 'STALE') {
      const { config, values, sourceUrl, entryKey, key } = ctx;
      env.deps.cache.refreshLater(entryKey, () => backgroundLoad(env, config, values, sourceUrl, entryKey, key.account));
    }
    // Its debit is final already: a health changed since the look-up flags the answer, it cannot refuse it.
    judge(ctx, env, false);
    return undefined;
  }
  const remembered = env.recentFailures.get(ctx.entryKey);
  if (remembered) throw remembered;
  const options = { caching: ctx.config.caching };
  // Refused while unhealthy: what the cache keeps is not served, a load decides (a healthy one is kept again).
  const answer = refusesNow(ctx, env)
    ? env.deps.cache.refresh(ctx.entryKey, () => ownLoad(ctx, env), options)
    : env.deps.cache.get(ctx.entryKey, () => ownLoad(ctx, env), options);
  return withinDeadline(answer, env.deps.answerTimeoutMs).then((found) => {
    ctx.answer = found;
    judge(ctx, env, env.deps.refuseDegraded === true);
  });
}

/** `health.refuseDegraded` is on and the endpoint is not healthy now: its cached answers are not served. */
function refusesNow(ctx: RetrievalContext, env: RetrievalEnv): boolean {
  return env.deps.refuseDegraded === true && env.endpoints.healthNow(ctx.config.apiId) !== 'healthy';
}

/**
 * The answer's health (X-Pagejson-Health): a load's own, else (a cached answer) the endpoint's current one, so
 * an endpoint `check` found broken says so on its cached answers too. The first answer of an unhealthy episode
 * is told (the daemon logs it); with `health.refuseDegraded` an unhealthy answer is the broken answer's 502.
 */
function judge(ctx: RetrievalContext, env: RetrievalEnv, refuses: boolean): void {
  const answer = ctx.answer!;
  const apiId = ctx.config.apiId;
  const cached = answer.state === 'HIT' || answer.state === 'STALE';
  const health = healthOf(answer) === 'degraded' ? 'degraded' : cached ? env.endpoints.healthNow(apiId) : 'healthy';
  ctx.health = health;
  if (health === 'healthy') return;
  env.endpoints.answered(apiId, health, refuses);
  if (!refuses) return;
  const findings = env.endpoints.findingsOf(apiId);
  throw new PagejsonError('EXTRACTION_EMPTY', wireText('EXTRACTION_EMPTY'), {
    context: {
      apiId,
      health,
      findings,
      // The caller's hint says why without the findings (they quote the page); the operator's log has them.
      wireHint: `the endpoint's data is ${health} (fields came out empty or unlike before) and this daemon refuses such answers until it is repaired`,
    },
    hint: `the endpoint is ${health}${findings.length > 0 ? ` (${findings.join('; ')})` : ''} and pagejson.json refuses such answers (health.refuseDegraded): \`pagejson heal ${apiId}\` repairs the selectors`,
  });
}

/**
 * record: usage (with the model's tokens when the request's own load spent them on its answer), the health
 * event. Tokens of a load that outlives its answer (a STALE answer's refresh) go into a keyless row.
 */
export function record(ctx: RetrievalContext, env: RetrievalEnv): undefined {
  const answer = ctx.answer!;
  const { config, key } = ctx;
  const state = answer.state;
  const health = ctx.health;
  const own = state === 'MISS' || state === 'BYPASS' ? ctx.loaded : undefined;
  if (own === undefined && ctx.ownLoad !== undefined) {
    void ctx.ownLoad.then(
      (late) => recordLateTokens(env, config.apiId, key.account, late.tokens),
      () => undefined,
    );
  }
  const tokens = own?.tokens;
  // With credits off the cost is recorded all the same: usage says what the request would have cost.
  if (tokens)
    env.usage.record({
      apiId: config.apiId,
      keyId: key.id,
      account: key.account,
      milliCredits: ctx.cost,
      outcome: state,
      at: env.deps.now(),
      ...tokens,
    });
  else env.usage.add(config.apiId, key.id, key.account, state, ctx.cost, answer === ctx.inMemory ? ctx.atMs : env.nowMs());
  env.emit({ kind: 'health', apiId: config.apiId, state: health });
  return undefined;
}
