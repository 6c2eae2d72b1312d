import type { ProjectSettings } from '../config/schema.js';
import type { ErrorCode } from '../errors.js';
import type { GenerateRequest, GenerateResult } from '../generate.js';
import type { FetchRequest, FetchResult } from '../scrapers/types.js';

/** What crosses the thread boundary of an isolated generation: data only (errors lose their class there). */
export interface GenerationJob {
  request: GenerateRequest;
  models: ProjectSettings['models'];
  env: Record<string, string | undefined>;
  modelTimeoutMs: number;
  /** The generation's timestamp (ISO), taken by the parent's clock. */
  now: string;
}

export interface ErrorData {
  code: ErrorCode;
  message: string;
  hint?: string;
  context?: Record<string, unknown>;
}

/** Worker → parent. */
export type WorkerReply =
  | { kind: 'fetch'; request: Pick<FetchRequest, 'url' | 'session'> }
  | { kind: 'done'; result: GenerateResult }
  | { kind: 'failed'; error: ErrorData };

/** Parent → worker: the answer to its fetch. */
export type GenerationMessage = { kind: 'page'; page: FetchResult } | { kind: 'fetch-failed'; error: ErrorData };
