import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/**
 * One place for what the daemon does with every answer as it goes out: the /external counters (requests by
 * apiId and status, and the readiness probe's run of internal errors), the request line (debug; `request
 * failed` at warn for a 5xx, with the failure's code), and while draining `connection: close`, so a keep-alive
 * connection does not hold close() open after its in-flight request. It is called where an answer is made,
 * not from app-wide hooks: with no onResponse hook and no Fastify logger, Fastify attaches no listeners to a
 * response, and no hook runner runs per answer (logger.ts).
 */
export const EXTERNAL_ROUTE = '/external/:apiId';

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() when the request arrived (set by the app's onRequest hook): the line's `ms`. */
    receivedAt: number;
  }
}

export interface Answers {
  /**
   * The answer of `reply` (its status already set) goes out now. `route`: the request's route pattern
   * (undefined when none matched), passed in because Fastify's `request.routeOptions` builds an object of a
   * dozen fields at every read. `code`: the failure's code, for a 5xx.
   */
  answered(request: FastifyRequest, reply: FastifyReply, route: string | undefined, code?: string): void;
}

export function createAnswers(deps: {
  log: Logger;
  isDraining(): boolean;
  countExternal(apiId: string | undefined, status: number): void;
}): Answers {
  return {
    answered(request, reply, route, code) {
      if (deps.isDraining()) reply.header('connection', 'close');
      const status = reply.statusCode;
      const apiId = route === EXTERNAL_ROUTE ? (request.params as { apiId?: string }).apiId : undefined;
      if (route === EXTERNAL_ROUTE) deps.countExternal(apiId, status);
      // Hits are logged at debug only, and the line is built only when someone will read it.
      const level = status >= 500 ? 'warn' : 'debug';
      if (!deps.log.isLevelEnabled(level)) return;
      // A request refused before the hooks ran (a malformed URL: frameworkErrors) has no arrival time.
      const ms = request.receivedAt > 0 ? Math.round(performance.now() - request.receivedAt) : 0;
      const line = { method: request.method, route: route ?? 'none', apiId, status, ms, ...(code ? { code } : {}) };
      // request.log carries reqId.
      request.log[level](line, level === 'warn' ? 'request failed' : 'request');
    },
  };
}
