/**
 * The state seam (accounts and balances, API keys, usage aggregates, endpoint runtime status).
 * Every driver (lowdb embedded, Redis) passes test/contract/state-store.contract.ts.
 *
 * Amounts are integer milli-credits. A balance change must be applied before the returned promise's first
 * await inside the driver (the embedded driver applies it synchronously), so that two requests can never
 * both spend the last credits. The returned promise resolves once the change has been issued to durable
 * storage: the daemon answers a request that changed the balance only after that.
 */
export interface Account {
  id: string;
  balance: number;
  createdAt: string;
}

export type KeyStatus = 'active' | 'revoked';

export interface ApiKeyRecord {
  /** Short public id, e.g. `k_3f9a2c1b`, shown in lists and usage. */
  id: string;
  /** SHA-256 hex digest of the full key. The key itself is never stored. */
  digest: string;
  account: string;
  label: string | null;
  /** apiIds the key may call; null = all. */
  scope: string[] | null;
  status: KeyStatus;
  createdAt: string;
  lastUsedAt: string | null;
  /** Set by `keys rotate --grace`: the key stops working at this instant. */
  expiresAt: string | null;
}

export interface ReserveResult {
  ok: boolean;
  /** Balance after the reservation (or the unchanged balance when refused). */
  balance: number;
}

export interface UsageEvent {
  apiId: string;
  keyId: string | null;
  account: string;
  /** Milli-credits charged (0 when refunded or metered with credits disabled). */
  milliCredits: number;
  /**
   * HIT, STALE, MISS, BYPASS, or ERROR for a client request. MODEL: model tokens spent outside any client
   * request (a background refresh, a generation); it adds its tokens and credits but counts no request.
   */
  outcome: 'HIT' | 'STALE' | 'MISS' | 'BYPASS' | 'ERROR' | 'MODEL';
  at: Date;
  /** How many requests of the same outcome this event stands for (default 1): the usage buffer sums alike events. */
  count?: number;
  /** LLM tokens a model spent for this event (absent: none). */
  promptTokens?: number;
  completionTokens?: number;
}

export interface UsageRow {
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /** UTC hour, `YYYY-MM-DDTHH:00Z`: only in rows of an hourly query (`unit: 'hour'`). */
  hour?: string;
  apiId: string;
  keyId: string | null;
  requests: number;
  errors: number;
  cacheHits: number;
  milliCredits: number;
  /** LLM tokens spent by model calls (model fields at retrieval, generation); 0 when none. */
  promptTokens: number;
  completionTokens: number;
}

export interface UsageQuery {
  apiId?: string;
  keyId?: string;
  /** Days back from today, inclusive of today. */
  days?: number;
  /**
   * `hour`: hourly rows (kept for HOURLY_USAGE_RETENTION_HOURS, for the dashboard's charts) of the last `hours`
   * hours, this one included (default all kept). Default `day`: daily rows.
   */
  unit?: 'day' | 'hour';
  hours?: number;
}

export interface EndpointRuntimeStatus {
  apiId: string;
  lastFetchAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  /**
   * Health of the last extraction (absent before any, and in state written before health existed), or
   * `blocked`: the last load met a block page (docs/block-pages.md) and nothing was extracted.
   */
  health?: 'healthy' | 'degraded' | 'broken' | 'blocked';
  /** Dotted paths of the fields that failed in it. */
  failingFields?: string[];
  /** When the endpoint entered its current health. */
  healthSince?: string;
  /** The daemon's last repair of this endpoint (heal: propose or apply). */
  repair?: { outcome: 'proposed' | 'applied'; file: string; revision: number; at: string };
  /** What changed, field by field, in words ("price: empty in 1 of 1 (was filled in 5 of 5)"), when not healthy. */
  findings?: string[];
  /** What good data of each field looks like, learned from healthy observations (src/core/health/baseline.ts). */
  baseline?: HealthBaseline;
}

/** The kinds a value is read as (src/core/health/value-kind.ts). */
export type ValueKind = 'number' | 'price' | 'url' | 'date' | 'identifier' | 'label' | 'text' | 'boolean';

