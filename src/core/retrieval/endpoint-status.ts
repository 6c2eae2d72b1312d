import type { ApiConfig } from '../config/index.js';
import { isPagejsonError } from '../shared/index.js';
import { baselineFor, carryBaseline, learnBaseline, type Health, type HealthState } from '../health/index.js';
import { withObservation, type EndpointObservation, type EndpointRuntimeStatus, type HealthBaseline } from '../state/index.js';
import type { RetrievalDeps } from './types.js';
import { createBlockedMarks, isBlocked } from './blocked.js';

/**
 * Each endpoint's status as the store keeps it (last fetch, last error, health since when with its findings,
 * the health baseline, the latest repair), written after every load, a request's or a background refresh's,
 * and after every observation a CLI command reports (`run`, `check`). Health changes are told to the monitors
 * (onHealth) and degraded or broken extractions to the background repair (onUnhealthy). The baseline learns
 * from every healthy load; until one is stored it is learned from the endpoint's snapshots and sample.
 */
export interface EndpointStatus {
  /** The baseline a load of this config is judged against. */
  baselineOf(config: ApiConfig): Promise<HealthBaseline | undefined>;
  /** A load succeeded at `fetchedAt` with this health; a healthy one teaches the baseline. */
  loaded(
    config: ApiConfig,
    values: Record<string, unknown>,
    fetchedAt: Date,
    health: Health,
    data: Record<string, unknown>,
    headers?: Record<string, string>,
  ): void;
  /** A load failed; an empty extraction makes the endpoint broken, any other failure keeps its health. */
  failed(config: ApiConfig, values: Record<string, unknown>, error: unknown): void;
  /** An observation made outside this daemon's loads (`pagejson run`, `check`), recorded as its own. */
  observed(observation: EndpointObservation): Promise<void>;
  /** The failing fields of the endpoint's current health. */
  failingOf(apiId: string): string[];
  /** The endpoint's current health as this daemon last saw or was told it (a load, `run`, `check`): healthy when unknown. */
  healthNow(apiId: string): HealthState;
  /** The findings of that health (what is wrong, field by field). */
  findingsOf(apiId: string): string[];
  /**
   * An answer of this health went out (or was refused): the first one of an episode that is not healthy is told
   * (onEvent `unhealthy`, the daemon logs it at warn); the next healthy health starts a new episode.
   */
  answered(apiId: string, state: HealthState, refused: boolean): void;
  /** Resolves once every status change made so far is handed to the store (close waits for it). */
  idle(): Promise<void>;
}

type Known = { state: HealthState; since: string; failing: string[]; findings?: string[] };

/** How many endpoints' seeded baselines (from snapshots) are remembered: one per config revision. */
const SEEDS_KEPT = 10_000;

/**
 * A daemon's loads teach an endpoint's baseline at most once a minute (the first healthy load always does).
 * Reading every field of a large answer into the baseline costs about half a millisecond of the main thread,
 * a third more CPU per uncached retrieval in `npm run bench`; a baseline changes over days, not seconds, and
 * a cached endpoint loads at most every few minutes anyway, so only endpoints loaded many times a minute
 * (caching off, many variable values) learn from a sample of their loads (docs/health.md).
 */
export const LEARN_EVERY_MS = 60_000;

