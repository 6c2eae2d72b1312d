import { isPagejsonError, PagejsonError, type ErrorCode } from './errors.js';

/**
 * An error as data, for the other side of a thread boundary (a structured clone keeps no class): what a
 * worker thread posts back, made a PagejsonError again by its parent.
 */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  hint?: string;
  context?: Record<string, unknown>;
}

/** An error as data for the other thread; anything but a PagejsonError becomes `fallback` with its message. */
export function errorToData(error: unknown, fallback: { code: ErrorCode; prefix?: string }): ErrorData {
  if (isPagejsonError(error))
    return {
      code: error.code,
      message: error.message,
      ...(error.hint ? { hint: error.hint } : {}),
      context: JSON.parse(JSON.stringify(error.context ?? {})) as Record<string, unknown>,
    };
  return { code: fallback.code, message: `${fallback.prefix ?? ''}${(error as Error)?.message ?? String(error)}` };
}

export function errorFromData(data: ErrorData): PagejsonError {
  return new PagejsonError(data.code, data.message, { ...(data.hint ? { hint: data.hint } : {}), context: data.context ?? {} });
}
