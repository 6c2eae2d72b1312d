import type { ApiConfig } from '../config/index.js';
import type { ApiKeyRecord } from '../state/index.js';
import type { CacheAnswer, CacheState } from '../cache/index.js';
import type { HealthState } from '../health/index.js';
import type { LoadOutcome, RetrievalAnswer, RetrievalRequest } from './types.js';

/**
 * One request on its way through the stages (stages.ts): each stage reads what the stages before it wrote and
 * writes its own fields. Once the last stage has run, the context is the answer (it implements RetrievalAnswer
 * with getters on the prototype): one object per request, the hit path is hot.
 *
 * Every field is declared here, so every request has the same shape whatever stages it ran.
 */
export class RetrievalContext implements RetrievalAnswer {
  /** authenticate: the key named by the request (in scope or not). */
  key!: ApiKeyRecord;
  /** authenticate: whether the key may call this apiId. */
  inScope = false;
  /** resolve: the endpoint. */
  config!: ApiConfig;
  /** read input: the variable values. */
  values!: Record<string, unknown>;
  /** price: the source URL, resolved once, and the cache key made from it. */
  sourceUrl = '';
  entryKey = '';
  /** price: the cost, milli-credits (of a paginated endpoint: held for its most pages, settled to its pages). */
  cost = 0;
  /** price: one page's price, milli-credits. */
  pageCost = 0;
  /** look up: the answer memory holds (HIT or STALE): it cannot fail, so its debit is final at once. */
  inMemory: CacheAnswer | undefined = undefined;
  /** charge: whether the request's debit was made, and the store's hold when it may still be refunded. */
  charged = false;
  holdId: string | undefined = undefined;
  creditsRemaining: number | undefined = undefined;
  /** load: the cache's answer. */
  answer: CacheAnswer | undefined = undefined;
  /** load: the load this request started itself, if it did (its outcome carries the model's tokens). */
  ownLoad: Promise<LoadOutcome> | undefined = undefined;
  /** The own load's outcome, once it has come. */
  loaded: LoadOutcome | undefined = undefined;
  /** load: the answer's health (a load's own, a cached answer's the endpoint's current one). */
  health: HealthState = 'healthy';

  constructor(
    readonly request: RetrievalRequest,
    /** When the request arrived (ms since epoch). */
    readonly atMs: number,
  ) {}

  get cache(): CacheState {
    return this.answer!.state;
  }

  get ageSeconds(): number {
    return this.answer!.ageSeconds;
  }

  get bytes(): Buffer {
    return this.answer!.bytes;
  }

  get gzipped(): Buffer | undefined {
    return this.answer!.gzipped;
  }

  get body(): string {
    return this.answer!.body;
  }

  get pages(): number | undefined {
    return this.config.pagination ? this.answer!.pages : undefined;
  }

  get partial(): string | undefined {
    return this.answer!.partial;
  }
}
