import { join } from 'node:path';
import { ensurePrivateDir, ensurePrivateFile, toMilli } from './shared/index.js';
import { createConfigRegistry, type ConfigRegistry, type ConfigRegistryEvent } from './registry/index.js';
import type { ApiConfig, Project, ProjectSettings, ScraperNumber } from './config/index.js';
import { createModelResolver, type ModelResolver } from './models/index.js';
import { createWorkerPoolExtractor, type Extractor } from './extract/index.js';
import { createWatch, type MonitorStore, type Watch, type WatchEvent } from './monitor/index.js';
import { createBackgroundRepair, readSnapshots, type BackgroundRepair, type HealthState, type RepairEvent } from './health/index.js';
import { createRetrievalService, keptLogins, retrieve, type RetrievalEvent, type RetrievalService } from './retrieval/index.js';
import { createScraperPool, scraperOptionsFromSettings, type ScraperPool } from './fetch/index.js';
import {
  createLowdbStore,
  createRedisStore,
  resolveRedisUrl,
  type EndpointRuntimeStatus,
  type HealthBaseline,
  type StateStore,
} from './state/index.js';
import { createRedisCache, createResponseCache, type ResponseCache } from './cache/index.js';
import {
  createJobService,
  createRedisJobService,
  createRedisOriginGate,
  daemonItemRetriever,
  jobPoliteness,
  jobWebhook,
  wireErrorsOf,
  type JobEvent,
  type JobService,
  type JobServiceDeps,
} from './jobs/index.js';
import { closeRedis, connectRedis } from './state/index.js';

/**
 * createRuntime: the one place where drivers are chosen and wired (docs/architecture.md). Settings and the
 * environment come in as arguments; nothing here reads globals at import time. The daemon builds its app
 * over a Runtime, and tests build one over a temp project.
 */
export type RuntimeEvent =
  | RetrievalEvent
  | { kind: 'config'; change: ConfigRegistryEvent }
  | { kind: 'cache-error'; phase: string; error: unknown }
  | RepairEvent
  | WatchEvent
  | JobEvent;

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
  /** Jobs: one endpoint over many inputs, on the embedded queue in `<dataDir>/jobs` (docs/jobs.md); the daemon resumes them. */
  jobs: JobService;
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
  /** With Redis: this process takes job items from the queue (the daemon, `pagejson worker`); default false. */
  jobWorker?: boolean;
}

/**
 * A retrieval answers (or fails, refunding its credits) within fetch.timeoutMs + this; the daemon's handler
 * timeout is set above it (src/daemon/app.ts) so that it never cuts off a request that spent credits.
 */
export const ANSWER_GRACE_MS = 5_000;

/** The clocks, the event listeners and the environment every part of the runtime shares. */
interface Basics {
  env: Record<string, string | undefined>;
  settings: ProjectSettings;
  now: () => Date;
  /** The same clock in ms without making a Date (three per cache hit otherwise); tests' fake clocks still rule. */
  nowMs: () => number;
  listeners: Set<(event: RuntimeEvent) => void>;
  emit(event: RuntimeEvent): void;
}

function basics(project: Project, options: RuntimeOptions): Basics {
  const givenNow = options.now;
  const listeners = new Set<(event: RuntimeEvent) => void>();
  return {
    env: options.env ?? {},
    settings: project.settings,
    now: givenNow ?? (() => new Date()),
    nowMs: givenNow ? () => givenNow().getTime() : Date.now,
    listeners,
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // A broken listener (metrics, logging) must never fail a request.
        }
      }
    },
  };
}

/** The state store: the one given, else Redis with a URL (its client loads only then), else the embedded lowdb store. */
async function openStore(project: Project, options: RuntimeOptions, base: Basics, redisUrl: string | undefined): Promise<StateStore> {
  if (options.store) return options.store;
  if (redisUrl) return createRedisStore({ url: redisUrl, now: base.now });
  return createLowdbStore({ file: join(project.dataDir, 'state.json'), now: base.now });
}

