/** Shapes of the /ui/api answers (src/daemon/dashboard): what the pages read. */
export interface Field {
  name: string;
  type: string;
  selector?: string;
  attribute?: string;
  transform?: string[];
  description?: string;
  required?: boolean;
  fields?: Field[];
  items?: { type: string; attribute?: string; fields?: Field[] };
}

export interface Config {
  apiId: string;
  revision: number;
  status: 'active' | 'inactive';
  url: string;
  variables: Record<string, { example?: string; pattern?: string }>;
  scraper: 1 | 2 | 3;
  session: boolean;
  caching: boolean;
  model: string;
  selector: string;
  rule: string | null;
  description?: string;
  structure: Field[];
  /** Headers and cookies sent with every fetch, as served: templates kept, written-in credentials masked (docs/access.md). */
  request?: { headers?: Record<string, string>; cookies?: Record<string, string>; sendToRedirects?: boolean };
  /** false: direct; absent: pagejson.json's, then the environment's. */
  proxy?: false | { urls: string[]; rotate: 'round-robin' | 'sticky' };
  /** Browser steps (docs/actions.md), as in the config file. */
  actions?: Array<Record<string, unknown>>;
  pagination?: Pagination;
  /** The login (docs/access.md), as served: templates kept, written-in credentials masked. */
  login?: { url: string; form?: Record<string, string>; steps?: Array<Record<string, unknown>>; loggedIn?: string };
}

/** How the list is read over pages (docs/pagination.md), as in the config file. */
export interface Pagination {
  next?: string;
  variable?: string;
  start?: number;
  loadMore?: string;
  scroll?: true;
  maxPages: number;
  maxItems?: number;
  list?: string;
  key?: string;
}

/** One browser step in words, numbered as errors name it (`2.1` inside step 2's then). */
export interface ActionStep {
  step: string;
  text: string;
}

export interface Totals {
  requests: number;
  errors: number;
  cacheHits: number;
  retrievalMilliCredits: number;
  generationMilliCredits: number;
  /** Model tokens (docs/models.md, "Tokens"). */
  promptTokens: number;
  completionTokens: number;
}

export interface EndpointStatus {
  apiId: string;
  status: 'active' | 'inactive';
  sourceUrl: string;
  scraper: 1 | 2 | 3;
  scraperName: string;
  caching: boolean;
  variables: string[];
  lastFetchAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  health: 'healthy' | 'degraded' | 'broken' | 'blocked' | null;
  failingFields: string[];
  healthSince: string | null;
  /** What changed, field by field, in words ("price: empty in 1 of 1 (was filled in 5 of 5)"), when not healthy. */
  findings: string[];
  usage: { requests: number; errors: number; cacheHits: number; milliCredits: number };
}

export interface EndpointRow extends EndpointStatus {
  description: string;
  last24h: Totals;
}

export interface UrlPlace {
  spec: string;
  kind: 'path' | 'query';
  label: string;
  value: string;
  variable: string | null;
}

export interface Change {
  kind: string;
  subject: string;
  text: string;
}

export interface Problem {
  file?: string;
  path: string;
  message: string;
  hint?: string;
}

export type Operation =
  | { kind: 'add'; path: string; type: string; selector?: string; attribute?: string }
  | { kind: 'remove'; path: string }
  | { kind: 'rename'; path: string; name: string }
  | { kind: 'move'; path: string; position: number }
  | { kind: 'set'; key: string; value: string }
  | { kind: 'var'; spec: string; name: string }
  | { kind: 'unvar'; name: string };

export interface EditAnswer {
  config: Config;
  changed?: boolean;
  written: boolean;
  changes?: Change[];
  problems: Problem[];
  sample?: Record<string, unknown>;
  previewError?: { code: string; message: string };
  file?: string;
  actionSteps?: ActionStep[];
  paginationText?: string | null;
}

export interface KeyView {
  id: string;
  account: string;
  label: string | null;
  scope: string[] | null;
  status: 'active' | 'revoked' | 'expired';
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  usage: { requests: number; errors: number; cacheHits: number; milliCredits: number };
  endpoints: string[];
}

export interface CreatedKey {
  id: string;
  key: string;
  label: string | null;
  scope: string[] | null;
  createdAt: string;
}

export interface UsagePoint extends Totals {
  at: string;
}

/** A job as the Jobs page lists it (GET /ui/api/jobs; docs/jobs.md). */
export interface JobRow {
  id: string;
  apiId: string;
  state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  total: number;
  done: number;
  failed: number;
  skipped: number;
  credits: number;
  source: string;
  concurrency: number;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  reason?: string;
  keyId: string | null;
  keyLabel: string | null;
}

/** How many of a job's inputs ended without data for one reason, with the first one's words. */
export interface JobReason {
  code: string;
  outcome: 'error' | 'skipped';
  count: number;
  message: string;
}