/**
 * One field's baseline. `path` is dotted (`books.price` for the price of each item of `books`); selector,
 * attribute and type say which field it was learned for, so that a field renamed or moved keeps it
 * (the baseline belongs to the field, not its name). Counts decay: the latest observations weigh most.
 */
export interface FieldBaseline {
  path: string;
  selector?: string;
  attribute?: string;
  type: string;
  /** Good observations, and those in which the field had a value (arrays: an item; item fields: in some item). */
  seen: number;
  filled: number;
  /** Arrays: item counts of the latest good observations (newest last, at most 10). */
  counts?: number[];
  /**
   * A paginated or load-more list: the pages (or rounds) of the latest whole reads (newest last, at most 10); its
   * `counts` are those reads' too, so a read that stops early is told from them (health/list-read.ts).
   */
  pages?: number[];
  /** The median length of its text values in each of the latest good observations (newest last, at most 10): their shape. */
  lengths?: number[];
  /** A table column: the header it was read under in the latest good observation (health/table-headers.ts). */
  header?: string;
  /** Values by kind over the good observations. */
  kinds?: Partial<Record<ValueKind, number>>;
}

export interface HealthBaseline {
  version: 1;
  fields: FieldBaseline[];
  /** The latest healthy data, cut short (lists to their first items, long text cut): what `heal` anchors on without a snapshot. */
  sample?: Record<string, unknown>;
}

/** A retrieval made outside the daemon's own loads (`run`, `check`): what the endpoint's status records of it. */
export interface EndpointObservation {
  apiId: string;
  at: string;
  /** Absent: the page could not be fetched (`error` says why); the health stays as it was. */
  health?: 'healthy' | 'degraded' | 'broken';
  failingFields?: string[];
  findings?: string[];
  baseline?: HealthBaseline;
  error?: string;
}

export interface StateStore {
  readonly name: string;
  ensureAccount(account: string, initialMilliCredits: number): Promise<Account>;
  getAccount(account: string): Promise<Account | undefined>;
  reserve(account: string, milliCredits: number): Promise<ReserveResult>;
  refund(account: string, milliCredits: number): Promise<number>;
  /**
   * A reservation that the store remembers until it is settled (the request was answered: the debit stays)
   * or released (it failed: the debit is refunded). Applied like `reserve`. A process killed in between
   * leaves the hold behind, and `releaseOrphanedHolds` at the next start gives those credits back, so a
   * balance always equals what it was minus what was answered.
   */
  hold(account: string, milliCredits: number, holdId: string): Promise<ReserveResult>;
  /**
   * Settles a hold: its debit stays. With `milliCredits` below what was held, only that much stays and the
   * rest is refunded in the same step (a paginated answer held for its most pages and holding fewer,
   * docs/pagination.md); the balance after that refund is returned, else undefined.
   */
  settle(holdId: string, milliCredits?: number): Promise<number | undefined>;
  /** Refunds a hold; the balance after it, or undefined when no such hold is kept (already settled or released). */
  release(holdId: string): Promise<number | undefined>;
  /** Releases the holds whose process is gone (embedded: all but this store's own; Redis: those of daemons whose heartbeat expired). */
  releaseOrphanedHolds(): Promise<{ holds: number; milliCredits: number }>;
  grant(account: string, milliCredits: number): Promise<number>;

  addKey(record: ApiKeyRecord): Promise<void>;
  findKeyByDigest(digest: string): Promise<ApiKeyRecord | undefined>;
  getKey(id: string): Promise<ApiKeyRecord | undefined>;
  listKeys(): Promise<ApiKeyRecord[]>;
  updateKey(id: string, patch: Partial<Omit<ApiKeyRecord, 'id' | 'digest'>>): Promise<ApiKeyRecord | undefined>;

  recordUsage(event: UsageEvent): Promise<void>;
  usage(query: UsageQuery): Promise<UsageRow[]>;

  setEndpointStatus(status: EndpointRuntimeStatus): Promise<void>;
  listEndpointStatus(): Promise<EndpointRuntimeStatus[]>;

  /** Resolves when every change made so far is durable. */
  flush(): Promise<void>;
  close(): Promise<void>;
}