/** The response cache: memory over Redis with a URL, else over `<dataDir>/cache.sqlite` (or memory only). */
async function openCache(
  project: Project,
  options: RuntimeOptions,
  base: Basics,
  store: StateStore,
  redisUrl: string | undefined,
): Promise<ResponseCache> {
  const { settings, emit } = base;
  const redisCache =
    redisUrl && !options.memoryCacheOnly
      ? await createRedisCache({
          url: redisUrl,
          ...(options.missLockTtlMs !== undefined ? { lockTtlMs: options.missLockTtlMs } : {}),
          onError: (error) => emit({ kind: 'cache-error', phase: 'connection', error }),
        }).catch(async (error: unknown) => {
          if (!options.store) await store.close();
          throw error;
        })
      : undefined;
  const cachePath = join(project.dataDir, 'cache.sqlite');
  return createResponseCache({
    ...(redisCache
      ? { keyv: redisCache.keyv, refreshLock: redisCache.refreshLock }
      : options.memoryCacheOnly
        ? {}
        : { sqlitePath: await ensurePrivateFile(cachePath).then(() => cachePath) }),
    freshMs: settings.cache.freshMinutes * 60_000,
    keepMs: settings.cache.keepHours * 3_600_000,
    memoryEntries: settings.cache.memoryEntries,
    memoryBytes: settings.cache.memoryMegabytes * 1024 * 1024,
    now: base.nowMs,
    // A cold miss waits for another daemon's fetch of the same page no longer than a fetch may take.
    missWaitMs: settings.fetch.timeoutMs + ANSWER_GRACE_MS,
    onError: (error, context) => emit({ kind: 'cache-error', phase: context.phase, error }),
  });
}

/** Scrapers, models and the extraction pool: what a load runs on. */
function pageDrivers(
  options: RuntimeOptions,
  base: Basics,
  sessions: { dataDir: string; redisUrl: string | undefined },
): { scrapers: ScraperPool; models: ModelResolver; extractor: Extractor } {
  const { settings, env } = base;
  // Endpoints' login sessions live beside the state: Redis, else the data dir (docs/access.md, "Logins").
  const scrapers = createScraperPool({
    ...scraperOptionsFromSettings(settings.fetch, env, settings.browser),
    logins: keptLogins({ ...sessions, extractor: () => extractor }),
  });
  // A model call is bounded like a fetch: an answer must come before the daemon's handler timeout.
  const models = createModelResolver({ models: settings.models, env, timeoutMs: settings.fetch.timeoutMs, dataDir: sessions.dataDir });
  // Parsing and selecting run off the event loop, each with its budget (hardening: a hostile page or
  // selector must never stop the daemon from answering).
  const { timeoutMs: extractionMs, maxDepth, maxElements, threads } = settings.extraction;
  const extractor =
    options.extractor ??
    createWorkerPoolExtractor({
      timeoutMs: extractionMs,
      limits: { maxDepth, maxElements },
      ...(threads !== undefined ? { threads } : {}),
    });
  return { scrapers, models, extractor };
}

/** What the store knows of every endpoint at start: its last fetch, its health since when, its latest repair. */
async function knownEndpoints(store: StateStore) {
  const lastFetchAt: Record<string, string> = {};
  const healthAtStart: Record<string, { state: HealthState; since: string; failing: string[]; findings?: string[] }> = {};
  const baselinesAtStart: Record<string, HealthBaseline> = {};
  const repairs = new Map<string, NonNullable<EndpointRuntimeStatus['repair']>>();
  for (const status of await store.listEndpointStatus()) {
    if (status.lastFetchAt) lastFetchAt[status.apiId] = status.lastFetchAt;
    // A block page is no health of the fields (retrieval/blocked.ts): the health before it stands.
    if (status.health && status.health !== 'blocked' && status.healthSince)
      healthAtStart[status.apiId] = {
        state: status.health,
        since: status.healthSince,
        failing: status.failingFields ?? [],
        ...(status.findings ? { findings: status.findings } : {}),
      };
    if (status.baseline) baselinesAtStart[status.apiId] = status.baseline;
    if (status.repair) repairs.set(status.apiId, status.repair);
  }
  return { lastFetchAt, healthAtStart, baselinesAtStart, repairs };
}