export function createEndpointStatus(deps: RetrievalDeps): EndpointStatus {
  const lastFetchAt = new Map<string, string>(Object.entries(deps.lastFetchAt ?? {}));
  // When each endpoint entered its current health (kept across restarts through the store).
  const healthOf = new Map<string, Known>(Object.entries(deps.healthAtStart ?? {}));
  const baselines = new Map<string, HealthBaseline>(Object.entries(deps.baselinesAtStart ?? {}));
  const seeds = new Map<string, Promise<HealthBaseline | undefined>>();
  const learnedAt = new Map<string, number>();
  // The stored baseline placed on a config's structure, kept while both stay the same objects (every load asks).
  const carriedCache = new WeakMap<HealthBaseline, { structure: ApiConfig['structure']; carried: HealthBaseline | undefined }>();
  const carriedOnto = (stored: HealthBaseline | undefined, config: ApiConfig): HealthBaseline | undefined => {
    if (!stored) return undefined;
    const known = carriedCache.get(stored);
    if (known && known.structure === config.structure) return known.carried;
    const carried = carryBaseline(stored, config.structure);
    carriedCache.set(stored, { structure: config.structure, carried });
    return carried;
  };
  const learnsNow = (apiId: string): boolean => {
    const now = deps.now().getTime();
    const last = learnedAt.get(apiId);
    if (baselines.has(apiId) && last !== undefined && now - last < LEARN_EVERY_MS && now >= last) return false;
    learnedAt.set(apiId, now);
    return true;
  };
  const blocked = createBlockedMarks();
  // The state each endpoint is in now, set as soon as it is known (the stored status follows in order, above).
  const now = new Map<string, { state: HealthState; findings: string[] }>(
    [...healthOf].map(([apiId, known]) => [apiId, { state: known.state, findings: known.findings ?? [] }]),
  );
  // Endpoints whose unhealthy episode was told already (answered): told once until they are healthy again.
  const told = new Set<string>();
  const setNow = (apiId: string, state: HealthState, findings: string[] = []) => {
    now.set(apiId, { state, findings });
    if (state === 'healthy') told.delete(apiId);
  };

  const repairField = (apiId: string) => {
    const repair = deps.repairOf?.(apiId);
    return repair ? { repair } : {};
  };
  const stored = (apiId: string): EndpointRuntimeStatus => {
    const previous = healthOf.get(apiId);
    const baseline = baselines.get(apiId);
    return {
      apiId,
      lastFetchAt: lastFetchAt.get(apiId) ?? null,
      lastError: null,
      lastErrorAt: null,
      ...(previous ? { health: previous.state, healthSince: previous.since, failingFields: previous.failing } : {}),
      ...(previous?.findings && previous.findings.length > 0 ? { findings: previous.findings } : {}),
      ...(baseline ? { baseline } : {}),
      ...repairField(apiId),
    };
  };
  const write = (status: EndpointRuntimeStatus) => deps.store.setEndpointStatus(status).catch(() => undefined);
  // Status changes apply in the order loads ended: a healthy load still learning its baseline is not overtaken.
  let order: Promise<unknown> = Promise.resolve();
  const inOrder = (change: () => Promise<unknown>): Promise<void> => {
    const next = order.then(change).catch(() => undefined);
    order = next;
    return next.then(() => undefined);
  };
  const remember = (status: EndpointRuntimeStatus) => {
    if (status.lastFetchAt) lastFetchAt.set(status.apiId, status.lastFetchAt);
    if (status.health && status.health !== 'blocked' && status.healthSince)
      healthOf.set(status.apiId, {
        state: status.health,
        since: status.healthSince,
        failing: status.failingFields ?? [],
        ...(status.findings ? { findings: status.findings } : {}),
      });
    if (status.baseline) baselines.set(status.apiId, status.baseline);
  };
  const tell = (config: ApiConfig, state: HealthState, failing: string[], findings: string[]) => {
    // Every extraction, not only changes this daemon sees: another daemon may have seen the endpoint break.
    try {
      deps.onHealth?.(config, state, failing, findings);
    } catch {
      // a listener's failure is not the retrieval's
    }
  };

  /** The latest healthy data the baseline keeps, under the fields' current names (a repair anchors on it). */
  const lastGoodOf = (config: ApiConfig) => carryBaseline(baselines.get(config.apiId), config.structure)?.sample;

  async function baselineOf(config: ApiConfig): Promise<HealthBaseline | undefined> {
    const carried = carriedOnto(baselines.get(config.apiId), config);
    if (carried) return carried;
    const key = `${config.apiId}@${config.revision}`;
    let seeded = seeds.get(key);
    if (!seeded) {
      if (seeds.size >= SEEDS_KEPT) seeds.delete(seeds.keys().next().value!);
      seeded = (deps.goodDataOf?.(config) ?? Promise.resolve([])).catch(() => []).then((data) => baselineFor(config, undefined, data));
      seeds.set(key, seeded);
    }
    return seeded;
  }

  return {
    baselineOf,
    loaded(config, values, fetchedAt, health, data, headers) {
      const at = fetchedAt.toISOString();
      blocked.clear(config.apiId);
      setNow(config.apiId, health.state, health.findings);
      tell(config, health.state, health.failing, health.findings);
      const learned =
        health.state === 'healthy' && learnsNow(config.apiId)
          ? baselineOf(config).then((baseline) => learnBaseline(baseline, config.structure, data, headers, health.read))
          : Promise.resolve(undefined);
      const observation = { apiId: config.apiId, at, health: health.state, failingFields: health.failing, findings: health.findings };
      void inOrder(async () => {
        const baseline = await learned;
        const status = withObservation(stored(config.apiId), { ...observation, ...(baseline ? { baseline } : {}) });
        remember(status);
        await write(status);
      });
      if (health.state === 'degraded') deps.onUnhealthy?.(config, values, lastGoodOf(config), baselines.get(config.apiId));
    },
    failed(config, values, error) {
      const message = isPagejsonError(error) ? `${error.code}: ${error.message}` : 'internal error';
      const broken = isPagejsonError(error) && error.code === 'EXTRACTION_EMPTY';
      const context = broken ? error.context : {};
      const listed = (value: unknown) => (Array.isArray(value) && value.length > 0 ? (value as string[]) : undefined);
      const failing = listed(context.missingRequired) ?? config.structure.map((field) => field.name);
      const findings = listed(context.findings) ?? ['nothing could be extracted'];
      let status: EndpointRuntimeStatus = { ...stored(config.apiId), lastError: message, lastErrorAt: deps.now().toISOString() };
      if (broken) {
        setNow(config.apiId, 'broken', findings);
        tell(config, 'broken', failing, findings);
        const since = status.health === 'broken' && status.healthSince ? status.healthSince : deps.now().toISOString();
        status = { ...status, health: 'broken', healthSince: since, failingFields: failing, findings };
        remember(status);
        deps.onUnhealthy?.(config, values, lastGoodOf(config), baselines.get(config.apiId));
      } else if (isBlocked(error)) status = { ...status, ...blocked.mark(config.apiId, deps.now()) };
      void inOrder(() => write(status));
    },
    observed(observation) {
      if (observation.health) setNow(observation.apiId, observation.health, observation.findings);
      return inOrder(async () => {
        const status = withObservation(stored(observation.apiId), observation);
        remember(status);
        await write(status);
      });
    },
    failingOf(apiId) {
      return healthOf.get(apiId)?.failing ?? [];
    },
    healthNow: (apiId) => now.get(apiId)?.state ?? 'healthy',
    findingsOf: (apiId) => now.get(apiId)?.findings ?? [],
    answered(apiId, state, refused) {
      if (state === 'healthy' || told.has(apiId)) return;
      told.add(apiId);
      deps.onEvent?.({ kind: 'unhealthy', apiId, state, refused, findings: now.get(apiId)?.findings ?? [] });
    },
    idle: () => inOrder(async () => undefined),
  };
}
