import { join } from 'node:path';
import { ensurePrivateDir, ensurePrivateFile, toMilli } from './shared/index.js';
import { createConfigRegistry, type ConfigRegistry, type ConfigRegistryEvent } from './registry/index.js';
import type { ApiConfig, Project, ProjectSettings } from './config/index.js';
import { createModelResolver, type ModelResolver } from './models/index.js';
import { createWorkerPoolExtractor, type Extractor } from './extract/index.js';
import { createWatch, type MonitorStore, type Watch, type WatchEvent } from './monitor/index.js';
import { createBackgroundRepair, type BackgroundRepair, type RepairEvent } from './health/index.js';
import { createRetrievalService, retrieve, type RetrievalEvent, type RetrievalService } from './retrieval/index.js';
import { createScraperPool, scraperOptionsFromSettings, type ScraperPool } from './fetch/index.js';
import { createLowdbStore, createRedisStore, resolveRedisUrl, type EndpointRuntimeStatus, type StateStore } from './state/index.js';
import { createRedisCache, createResponseCache, type ResponseCache } from './cache/index.js';

/**
 * createRuntime: the one place where drivers are chosen and wired (DESIGN.md section 2). Settings and the
 * environment come in as arguments; nothing here reads globals at import time. The daemon builds its app
 * over a Runtime, and tests build one over a temp project.
 */
export type RuntimeEvent =
  | RetrievalEvent
  | { kind: 'config'; change: ConfigRegistryEvent }
  | { kind: 'cache-error'; phase: string; error: unknown }
  | RepairEvent
  | WatchEvent;

export interface Runtime {
  project: Project;
  settings: ProjectSettings;
  configs: ConfigRegistry;
  store: StateStore;
  cache: ResponseCache;
  scrapers: ScraperPool;
  extractor: Extractor;
  /** The project's models (generation in the dashboard, model fields at retrieval). */
  models: ModelResolver;
  /** The environment the runtime was made with (model API keys live there). */
  env: Record<string, string | undefined>;
  retrieval: RetrievalService;
  repairs: BackgroundRepair;
  /** Monitors (scheduled refreshes, change detection) and the webhook outbox; the daemon starts them. */
  watch: Watch;
  /** Reservations of requests a dead process left unanswered, refunded at start. */
  releasedHolds: { holds: number; milliCredits: number };
  now(): Date;
  /** Listen to retrievals, debits, config reloads and cache errors (metrics, logs). Returns an unsubscribe. */
  subscribe(listener: (event: RuntimeEvent) => void): () => void;
  /** Flush state and release every driver. Idempotent. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  env?: Record<string, string | undefined>;
  /** Watch the configs folder for changes (`serve --no-watch` turns it off). */
  watch?: boolean;
  /** Debounce of config watch events, ms. */
  watchDebounceMs?: number;
  now?: () => Date;
  /** A ready store (e.g. Redis); default: the embedded lowdb store at `<dataDir>/state.json`. */
  store?: StateStore;
  /** Keep the response cache in memory only (no `<dataDir>/cache.sqlite`). */
  memoryCacheOnly?: boolean;
  /** How often expired cache rows are purged, ms (default 10 minutes). */
  purgeEveryMs?: number;
  /** State and cache in Redis, shared by any number of daemons (`serve --redis`; default PAGEJSON_REDIS_URL). */
  redisUrl?: string;
  /** Where pages are parsed (default: a worker pool sized to the cores, with `extraction` settings). */
  extractor?: Extractor;
  /** A ready monitor store (tests); default: Redis with a Redis URL, else `<dataDir>/monitors.json`. */
  monitorStore?: MonitorStore;
  /** How often the webhook outbox is polled, ms (default 1 s). */
  webhookPollMs?: number;
  /** Life of a Redis cache lock whose holder died (default 60 s; tests shorten it). */
  missLockTtlMs?: number;
}

/**
 * A retrieval answers (or fails, refunding its credits) within fetch.timeoutMs + this; the daemon's handler
 * timeout is set above it (src/daemon/app.ts) so that it never cuts off a request that spent credits.
 */
export const ANSWER_GRACE_MS = 5_000;