/** Repairs of endpoints whose pages changed, worked out in the background (pagejson.json `heal`), kept in each endpoint's status. */
function backgroundRepairs(
  project: Project,
  base: Basics,
  parts: {
    store: StateStore;
    drivers: ReturnType<typeof pageDrivers>;
    repairs: Map<string, NonNullable<EndpointRuntimeStatus['repair']>>;
    watch: () => Watch | undefined;
  },
): BackgroundRepair {
  const { store, drivers, repairs } = parts;
  return createBackgroundRepair({
    mode: base.settings.heal,
    configsDir: project.configsDir,
    scraperFor: (config) => drivers.scrapers.get(config.scraper),
    // The repair's page work runs in a thread with `pagejson heal`'s budget, its model client made there.
    thread: {
      models: base.settings.models,
      env: base.env,
      fetchTimeoutMs: base.settings.fetch.timeoutMs,
      extractionTimeoutMs: base.settings.extraction.timeoutMs,
      limits: { maxDepth: base.settings.extraction.maxDepth, maxElements: base.settings.extraction.maxElements },
      dataDir: project.dataDir,
    },
    timeoutMs: base.settings.fetch.timeoutMs + ANSWER_GRACE_MS,
    onEvent: (event) => {
      base.emit(event);
      if (event.outcome === 'proposed')
        void parts
          .watch()
          ?.monitors.healProposed(event)
          .catch(() => undefined);
      if (event.outcome !== 'proposed' && event.outcome !== 'applied') return;
      const repair = { outcome: event.outcome, file: event.file, revision: event.revision, at: base.now().toISOString() };
      repairs.set(event.apiId, repair);
      void store
        .listEndpointStatus()
        .then((all) => all.find((status) => status.apiId === event.apiId))
        .then((status) => status && store.setEndpointStatus({ ...status, repair }))
        .catch(() => undefined);
    },
  });
}

/** The retrieval service over the parts; its loads fetch the URL its `locate` stage resolved. */
function retrievalService(
  base: Basics,
  parts: {
    configs: ConfigRegistry;
    store: StateStore;
    cache: ResponseCache;
    drivers: ReturnType<typeof pageDrivers>;
    known: Awaited<ReturnType<typeof knownEndpoints>>;
    repairs: BackgroundRepair;
    watch: () => Watch | undefined;
    configsDir: string;
  },
): RetrievalService {
  const { settings, emit } = base;
  const { scrapers, models, extractor } = parts.drivers;
  const pages = { budgetMs: settings.fetch.timeoutMs, concurrency: settings.fetch.perOriginConcurrency };
  const pipeline = { scraperFor: (n: ScraperNumber) => scrapers.get(n), modelFor: (name: string) => models.get(name), extractor, pages };
  return createRetrievalService({
    onHealth: (config, state, failing, findings) =>
      void parts
        .watch()
        ?.monitors.observeHealth(config, state, failing, findings)
        .catch((error: unknown) => emit({ kind: 'cache-error', phase: 'monitor', error })),
    onUnhealthy: (config, values, lastGood, baseline) => parts.repairs.unhealthy(config, values, lastGood, baseline),
    repairOf: (apiId) => parts.known.repairs.get(apiId),
    lastFetchAt: parts.known.lastFetchAt,
    healthAtStart: parts.known.healthAtStart,
    baselinesAtStart: parts.known.baselinesAtStart,
    // Until an endpoint has a learned baseline, its snapshots' data is what good data looks like.
    goodDataOf: (config) => readSnapshots(parts.configsDir, config.apiId).then((all) => all.map((snapshot) => snapshot.record.data)),
    configs: parts.configs,
    store: parts.store,
    cache: parts.cache,
    // The daemon never reads a retrieval's page text: its bytes go to the extraction thread as they are.
    load: (config: ApiConfig, values, sourceUrl, baseline) =>
      retrieve(config, values, pipeline, { handOverPage: true, sourceUrl, ...(baseline ? { baseline } : {}) }),
    failureCacheMs: settings.extraction.failureCacheSeconds * 1000,
    refuseDegraded: settings.health.refuseDegraded,
    failedRetrievalsPerMinute: settings.limits.failedRetrievalsPerMinute,
    credits: {
      enabled: settings.credits.enabled,
      freeMilliCredits: toMilli(settings.credits.freeCredits),
      ...(settings.credits.hit === undefined ? {} : { hitMilliCredits: toMilli(settings.credits.hit) }),
    },
    now: base.now,
    nowMs: base.nowMs,
    onEvent: emit,
    answerTimeoutMs: settings.fetch.timeoutMs + ANSWER_GRACE_MS,
  });
}

