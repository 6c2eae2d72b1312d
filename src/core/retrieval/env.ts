import { LRUCache } from 'lru-cache';
import { createFailureRate, createUsageBuffer } from '../access/index.js';
import type { PagejsonError } from '../shared/index.js';
import type { RetrievalDeps, RetrievalEvent } from './types.js';
import { createEndpointStatus, type EndpointStatus } from './endpoint-status.js';

/**
 * What the stages share across requests, made once per service: the dependencies, the usage buffer, the
 * failure-rate limiter, the remembered failures, the accounts known to exist, the endpoints' status.
 */
export interface RetrievalEnv {
  readonly deps: RetrievalDeps;
  readonly usage: ReturnType<typeof createUsageBuffer>;
  readonly failureRate: ReturnType<typeof createFailureRate>;
  /** Costly extraction failures by cache key (endpoint, revision, URL): the same failing page is not extracted again soon. */
  readonly recentFailures: LRUCache<string, PagejsonError>;
  readonly failureCacheMs: number;
  readonly ensuredAccounts: Set<string>;
  readonly endpoints: EndpointStatus;
  emit(event: RetrievalEvent): void;
  nowMs(): number;
}

export function createRetrievalEnv(deps: RetrievalDeps): RetrievalEnv {
  const onEvent = deps.onEvent;
  const failureCacheMs = deps.failureCacheMs ?? 30_000;
  const clock = () => deps.now().getTime();
  return {
    deps,
    usage: createUsageBuffer(deps.store, deps.usageFlushMs ?? 1_000),
    failureRate: createFailureRate(deps.failedRetrievalsPerMinute ?? 30, clock),
    recentFailures: new LRUCache<string, PagejsonError>({
      max: 10_000,
      ttl: Math.max(1, failureCacheMs),
      ttlAutopurge: false,
      perf: { now: clock },
    }),
    failureCacheMs,
    ensuredAccounts: new Set<string>(),
    endpoints: createEndpointStatus(deps),
    emit: onEvent ? (event) => onEvent(event) : () => undefined,
    nowMs: deps.nowMs ?? clock,
  };
}
