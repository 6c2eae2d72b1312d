import type { ProjectSettings } from '../config/index.js';
import type { DocumentLimits } from '../extract/index.js';
import type { ErrorData } from '../shared/index.js';
import type { GenerateRequest, GenerateResult } from './generate.js';
import type { FetchRequest, FetchResult } from '../fetch/index.js';

/** What crosses the thread boundary of an isolated generation: data only (errors lose their class there). */
export interface GenerationJob {
  request: GenerateRequest;
  models: ProjectSettings['models'];
  env: Record<string, string | undefined>;
  modelTimeoutMs: number;
  /** The project's data dir: what each model server accepted as a response format is remembered there. */
  dataDir?: string;
  /** The generation's timestamp (ISO), taken by the parent's clock. */
  now: string;
  /** The document limits the page is parsed within (default: extraction's defaults). */
  limits?: DocumentLimits;
}

export type ParentFetch = Omit<FetchRequest, 'signal' | 'steps' | 'loginSession'>;

/** Worker → parent. */
export type WorkerReply =
  /** The fetch's data (url, session, access, login); its signal and steps stay with the thread that made them. */
  | { kind: 'fetch'; request: ParentFetch }
  /** The page itself stays with the parent, which fetched it: not copied back. */
  | { kind: 'done'; result: Omit<GenerateResult, 'html'> }
  | { kind: 'failed'; error: ErrorData };

/** Parent → worker: the answer to its fetch. */
export type GenerationMessage = { kind: 'page'; page: FetchResult } | { kind: 'fetch-failed'; error: ErrorData };

// Errors cross as data (shared/error-data.ts); kept here too for the generation's own callers.
export { errorFromData, errorToData, type ErrorData } from '../shared/index.js';
