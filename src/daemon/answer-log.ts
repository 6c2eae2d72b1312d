import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

/**
 * One place for what the daemon notes about every answer: the /external counters (requests by apiId and
 * status, and the readiness probe's run of internal errors) and the request line (debug; `request failed`
 * at warn for a 5xx, with the failure's code). It is called where an answer is made, not from an onResponse
 * hook: with no hook and no Fastify logger, Fastify attaches no listeners to a response (logger.ts).
 */
export const EXTERNAL_ROUTE = '/external/:apiId';

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() when the request arrived (set by the app's onRequest hook): the line's `ms`. */
    receivedAt: number;
  }
}

export interface AnswerLog {
  /**
   * An answer with `status` goes out now. `route`: the request's route pattern (undefined when none matched),
   * passed in because Fastify's `request.routeOptions` builds an object of a dozen fields at every read.
   * `code`: the failure's code, for a 5xx.
   */
  answered(request: FastifyRequest, status: number, route: string | undefined, code?: string): void;
}

const LEVEL_VALUES: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

function logLevelEnabled(current: string | undefined, level: string): boolean {
  const threshold = current === undefined ? undefined : LEVEL_VALUES[current];
  return threshold !== undefined && LEVEL_VALUES[level]! >= threshold;
}

export function createAnswerLog(deps: { log: FastifyBaseLogger; countExternal(apiId: string | undefined, status: number): void }): AnswerLog {
  return {
    answered(request, status, route, code) {
      const apiId = route === EXTERNAL_ROUTE ? (request.params as { apiId?: string }).apiId : undefined;
      if (route === EXTERNAL_ROUTE) deps.countExternal(apiId, status);
      // Hits are logged at debug only, and the line is built only when someone will read it.
      const level = status >= 500 ? 'warn' : 'debug';
      if (!logLevelEnabled(deps.log.level, level)) return;
      // request.log carries reqId.
      // A request refused before the hooks ran (a malformed URL: frameworkErrors) has no arrival time.
      const ms = request.receivedAt > 0 ? Math.round(performance.now() - request.receivedAt) : 0;
      const line = { method: request.method, route: route ?? 'none', apiId, status, ms, ...(code ? { code } : {}) };
      request.log[level](line, level === 'warn' ? 'request failed' : 'request');
    },
  };
}
