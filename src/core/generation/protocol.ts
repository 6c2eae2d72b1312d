import type { ProjectSettings } from '../config/index.js';
import { isPagejsonError, PagejsonError, type ErrorCode } from '../shared/index.js';
import type { GenerateRequest, GenerateResult } from './generate.js';
import type { FetchRequest, FetchResult } from '../fetch/index.js';

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
  /** The page itself stays with the parent, which fetched it: not copied back. */
  | { kind: 'done'; result: Omit<GenerateResult, 'html'> }
  | { kind: 'failed'; error: ErrorData };

/** Parent → worker: the answer to its fetch. */
export type GenerationMessage = { kind: 'page'; page: FetchResult } | { kind: 'fetch-failed'; error: ErrorData };

/** An error as data for the other thread; anything but a PagejsonError becomes `fallback` with its message. */
export function errorToData(error: unknown, fallback: { code: ErrorCode; prefix?: string }): ErrorData {
  if (isPagejsonError(error)) return { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}), context: JSON.parse(JSON.stringify(error.context ?? {})) as Record<string, unknown> };
  return { code: fallback.code, message: `${fallback.prefix ?? ''}${(error as Error)?.message ?? String(error)}` };
}

export function errorFromData(data: ErrorData): PagejsonError {
  return new PagejsonError(data.code, data.message, { ...(data.hint ? { hint: data.hint } : {}), context: data.context ?? {} });
}
