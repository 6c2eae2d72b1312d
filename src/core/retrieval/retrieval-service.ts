import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ConfigRegistry } from '../registry/index.js';
import { checkVariableValues, isDynamic, resolveSourceUrl, type ApiConfig } from '../config/index.js';
import { createFailureRate, createUsageBuffer, retrievalCost, verifyApiKey, type KeyVerdict } from '../access/index.js';
import { isPagejsonError, PagejsonError } from '../shared/index.js';
import type { ApiKeyRecord, EndpointRuntimeStatus, StateStore } from '../state/index.js';
import { cacheKey, Uncacheable, type CacheAnswer, type CacheState, type ResponseCache } from '../cache/index.js';
import type { HealthState } from '../health/index.js';
import type { RetrieveResult } from './retrieve.js';
import type { TokenUsage } from '../models/index.js';

/**
 * One retrieval request in core terms, transport-free (DESIGN.md section 4). The checks run in the table's
 * order of precedence, so the first condition that holds decides the answer: key present → key valid →
 * config exists and is in scope → active → body → variables → credits → fetch/extract. Errors are
 * PagejsonErrors; the daemon maps their codes to statuses in one place.
 *
 * Credits: the cost is reserved before any work (the store applies it synchronously), the answer waits
 * until the write holding the debit has been issued, and a failure that becomes a 5xx refunds it.
 */
export const MAX_BODY_BYTES = 16 * 1024;

export interface RequestBody {
  /** Raw bytes as received (the transport caps what it reads; anything over MAX_BODY_BYTES is refused). */
  raw: Buffer;
  contentType: string | undefined;
}

export interface RetrievalRequest {
  apiId: string;
  apikey: string | undefined;
  method: 'GET' | 'POST';
  body: RequestBody | undefined;
  query: Record<string, unknown>;
}

export interface RetrievalAnswer {
  /** The pre-serialised envelope `{"data":…,"errors":null}` as UTF-8 bytes: sent as is. */
  readonly bytes: Buffer;
  /** The same bytes gzipped, when the cache keeps them so (see CacheAnswer). */
  readonly gzipped: Buffer | undefined;
  /** The same as text, made only when asked for (see CacheAnswer). */
  readonly body: string;
  cache: CacheState;
  ageSeconds: number;
  /** Balance after this request, milli-credits (undefined when the account is unknown). */
  creditsRemaining: number | undefined;
  config: ApiConfig;
  /** `degraded`: served, flagged, not cached (see src/core/health). Cached answers are always healthy. */
  health: 'healthy' | 'degraded';
}

export type RetrievalEvent =
  | { kind: 'fetch'; apiId: string; scraper: number; seconds: number; ok: boolean }
  | { kind: 'debit'; apiId: string; milliCredits: number }
  | { kind: 'refund'; apiId: string; milliCredits: number }
  | { kind: 'health'; apiId: string; state: HealthState };

export interface RetrievalDeps {
  configs: ConfigRegistry;
  store: StateStore;
  cache: ResponseCache;
  /** The pipeline: fetch + extract one config with these variable values. */
  load(config: ApiConfig, values: Record<string, unknown>): Promise<RetrieveResult>;
  credits: { enabled: boolean; freeMilliCredits: number };
  now(): Date;
  /** The same clock in ms (default: from `now`); the daemon passes Date.now, so a hit makes no Date. */
  nowMs?: () => number;
  onEvent?: (event: RetrievalEvent) => void;
  /** Last successful fetch per apiId as the store knows it at start (endpoint status keeps it on errors). */
  lastFetchAt?: Record<string, string>;
  /** Health per apiId as the store knows it at start, so "since when" survives restarts. */
  healthAtStart?: Record<string, { state: HealthState; since: string; failing: string[] }>;
  /**
   * Longest a request waits for its data (fetch, extraction, model fill). Past it the request fails as a
   * 502 timeout and its credits are refunded; the load itself may finish and fill the cache for the next one.
   */
  answerTimeoutMs?: number;
  /** How long usage counters wait in memory before they go to the store (default 1 s). */
  usageFlushMs?: number;
  /** How long a costly extraction failure is answered from memory for the same endpoint and variables (default 30 s; 0: never). */
  failureCacheMs?: number;
  /** Server-side failures one key may cause per minute before its uncached requests are refused (default 30). */
  failedRetrievalsPerMinute?: number;
  /** Told about degraded and broken extractions (the daemon's background repair). */
  onUnhealthy?: (config: ApiConfig, values: Record<string, unknown>) => void;
  /** Every extraction's health, healthy ones too (monitors turn changes of it into webhook events). */
  onHealth?: (config: ApiConfig, state: HealthState, failing: string[]) => void;
  /** The daemon's latest repair per apiId, kept in every endpoint status written. */
  repairOf?: (apiId: string) => EndpointRuntimeStatus['repair'] | undefined;
}