export async function createRuntime(project: Project, options: RuntimeOptions = {}): Promise<Runtime> {
  const env = options.env ?? {};
  const settings = project.settings;
  const now = options.now ?? (() => new Date());
  // The same clock in ms without making a Date (three per cache hit otherwise); tests' fake clocks still rule.
  const givenNow = options.now;
  const nowMs = givenNow ? () => givenNow().getTime() : Date.now;
  const listeners = new Set<(event: RuntimeEvent) => void>();
  const emit = (event: RuntimeEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener (metrics, logging) must never fail a request.
      }
    }
  };

  // Late-bound: the watch refreshes through the retrieval service, which tells it every extraction's health.
  let watch: Watch | undefined;
  await ensurePrivateDir(project.dataDir);
  const cachePath = join(project.dataDir, 'cache.sqlite');
  // The Redis drivers load the redis client only when a URL was given (DESIGN.md section 2).
  const redisUrl = resolveRedisUrl(options.redisUrl, env);
  const store =
    options.store ??
    (redisUrl
      ? await createRedisStore({ url: redisUrl, now })
      : await createLowdbStore({ file: join(project.dataDir, 'state.json'), now }));
  const redisCache =
    redisUrl && !options.memoryCacheOnly
      ? await createRedisCache({ url: redisUrl, ...(options.missLockTtlMs !== undefined ? { lockTtlMs: options.missLockTtlMs } : {}), onError: (error) => emit({ kind: 'cache-error', phase: 'connection', error }) })
          .catch(async (error: unknown) => {
            if (!options.store) await store.close();
            throw error;
          })
      : undefined;
  const cache = await createResponseCache({
    ...(redisCache
      ? { keyv: redisCache.keyv, refreshLock: redisCache.refreshLock }
      : options.memoryCacheOnly
        ? {}
        : { sqlitePath: await ensurePrivateFile(cachePath).then(() => cachePath) }),
    freshMs: settings.cache.freshMinutes * 60_000,
    keepMs: settings.cache.keepHours * 3_600_000,
    memoryEntries: settings.cache.memoryEntries,
    memoryBytes: settings.cache.memoryMegabytes * 1024 * 1024,
    now: nowMs,
    // A cold miss waits for another daemon's fetch of the same page no longer than a fetch may take.
    missWaitMs: settings.fetch.timeoutMs + ANSWER_GRACE_MS,
    onError: (error, context) => emit({ kind: 'cache-error', phase: context.phase, error }),
  });
  const configs = await createConfigRegistry({
    dir: project.configsDir,
    watch: options.watch ?? true,
    ...(options.watchDebounceMs !== undefined ? { debounceMs: options.watchDebounceMs } : {}),
    onEvent: (change) => {
      emit({ kind: 'config', change });
      watch?.monitors.wake();
    },
  });
  const scrapers = createScraperPool(scraperOptionsFromSettings(settings.fetch, env));
  // A model call is bounded like a fetch: an answer must come before the daemon's handler timeout.
  const models = createModelResolver({ models: settings.models, env, timeoutMs: settings.fetch.timeoutMs });

  // Parsing and selecting run off the event loop, each with its budget (hardening: a hostile page or
  // selector must never stop the daemon from answering).
  const { timeoutMs: extractionMs, maxDepth, maxElements, threads } = settings.extraction;
  const extractor =
    options.extractor ??
    createWorkerPoolExtractor({ timeoutMs: extractionMs, limits: { maxDepth, maxElements }, ...(threads !== undefined ? { threads } : {}) });
  // Reservations left by a process that died mid-request go back to their accounts before anything is served.
  const orphaned = await store.releaseOrphanedHolds();

  const lastFetchAt: Record<string, string> = {};
  const healthAtStart: Record<string, { state: 'healthy' | 'degraded' | 'broken'; since: string; failing: string[] }> = {};
  for (const status of await store.listEndpointStatus()) {
    if (status.lastFetchAt) lastFetchAt[status.apiId] = status.lastFetchAt;
    if (status.health && status.healthSince) healthAtStart[status.apiId] = { state: status.health, since: status.healthSince, failing: status.failingFields ?? [] };
  }
  // Repairs of endpoints whose pages changed, worked out in the background (pagejson.json `heal`).
  const repairs = createBackgroundRepair({
    mode: settings.heal,
    configsDir: project.configsDir,
    scraperFor: (config) => scrapers.get(config.scraper),
    modelFor: (name) => models.get(name),
    timeoutMs: settings.fetch.timeoutMs + ANSWER_GRACE_MS,
    onEvent: (event) => {
      emit(event);
      if (event.outcome === 'proposed') void watch?.monitors.healProposed(event).catch(() => undefined);
      if (event.outcome === 'proposed' || event.outcome === 'applied') {
        const repair = { outcome: event.outcome, file: event.file, revision: event.revision, at: now().toISOString() };
        repairInfo.set(event.apiId, repair);
        void store
          .listEndpointStatus()
          .then((all) => all.find((status) => status.apiId === event.apiId))
          .then((status) => status && store.setEndpointStatus({ ...status, repair }))
          .catch(() => undefined);
      }
    },
  });
  const repairInfo = new Map<string, NonNullable<EndpointRuntimeStatus['repair']>>();
  for (const status of await store.listEndpointStatus()) if (status.repair) repairInfo.set(status.apiId, status.repair);
  const retrieval = createRetrievalService({
    onHealth: (config, state, failing) => void watch?.monitors.observeHealth(config, state, failing).catch((error: unknown) => emit({ kind: 'cache-error', phase: 'monitor', error })),
    onUnhealthy: (config, values) => repairs.unhealthy(config, values),
    repairOf: (apiId) => repairInfo.get(apiId),
    lastFetchAt,
    healthAtStart,
    configs,
    store,
    cache,
    // The daemon never reads a retrieval's page text: its bytes go to the extraction thread as they are.
    load: (config: ApiConfig, values) => retrieve(config, values, { scraperFor: (n) => scrapers.get(n), modelFor: (name) => models.get(name), extractor }, { handOverPage: true }),
    failureCacheMs: settings.extraction.failureCacheSeconds * 1000,
    failedRetrievalsPerMinute: settings.limits.failedRetrievalsPerMinute,
    credits: { enabled: settings.credits.enabled, freeMilliCredits: toMilli(settings.credits.freeCredits) },
    now,
    nowMs,
    onEvent: emit,
    answerTimeoutMs: settings.fetch.timeoutMs + ANSWER_GRACE_MS,
  });

  let ready: Watch;
  try {
    ready = watch = await createWatch({
      settings,
      dataDir: project.dataDir,
      configs: () => configs.list(),
      refresh: (config, values) => retrieval.refresh(config, values),
      env,
      now: () => now().getTime(),
      ...(redisUrl ? { redisUrl } : {}),
      ...(options.monitorStore ? { store: options.monitorStore } : {}),
      ...(options.webhookPollMs !== undefined ? { pollMs: options.webhookPollMs } : {}),
      leaseMs: settings.fetch.timeoutMs + ANSWER_GRACE_MS + 30_000,
      onEvent: emit,
    });
  } catch (error) {
    await Promise.allSettled([cache.close(), scrapers.close(), extractor.close(), retrieval.close()]);
    if (!options.store) await store.close();
    configs.close();
    throw error;
  }

  const purgeTimer = setInterval(() => void cache.purgeExpired().catch(() => undefined), options.purgeEveryMs ?? 600_000);
  purgeTimer.unref();

  let closing: Promise<void> | undefined;
  return {
    project,
    settings,
    configs,
    store,
    cache,
    scrapers,
    extractor,
    models,
    env,
    retrieval,
    releasedHolds: orphaned,
    repairs,
    watch: ready,
    now,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closing ??= (async () => {
        clearInterval(purgeTimer);
        configs.close();
        // Every step runs even when one fails: state must be flushed whatever the cache or scrapers do.
        await repairs.idle();
        await ready.close().catch(() => undefined);
        await Promise.allSettled([cache.idle().then(() => cache.close()), scrapers.close(), extractor.close()]);
        await retrieval.close();
        await store.flush();
        await store.close();
        listeners.clear();
      })();
      return closing;
    },
  };
}