/** Monitors and the webhook outbox, refreshing through the retrieval service. */
function startWatch(
  project: Project,
  options: RuntimeOptions,
  base: Basics,
  parts: { configs: ConfigRegistry; retrieval: RetrievalService; redisUrl: string | undefined },
): Promise<Watch> {
  const { settings } = base;
  return createWatch({
    settings,
    dataDir: project.dataDir,
    configs: () => parts.configs.list(),
    refresh: (config, values) => parts.retrieval.refresh(config, values),
    env: base.env,
    now: () => base.now().getTime(),
    ...(parts.redisUrl ? { redisUrl: parts.redisUrl } : {}),
    ...(options.monitorStore ? { store: options.monitorStore } : {}),
    ...(options.webhookPollMs !== undefined ? { pollMs: options.webhookPollMs } : {}),
    leaseMs: settings.fetch.timeoutMs + ANSWER_GRACE_MS + 30_000,
    onEvent: base.emit,
  });
}

export async function createRuntime(project: Project, options: RuntimeOptions = {}): Promise<Runtime> {
  const base = basics(project, options);
  // Late-bound: the watch refreshes through the retrieval service, which tells it every extraction's health.
  let watch: Watch | undefined;
  const currentWatch = () => watch;
  await ensurePrivateDir(project.dataDir);
  // The Redis drivers load the redis client only when a URL was given.
  const redisUrl = resolveRedisUrl(options.redisUrl, base.env);
  const store = await openStore(project, options, base, redisUrl);
  const cache = await openCache(project, options, base, store, redisUrl);
  const configs = await createConfigRegistry({
    dir: project.configsDir,
    watch: options.watch ?? true,
    ...(options.watchDebounceMs !== undefined ? { debounceMs: options.watchDebounceMs } : {}),
    onEvent: (change) => {
      base.emit({ kind: 'config', change });
      watch?.monitors.wake();
    },
  });
  const drivers = pageDrivers(options, base, { dataDir: project.dataDir, redisUrl });
  // Reservations left by a process that died mid-request go back to their accounts before anything is served.
  const orphaned = await store.releaseOrphanedHolds();
  const known = await knownEndpoints(store);
  const repairs = backgroundRepairs(project, base, { store, drivers, repairs: known.repairs, watch: currentWatch });
  const retrieval = retrievalService(base, {
    configs,
    store,
    cache,
    drivers,
    known,
    repairs,
    watch: currentWatch,
    configsDir: project.configsDir,
  });
  try {
    watch = await startWatch(project, options, base, { configs, retrieval, redisUrl });
  } catch (error) {
    await Promise.allSettled([cache.close(), drivers.scrapers.close(), drivers.extractor.close(), retrieval.close()]);
    if (!options.store) await store.close();
    configs.close();
    throw error;
  }
  const { jobs, politeness } = await openJobs(project, options, base, { retrieval, configs, redisUrl, watch });
  return assemble(project, options, base, { configs, store, cache, drivers, retrieval, repairs, watch, orphaned, jobs, politeness });
}

/**
 * Jobs and their politeness: the embedded queue in `<dataDir>/jobs`, or with Redis the BullMQ driver and an
 * origin gate every daemon and worker shares (docs/jobs.md).
 */