/** Failures that cost the daemon real work (a budget run out, a hostile page): remembered, not repeated. */
const REMEMBERED_FAILURES = new Set(['EXTRACTION_TIMEOUT', 'EXTRACTION_LIMIT', 'EXTRACTION_FAILED']);

/** A refresh outside any request (a monitor's run): no key, no credits; the cache is filled as by a miss. */
export type RefreshOutcome =
  | { ok: true; data: Record<string, unknown>; health: HealthState; failing: string[] }
  | { ok: false; error: string; health?: HealthState };

export interface RetrievalService {
  retrieve(request: RetrievalRequest): Promise<RetrievalAnswer>;
  refresh(config: ApiConfig, values: Record<string, unknown>): Promise<RefreshOutcome>;
  /** Hand buffered usage counters to the store (done every `usageFlushMs` and on close). */
  flushUsage(): Promise<void>;
  close(): Promise<void>;
}

/** Failures of the wire table's 5xx rows are the service's fault: their reserved credits are refunded. */
function isServerSide(error: unknown): boolean {
  if (!isPagejsonError(error)) return true;
  const code = error.code;
  return !(code.startsWith('VARIABLE_') || code.startsWith('BODY_') || ['KEY_MISSING', 'KEY_INVALID', 'KEY_NOT_FOUND', 'NO_DATA', 'ENDPOINT_INACTIVE', 'NO_CREDITS'].includes(code));
}

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  // DESIGN.md section 4: any Content-Type other than application/json (parameters such as charset aside) is a 415.
  return contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** The variable values of a request, or a body error (the body row of the table comes before variables). */
const dynamicConfigs = new WeakMap<ApiConfig, boolean>();
/** Whether a config has placeholders, computed once per loaded config object (the hit path is hot). */
function isDynamicConfig(config: ApiConfig): boolean {
  let dynamic = dynamicConfigs.get(config);
  if (dynamic === undefined) dynamicConfigs.set(config, (dynamic = isDynamic(config.url)));
  return dynamic;
}

