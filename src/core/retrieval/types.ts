import type { ConfigRegistry } from '../registry/index.js';
import type { ApiConfig } from '../config/index.js';
import type { EndpointObservation, EndpointRuntimeStatus, HealthBaseline, StateStore } from '../state/index.js';
import type { CacheState, ResponseCache } from '../cache/index.js';
import type { HealthState } from '../health/index.js';
import type { TokenUsage } from '../models/index.js';
import type { RetrieveResult } from './retrieve.js';

/** The body row's limit (docs/wire.md): a POST body over it is `request body is too large`. */
export const MAX_BODY_BYTES = 16 * 1024;

/**
 * A request's body: bytes already read (MCP), or a reader the retrieval calls once the rows before the body
 * (key, endpoint, status) have passed, so that a body never decides an answer those rows decide first.
 */
export type RequestBody =
  | { raw: Buffer; contentType: string | undefined }
  | {
      /** At most `maxBytes` of the body; undefined when it is longer (the rest is then not read). */
      read(maxBytes: number): Promise<Buffer | undefined>;
      contentType: string | undefined;
    };

/** One retrieval request in core terms, transport-free. */
export interface RetrievalRequest {
  apiId: string;
  apikey: string | undefined;
  method: 'GET' | 'POST';
  body: RequestBody | undefined;
  query: Record<string, unknown>;
  /** The caller sent a bearer token instead of the key (the commonest first mistake): the missing-key answer says where the key goes. */
  keyAsBearer?: boolean;
  /**
   * A job's item (src/core/jobs): the key by its id, verified by the daemon when the job was started, so that
   * no key is kept in a job's files. Still checked here: a key revoked or expired since then is refused.
   */
  keyId?: string;
}

export interface RetrievalAnswer {
  /** The pre-serialised envelope `{"data":…,"errors":null}` as UTF-8 bytes: sent as is. */
  readonly bytes: Buffer;
  /** The same bytes gzipped, when the cache keeps them so (see CacheAnswer). */
  readonly gzipped: Buffer | undefined;
  /** The same as text, made only when asked for (see CacheAnswer). */
  readonly body: string;
  readonly cache: CacheState;
  readonly ageSeconds: number;
  /** Balance after this request, milli-credits (undefined when the account is unknown). */
  readonly creditsRemaining: number | undefined;
  readonly config: ApiConfig;
  /**
   * `X-Pagejson-Health`: a loaded answer's own health (`degraded`: served, flagged, not cached), a cached one's
   * the endpoint's current health (`broken` when `check` found it broken since it was cached).
   */
  readonly health: HealthState;
  /** A paginated config: the pages the answer holds (`X-Pagejson-Pages`); undefined otherwise. */
  readonly pages: number | undefined;
  /** A paginated answer cut short (`X-Pagejson-Partial`): `time` (the budget ended) or `error` (a later page failed). */
  readonly partial: string | undefined;
  /** What the answer cost, milli-credits (debited only when credits are on): a job adds up its items' costs. */
  readonly cost: number;
}

export type RetrievalEvent =
  | { kind: 'fetch'; apiId: string; scraper: number; seconds: number; ok: boolean }
  | { kind: 'debit'; apiId: string; milliCredits: number }
  | { kind: 'refund'; apiId: string; milliCredits: number }
  | { kind: 'health'; apiId: string; state: HealthState }
  /** The first answer of an unhealthy episode (served, or refused by `health.refuseDegraded`): the daemon logs it. */
  | { kind: 'unhealthy'; apiId: string; state: 'degraded' | 'broken'; refused: boolean; findings: string[] };

/** What one load of an endpoint produced: the data and, as typed fields, its health and the model's tokens. */
export interface LoadOutcome {
  data: Record<string, unknown>;
  /** `healthy` or `degraded` (a broken extraction is a failure, EXTRACTION_EMPTY). */
  health: HealthState;
  failing: string[];
  /** Tokens the model spent filling model fields (absent when it made no call or reported none). */
  tokens: TokenUsage | undefined;
  /** A paginated config: the pages the data holds; why it was cut short, if it was (docs/pagination.md). */
  pages?: number;
  partial?: 'time' | 'error';
  /** The addresses of those pages, in order. */
  pageUrls?: string[];
}