async function openJobs(
  project: Project,
  options: RuntimeOptions,
  base: Basics,
  parts: { retrieval: RetrievalService; configs: ConfigRegistry; redisUrl: string | undefined; watch: Watch },
): Promise<{ jobs: JobService; politeness: { close(): Promise<void> } }> {
  const { settings } = base;
  // Past the retrieval's own deadline (which refunds) and its grace: only an item that truly stopped moving.
  const itemTimeoutMs = 2 * (settings.fetch.timeoutMs + ANSWER_GRACE_MS);
  const gateClient = parts.redisUrl ? await connectRedis({ url: parts.redisUrl }) : undefined;
  const gate = gateClient
    ? createRedisOriginGate(gateClient, {
        concurrency: settings.jobs.perOriginConcurrency,
        minDelayMs: settings.jobs.minDelayMs,
        now: base.nowMs,
        leaseMs: settings.jobs.workerLockMs,
      })
    : undefined;
  const politeness = jobPoliteness(settings, { now: base.nowMs, ...(gate ? { gate } : {}) });
  const common: Omit<JobServiceDeps, 'dir'> = {
    retrieverFor: (record) => daemonItemRetriever(parts.retrieval, record, settings.credits.enabled),
    politenessFor: (record) => politeness.forEndpoint(parts.configs.get(record.apiId)),
    errorsOf: wireErrorsOf,
    itemTimeoutMs,
    now: base.now,
    onEvent: (event) => {
      base.emit(event);
      // A finished job that asked for it tells the webhook subscribers, through the monitors' durable outbox.
      const hook = event.kind === 'job-finished' ? jobWebhook(event.job) : undefined;
      if (hook)
        void parts.watch.publisher
          .publish(hook.type, hook.data)
          .catch((error: unknown) => base.emit({ kind: 'cache-error', phase: 'monitor', error }));
    },
  };
  const jobs = parts.redisUrl
    ? await createRedisJobService({
        ...common,
        redisUrl: parts.redisUrl,
        concurrency: settings.jobs.concurrency,
        lockMs: settings.jobs.workerLockMs,
        work: options.jobWorker === true,
      })
    : createJobService({ ...common, dir: join(project.dataDir, 'jobs') });
  const close = async () => {
    await politeness.close();
    if (gateClient) await closeRedis(gateClient);
  };
  return { jobs, politeness: { close } };
}

/** The Runtime over its parts, with the purge timer and the one way to close them all. */
function assemble(
  project: Project,
  options: RuntimeOptions,
  base: Basics,
  parts: {
    configs: ConfigRegistry;
    store: StateStore;
    cache: ResponseCache;
    drivers: ReturnType<typeof pageDrivers>;
    retrieval: RetrievalService;
    repairs: BackgroundRepair;
    watch: Watch;
    orphaned: { holds: number; milliCredits: number };
    jobs: JobService;
    politeness: { close(): Promise<void> };
  },
): Runtime {
  const { configs, store, cache, retrieval, repairs, watch, jobs } = parts;
  const { scrapers, models, extractor } = parts.drivers;
  const purgeTimer = setInterval(() => void cache.purgeExpired().catch(() => undefined), options.purgeEveryMs ?? 600_000);
  purgeTimer.unref();
  let closing: Promise<void> | undefined;
  return {
    project,
    settings: base.settings,
    configs,
    store,
    cache,
    scrapers,
    extractor,
    models,
    env: base.env,
    retrieval,
    releasedHolds: parts.orphaned,
    repairs,
    watch,
    jobs,
    now: base.now,
    subscribe(listener) {
      base.listeners.add(listener);
      return () => base.listeners.delete(listener);
    },
    close() {
      closing ??= (async () => {
        clearInterval(purgeTimer);
        configs.close();
        // Jobs first: their items in flight end (and are written) while retrieval still runs; the rest resume next start.
        await jobs.close().catch(() => undefined);
        await parts.politeness.close().catch(() => undefined);
        // Every step runs even when one fails: state must be flushed whatever the cache or scrapers do.
        await repairs.close();
        await watch.close().catch(() => undefined);
        await Promise.allSettled([cache.idle().then(() => cache.close()), scrapers.close(), extractor.close()]);
        await retrieval.close();
        await store.flush();
        await store.close();
        base.listeners.clear();
      })();
      return closing;
    },
  };
}