function requestValues(request: RetrievalRequest, config: ApiConfig): Record<string, unknown> {
  const body = request.body;
  const hasBody = body !== undefined && body.raw.length > 0;
  if (request.method === 'POST' && hasBody) {
    if (body.raw.length > MAX_BODY_BYTES) throw new PagejsonError('BODY_TOO_LARGE', 'request body is too large', { context: { bytes: body.raw.length } });
    // A body declared as something else (a form, plain text) is the wrong type, not bad JSON: say which type
    // is accepted rather than that it does not parse (docs/decisions.md, "The first hour").
    if (body.contentType !== undefined && body.contentType.trim() !== '' && !isJsonContentType(body.contentType)) {
      throw new PagejsonError('BODY_CONTENT_TYPE', 'Content-Type must be application/json', { context: { contentType: body.contentType } });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.raw.toString('utf8'));
    } catch {
      throw new PagejsonError('BODY_INVALID_JSON', 'request body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new PagejsonError('BODY_NOT_OBJECT', 'request body must be a JSON object');
    if (!isJsonContentType(body.contentType)) throw new PagejsonError('BODY_CONTENT_TYPE', 'Content-Type must be application/json', { context: { contentType: body.contentType } });
    return parsed as Record<string, unknown>;
  }
  // GET: a dynamic config takes its variables from the query string; a static one ignores the query
  // (cache-busting parameters and the like must not turn into "unknown variable").
  if (request.method === 'GET' && isDynamicConfig(config)) return { ...request.query };
  return {};
}

/** A RetrievalAnswer as a class: its getters are on the prototype, not closures made per answer (the hit path is hot). */
class Answered implements RetrievalAnswer {
  readonly cache: CacheState;
  readonly ageSeconds: number;

  constructor(
    private readonly answer: CacheAnswer,
    readonly creditsRemaining: number | undefined,
    readonly config: ApiConfig,
    readonly health: 'healthy' | 'degraded',
  ) {
    this.cache = answer.state;
    this.ageSeconds = answer.ageSeconds;
  }

  get bytes(): Buffer {
    return this.answer.bytes;
  }

  get gzipped(): Buffer | undefined {
    return this.answer.gzipped;
  }

  get body(): string {
    return this.answer.body;
  }
}

/** The key a verdict names (in scope or not), or the wire's key error. */
function keyOf(verdict: KeyVerdict): ApiKeyRecord {
  if (verdict.ok || verdict.reason === 'scope') return verdict.record;
  if (verdict.reason === 'missing') throw new PagejsonError('KEY_MISSING', 'Path: apikey -  Message: Required');
  throw new PagejsonError('KEY_INVALID', 'invalid key');
}

/** The answer, or a FETCH_TIMEOUT once `ms` have passed (the work goes on; its result may still be cached). */
function withinDeadline<T>(work: Promise<T>, ms: number | undefined): Promise<T> {
  if (ms === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PagejsonError('FETCH_TIMEOUT', `timed out after ${ms} ms`, { context: { timeoutMs: ms }, hint: 'the source or the model is slow; raise fetch.timeoutMs in pagejson.json if it is just slow' })), ms);
  });
  // A late failure of the work after the deadline answered must not become an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export function createRetrievalService(deps: RetrievalDeps): RetrievalService {
  const emit = (event: RetrievalEvent): void => deps.onEvent?.(event);
  const nowMs = deps.nowMs ?? (() => deps.now().getTime());
  const ensuredAccounts = new Set<string>();
  const lastFetchAt = new Map<string, string>(Object.entries(deps.lastFetchAt ?? {}));
  const usage = createUsageBuffer(deps.store, deps.usageFlushMs ?? 1_000);
  const failureCacheMs = deps.failureCacheMs ?? 30_000;
  // Keyed by cache key (endpoint, revision, resolved URL): the same failing page is not extracted again soon.
  const recentFailures = new LRUCache<string, PagejsonError>({ max: 10_000, ttl: Math.max(1, failureCacheMs), ttlAutopurge: false, perf: { now: () => deps.now().getTime() } });
  const failureRate = createFailureRate(deps.failedRetrievalsPerMinute ?? 30, () => deps.now().getTime());
  // A static config has one URL and one cache key per revision: compute them once (the hit path is hot).
  const staticKeys = new WeakMap<ApiConfig, string>();
  const cacheKeyFor = (config: ApiConfig, values: Record<string, unknown>): string => {
    if (isDynamicConfig(config)) return cacheKey(config.apiId, config.revision, resolveSourceUrl(config, values));
    let key = staticKeys.get(config);
    if (key === undefined) staticKeys.set(config, (key = cacheKey(config.apiId, config.revision, resolveSourceUrl(config, values))));
    return key;
  };

  async function ensureAccount(account: string): Promise<void> {
    if (ensuredAccounts.has(account)) return;
    await deps.store.ensureAccount(account, deps.credits.freeMilliCredits);
    ensuredAccounts.add(account);
  }

  async function retrieve(request: RetrievalRequest): Promise<RetrievalAnswer> {
    const atMs = nowMs();
    // Awaited here rather than in a helper of its own: every async layer of a hit is a promise and a microtask.
    const verdict = await verifyApiKey(deps.store, request.apikey, request.apiId, atMs);
    const key = keyOf(verdict);
    const config = deps.configs.get(request.apiId);
    if (!config || !verdict.ok) throw new PagejsonError('NO_DATA', 'no data', { context: { apiId: request.apiId } });
    if (config.status === 'inactive') throw new PagejsonError('ENDPOINT_INACTIVE', 'endpoint is inactive', { context: { apiId: config.apiId } });

    const values = requestValues(request, config);
    const problems = isDynamicConfig(config) || Object.keys(values).length > 0 ? checkVariableValues(config, values) : [];
    if (problems.length > 0) throw new PagejsonError(problems[0]!.code, problems[0]!.message, { context: { problems } });

    const entryKey = cacheKeyFor(config, values);
    const cost = retrievalCost(config.scraper);
    const account = key.account;
    if (!ensuredAccounts.has(account)) await ensureAccount(account);
    // An answer already in memory cannot fail: it is taken now, and its debit is final at once.
    const inMemory = config.caching ? deps.cache.fromMemory(entryKey) : undefined;
    // `return await`: an async function returning a promise unwraps it in two more microtasks than an await.
    if (inMemory) return await answerFromMemory(inMemory, config, values, key, entryKey, cost, atMs);
    return await answerByLoading(config, values, key, entryKey, cost, atMs);
  }

  /**
   * The request's debit: final at once (`reserve`), or with `holdId` a hold the store remembers until the
   * answer is settled or the failure released. Either applies synchronously inside the store, so no await
   * separates the balance check from the debit. Refuses with NO_CREDITS; with credits off, only reads the
   * balance (metering: callers still see it). Returns the balance after it.
   */
  function charge(config: ApiConfig, key: ApiKeyRecord, cost: number, atMs: number, holdId?: string): Promise<number | undefined> {
    const account = key.account;
    if (!deps.credits.enabled) return deps.store.getAccount(account).then((found) => found?.balance);
    // A `then` on the store's promise rather than an async function: one promise less on every hit.
    return (holdId ? deps.store.hold(account, cost, holdId) : deps.store.reserve(account, cost)).then((reservation) => {
      const balance = reservation.balance;
      if (!reservation.ok) {
        usage.add(config.apiId, key.id, account, 'ERROR', 0, atMs);
        throw new PagejsonError('NO_CREDITS', 'No credits left ⚠. Please buy more credits', { context: { balance, cost, creditsRemaining: balance } });
      }
      emit({ kind: 'debit', apiId: config.apiId, milliCredits: cost });
      return balance;
    });
  }

  /** Model tokens a load spent after its request was answered (a background refresh): keyless, no credits. */
  const recordLateTokens =
    (config: ApiConfig, account: string) =>
    (tokens: TokenUsage): void =>
      usage.record({ apiId: config.apiId, keyId: null, account, milliCredits: 0, outcome: 'MODEL', at: deps.now(), ...tokens });

  /**
   * The hit path, kept lean (it is most of a daemon's traffic): the answer's bytes are already in hand, so the
   * one await that matters is the debit's journal write. A STALE answer's refresh starts after the debit, so a
   * caller without credits never makes the daemon fetch.
   */
  async function answerFromMemory(answer: CacheAnswer, config: ApiConfig, values: Record<string, unknown>, key: ApiKeyRecord, entryKey: string, cost: number, atMs: number): Promise<RetrievalAnswer> {
    const balance = await charge(config, key, cost, atMs);
    if (answer.state === 'STALE') {
      const recordTokens = recordLateTokens(config, key.account);
      deps.cache.refreshLater(entryKey, () => fetchAndRecord(config, values, recordTokens, entryKey));
    }
    usage.add(config.apiId, key.id, key.account, answer.state, cost, atMs);
    emit({ kind: 'health', apiId: config.apiId, state: 'healthy' });
    return new Answered(answer, balance, config, 'healthy');
  }

  /** Everything but a hit in memory: the store's cache, a shared or own fetch, or no caching at all. */
  async function answerByLoading(config: ApiConfig, values: Record<string, unknown>, key: ApiKeyRecord, entryKey: string, cost: number, atMs: number): Promise<RetrievalAnswer> {
    const wait = failureRate.retryAfter(key.id);
    if (wait > 0) {
      throw new PagejsonError('RATE_LIMITED', `too many failed retrievals with this key; try again in ${wait} s`, {
        context: { retryAfterSeconds: wait, keyId: key.id },
        hint: 'the endpoint keeps failing: check it with `pagejson run` before calling it again',
      });
    }

    const account = key.account;
    // This answer may still fail after the debit: it is a hold, settled once answered or released on failure.
    const holdId = deps.credits.enabled ? randomUUID() : undefined;
    let balance = await charge(config, key, cost, atMs, holdId);

    // Model tokens of a load this request ran (MISS, BYPASS) go into its own usage event. A load that ends after
    // the answer (a STALE hit's background refresh) records them on its own, with no key and no credits.
    const spent: { answered: boolean; tokens?: TokenUsage } = { answered: false };
    const recordRefreshTokens = recordLateTokens(config, account);
    const onTokens = (tokens: TokenUsage): void => {
      if (spent.answered) recordRefreshTokens(tokens);
      else spent.tokens = tokens;
    };
    try {
      const remembered = recentFailures.get(entryKey);
      if (remembered) throw remembered;
      const answer = await withinDeadline(
        deps.cache.get(entryKey, () => fetchAndRecord(config, values, onTokens, entryKey), { caching: config.caching }),
        deps.answerTimeoutMs,
      );
      // The request counts as answered once its settled hold is durable: a kill -9 before that refunds it.
      if (holdId) await deps.store.settle(holdId);
      spent.answered = true;
      const tokens = spent.tokens;
      if (tokens && answer.state === 'STALE') recordRefreshTokens(tokens);
      // With credits off the cost is recorded all the same: usage says what the request would have cost.
      if (tokens && answer.state !== 'STALE') usage.record({ apiId: config.apiId, keyId: key.id, account, milliCredits: cost, outcome: answer.state, at: deps.now(), ...tokens });
      else usage.add(config.apiId, key.id, account, answer.state, cost, nowMs());
      const health = answer.note === 'degraded' ? 'degraded' : 'healthy';
      emit({ kind: 'health', apiId: config.apiId, state: health });
      return new Answered(answer, balance, config, health);
    } catch (error) {
      spent.answered = true;
      if (isPagejsonError(error) && error.code === 'EXTRACTION_EMPTY') emit({ kind: 'health', apiId: config.apiId, state: 'broken' });
      if (isServerSide(error)) {
        failureRate.count(key.id);
        if (holdId) {
          balance = (await deps.store.release(holdId)) ?? balance;
          emit({ kind: 'refund', apiId: config.apiId, milliCredits: cost });
        }
        usage.add(config.apiId, key.id, account, 'ERROR', 0, nowMs());
      } else if (holdId) {
        await deps.store.settle(holdId);
      }
      // Concurrent misses share one fetch and so one error object: each caller gets its own copy with its balance.
      if (isPagejsonError(error)) {
        throw new PagejsonError(error.code, error.message, { context: { ...error.context, creditsRemaining: balance }, ...(error.hint ? { hint: error.hint } : {}), cause: error });
      }
      throw error;
    }
  }

  /** The cache's loader: also runs for background refreshes, so it keeps the endpoint status itself. */
  const repairField = (apiId: string) => {
    const repair = deps.repairOf?.(apiId);
    return repair ? { repair } : {};
  };
  /** A fetch error (not an extraction's) keeps the health the endpoint had. */
  const previousHealth = (apiId: string) => {
    const previous = healthOf.get(apiId);
    return previous ? { health: previous.state, healthSince: previous.since, failingFields: previous.failing } : {};
  };
  /** When each endpoint entered its current health (kept across restarts through the store). */
  const healthOf = new Map<string, { state: HealthState; since: string; failing: string[] }>(Object.entries(deps.healthAtStart ?? {}));
  const healthFields = (config: ApiConfig, state: HealthState, failing: string[]) => {
    const apiId = config.apiId;
    // Every extraction, not only changes this daemon sees: another daemon may have seen the endpoint break.
    try {
      deps.onHealth?.(config, state, failing);
    } catch {
      // a listener's failure is not the retrieval's
    }
    const previous = healthOf.get(apiId);
    const since = previous && previous.state === state ? previous.since : deps.now().toISOString();
    healthOf.set(apiId, { state, since, failing });
    return { health: state, failingFields: failing, healthSince: since };
  };

  async function fetchAndRecord(config: ApiConfig, values: Record<string, unknown>, onTokens: (tokens: TokenUsage) => void, key: string): Promise<Record<string, unknown> | Uncacheable> {
    const started = performance.now();
    try {
      const result = await deps.load(config, values);
      if (result.usage && (result.usage.promptTokens > 0 || result.usage.completionTokens > 0)) onTokens(result.usage);
      emit({ kind: 'fetch', apiId: config.apiId, scraper: config.scraper, seconds: (performance.now() - started) / 1000, ok: true });
      const fetchedAt = result.fetchedAt.toISOString();
      lastFetchAt.set(config.apiId, fetchedAt);
      const health = healthFields(config, result.health.state, result.health.failing);
      void deps.store.setEndpointStatus({ apiId: config.apiId, lastFetchAt: fetchedAt, lastError: null, lastErrorAt: null, ...health, ...repairField(config.apiId) }).catch(() => undefined);
      // A degraded answer is served, flagged, and never cached: the next request tries the source again.
      if (result.health.state === 'degraded') {
        deps.onUnhealthy?.(config, values);
        return new Uncacheable(result.data, 'degraded');
      }
      return result.data;
    } catch (error) {
      emit({ kind: 'fetch', apiId: config.apiId, scraper: config.scraper, seconds: (performance.now() - started) / 1000, ok: false });
      if (failureCacheMs > 0 && isPagejsonError(error) && REMEMBERED_FAILURES.has(error.code)) recentFailures.set(key, error);
      const message = isPagejsonError(error) ? `${error.code}: ${error.message}` : 'internal error';
      const failedAt = deps.now().toISOString();
      // Keep the last good fetch time (seeded from the store at start, so it survives restarts).
      const broken = isPagejsonError(error) && error.code === 'EXTRACTION_EMPTY';
      const missing = broken && Array.isArray(error.context.missingRequired) && error.context.missingRequired.length > 0 ? (error.context.missingRequired as string[]) : config.structure.map((field) => field.name);
      const health = broken ? healthFields(config, 'broken', missing) : {};
      if (broken) deps.onUnhealthy?.(config, values);
      void deps.store.setEndpointStatus({ apiId: config.apiId, lastFetchAt: lastFetchAt.get(config.apiId) ?? null, lastError: message, lastErrorAt: failedAt, ...previousHealth(config.apiId), ...health, ...repairField(config.apiId) }).catch(() => undefined);
      throw error;
    }
  }

  async function refresh(config: ApiConfig, values: Record<string, unknown>): Promise<RefreshOutcome> {
    const key = cacheKeyFor(config, values);
    const recordTokens = (tokens: TokenUsage): void => usage.record({ apiId: config.apiId, keyId: null, account: 'default', milliCredits: 0, outcome: 'MODEL', at: deps.now(), ...tokens });
    try {
      const answer = await deps.cache.refresh(key, () => fetchAndRecord(config, values, recordTokens, key), { caching: config.caching });
      const health = healthOf.get(config.apiId);
      const data = (JSON.parse(answer.body) as { data: Record<string, unknown> }).data;
      const state: HealthState = answer.note === 'degraded' ? 'degraded' : 'healthy';
      return { ok: true, data, health: state, failing: state === 'healthy' ? [] : (health?.failing ?? []) };
    } catch (error) {
      const message = isPagejsonError(error) ? `${error.code}: ${error.message}` : 'internal error';
      const broken = isPagejsonError(error) && error.code === 'EXTRACTION_EMPTY';
      return { ok: false, error: message, ...(broken ? { health: 'broken' as const } : {}) };
    }
  }

  return { retrieve, refresh, flushUsage: usage.flush, close: usage.close };
}

