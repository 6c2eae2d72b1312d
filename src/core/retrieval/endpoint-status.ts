import type { ApiConfig } from '../config/index.js';
import { isPagejsonError } from '../shared/index.js';
import type { HealthState } from '../health/index.js';
import type { RetrievalDeps } from './types.js';
import { createBlockedMarks, isBlocked } from './blocked.js';

/**
 * Each endpoint's status as the store keeps it (last fetch, last error, health and since when, the latest
 * repair), written after every load, a request's or a background refresh's. Health changes are told to the
 * monitors (onHealth) and degraded or broken extractions to the background repair (onUnhealthy).
 */
export interface EndpointStatus {
  /** A load succeeded at `fetchedAt` with this health. */
  loaded(config: ApiConfig, values: Record<string, unknown>, fetchedAt: Date, state: HealthState, failing: string[]): void;
  /** A load failed; an empty extraction makes the endpoint broken, any other failure keeps its health. */
  failed(config: ApiConfig, values: Record<string, unknown>, error: unknown): void;
  /** The failing fields of the endpoint's current health. */
  failingOf(apiId: string): string[];
}

type Known = { state: HealthState; since: string; failing: string[] };

export function createEndpointStatus(deps: RetrievalDeps): EndpointStatus {
  const lastFetchAt = new Map<string, string>(Object.entries(deps.lastFetchAt ?? {}));
  // When each endpoint entered its current health (kept across restarts through the store).
  const healthOf = new Map<string, Known>(Object.entries(deps.healthAtStart ?? {}));
  const blocked = createBlockedMarks();

  const repairField = (apiId: string) => {
    const repair = deps.repairOf?.(apiId);
    return repair ? { repair } : {};
  };
  const previousHealth = (apiId: string) => {
    const previous = healthOf.get(apiId);
    return previous ? { health: previous.state, healthSince: previous.since, failingFields: previous.failing } : {};
  };
  const healthFields = (config: ApiConfig, state: HealthState, failing: string[]) => {
    // Every extraction, not only changes this daemon sees: another daemon may have seen the endpoint break.
    try {
      deps.onHealth?.(config, state, failing);
    } catch {
      // a listener's failure is not the retrieval's
    }
    const previous = healthOf.get(config.apiId);
    const since = previous && previous.state === state ? previous.since : deps.now().toISOString();
    healthOf.set(config.apiId, { state, since, failing });
    return { health: state, failingFields: failing, healthSince: since };
  };

  return {
    loaded(config, values, fetchedAt, state, failing) {
      const at = fetchedAt.toISOString();
      lastFetchAt.set(config.apiId, at);
      blocked.clear(config.apiId);
      const health = healthFields(config, state, failing);
      void deps.store
        .setEndpointStatus({
          apiId: config.apiId,
          lastFetchAt: at,
          lastError: null,
          lastErrorAt: null,
          ...health,
          ...repairField(config.apiId),
        })
        .catch(() => undefined);
      if (state === 'degraded') deps.onUnhealthy?.(config, values);
    },
    failed(config, values, error) {
      const message = isPagejsonError(error) ? `${error.code}: ${error.message}` : 'internal error';
      const broken = isPagejsonError(error) && error.code === 'EXTRACTION_EMPTY';
      const missing =
        broken && Array.isArray(error.context.missingRequired) && error.context.missingRequired.length > 0
          ? (error.context.missingRequired as string[])
          : config.structure.map((field) => field.name);
      const health = broken ? healthFields(config, 'broken', missing) : isBlocked(error) ? blocked.mark(config.apiId, deps.now()) : {};
      if (broken) deps.onUnhealthy?.(config, values);
      // The last good fetch time is kept (seeded from the store at start, so it survives restarts).
      const status = {
        apiId: config.apiId,
        lastFetchAt: lastFetchAt.get(config.apiId) ?? null,
        lastError: message,
        lastErrorAt: deps.now().toISOString(),
      };
      void deps.store
        .setEndpointStatus({ ...status, ...previousHealth(config.apiId), ...health, ...repairField(config.apiId) })
        .catch(() => undefined);
    },
    failingOf(apiId) {
      return healthOf.get(apiId)?.failing ?? [];
    },
  };
}