export interface RetrievalDeps {
  configs: ConfigRegistry;
  store: StateStore;
  cache: ResponseCache;
  /** The page pipeline: fetch + extract one config with these variable values, at the URL already resolved from them. */
  load(config: ApiConfig, values: Record<string, unknown>, sourceUrl: string, baseline?: HealthBaseline): Promise<RetrieveResult>;
  /** `hitMilliCredits`: an answer from the cache costs this, whatever its pages (credits.hit); absent: as a miss. */
  credits: { enabled: boolean; freeMilliCredits: number; hitMilliCredits?: number };
  now(): Date;
  /** The same clock in ms (default: from `now`); the daemon passes Date.now, so a hit makes no Date. */
  nowMs?: () => number;
  onEvent?: (event: RetrievalEvent) => void;
  /** Last successful fetch per apiId as the store knows it at start (endpoint status keeps it on errors). */
  lastFetchAt?: Record<string, string>;
  /** Health per apiId as the store knows it at start, so "since when" survives restarts. */
  healthAtStart?: Record<string, { state: HealthState; since: string; failing: string[]; findings?: string[] }>;
  /** The health baseline per apiId as the store knows it at start (health/baseline.ts). */
  baselinesAtStart?: Record<string, HealthBaseline>;
  /** An endpoint's last good data the project keeps (its snapshots' data): its baseline until one is learned. */
  goodDataOf?: (config: ApiConfig) => Promise<unknown[]>;
  /**
   * The request's one deadline: the longest it waits for its data (fetch, extraction, model fill). Past it the
   * request fails as a 502 timeout and its credits are refunded; the load itself may finish and fill the cache
   * for the next one.
   */
  answerTimeoutMs?: number;
  /** How long usage counters wait in memory before they go to the store (default 1 s). */
  usageFlushMs?: number;
  /** How long a costly extraction failure is answered from memory for the same endpoint and variables (default 30 s; 0: never). */
  failureCacheMs?: number;
  /** Failures (the service's, and bad requests) one key may cause per minute before its uncached requests are refused (default 30). */
  failedRetrievalsPerMinute?: number;
  /**
   * `health.refuseDegraded` of pagejson.json: an endpoint that is not healthy is answered with the broken
   * answer's 502 (EXTRACTION_EMPTY, refunded), its cached answers not served until a load is healthy again.
   */
  refuseDegraded?: boolean;
  /** Told about degraded and broken extractions (the daemon's background repair). */
  onUnhealthy?: (config: ApiConfig, values: Record<string, unknown>, lastGood?: Record<string, unknown>, baseline?: HealthBaseline) => void;
  /** Every extraction's health, healthy ones too (monitors turn changes of it into webhook events). */
  onHealth?: (config: ApiConfig, state: HealthState, failing: string[], findings?: string[]) => void;
  /** The daemon's latest repair per apiId, kept in every endpoint status written. */
  repairOf?: (apiId: string) => EndpointRuntimeStatus['repair'] | undefined;
}

/** A refresh outside any request (a monitor's run): no key, no credits; the cache is filled as by a miss. */
export type RefreshOutcome =
  | {
      ok: true;
      data: Record<string, unknown>;
      health: HealthState;
      failing: string[];
      pages?: number;
      partial?: string;
      pageUrls?: string[];
    }
  | { ok: false; error: string; health?: HealthState };

export interface RetrievalService {
  retrieve(request: RetrievalRequest): Promise<RetrievalAnswer>;
  refresh(config: ApiConfig, values: Record<string, unknown>): Promise<RefreshOutcome>;
  /** Record a retrieval made outside the daemon (`pagejson run`, `check` over the admin socket) in the endpoint's status. */
  observe(observation: EndpointObservation): Promise<void>;
  /** Hand buffered usage counters to the store (done every `usageFlushMs` and on close). */
  flushUsage(): Promise<void>;
  close(): Promise<void>;
}
