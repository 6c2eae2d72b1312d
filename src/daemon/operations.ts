import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Runtime } from '../core/runtime.js';
import { errorEnvelope, MESSAGES } from './errors.js';
import type { DaemonMetrics } from './metrics.js';
import { JSON_UTF8 } from './routes/external.js';

/**
 * The operations routes, as a Fastify plugin: liveness (`/healthz`: the event loop answers), readiness
 * (`/readyz`: the state store answers and retrievals are not failing) and, with a token, `/metrics` on the
 * public port. They answer in the same envelope as everything else.
 */

/** Consecutive 500s after which the daemon says it is not ready: the retrieval path itself is failing. */
export const NOT_READY_AFTER_INTERNAL_ERRORS = 5;
/** How long `/readyz` waits for scraper 3's browser to answer (a remote one is connected to on the first ask). */
const BROWSER_PROBE_MS = 1_000;

export interface Readiness {
  /** Every /external answer's status (answers.ts): a run of internal errors makes the daemon not ready. */
  observe(status: number): void;
  problems(): Promise<string[]>;
}

export function createReadiness(runtime: Runtime): Readiness {
  let consecutiveInternal = 0;
  return {
    observe(status) {
      if (status >= 500 && status !== 502 && status !== 503) consecutiveInternal += 1;
      else consecutiveInternal = 0;
    },
    async problems() {
      const problems: string[] = [];
      if (consecutiveInternal >= NOT_READY_AFTER_INTERNAL_ERRORS)
        problems.push(`the last ${consecutiveInternal} retrievals failed with internal errors`);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), 1_000);
      });
      try {
        await Promise.race([runtime.store.getAccount('default'), late]);
      } catch (error) {
        problems.push(`the state store (${runtime.store.name}) does not answer: ${(error as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
      return problems;
    },
  };
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

export interface OperationsOptions {
  runtime: Runtime;
  readiness: Readiness;
  metrics: DaemonMetrics;
  /** Serve /metrics here too, to requests with `Authorization: Bearer <token>` (metrics.tokenEnv). */
  metricsToken: string | undefined;
}

function registerMetricsRoute(app: FastifyInstance, metrics: DaemonMetrics, token: string): void {
  // /metrics lists every apiId: on the public port only for a caller with the configured bearer token.
  app.get('/metrics', async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, token)) {
      return reply
        .code(404)
        .type(JSON_UTF8)
        .send(errorEnvelope([{ message: MESSAGES.routeNotFound, code: 'ROUTE_NOT_FOUND' }]));
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

export const operationsPlugin: FastifyPluginAsync<OperationsOptions> = async (app, { runtime, readiness, metrics, metricsToken }) => {
  app.get('/healthz', async (_request, reply) => reply.type(JSON_UTF8).send('{"data":{"status":"ok"},"errors":null}'));
  app.get('/readyz', async (_request, reply) => {
    const configs = runtime.configs.list().length;
    const problems = await readiness.problems();
    if (problems.length > 0) {
      return reply
        .code(503)
        .type(JSON_UTF8)
        .send(errorEnvelope(problems.map((message) => ({ message: `not ready: ${message}`, code: 'NOT_READY' }))));
    }
    // Scraper 3's browser is said, not required: scrapers 1 and 2 serve without it. Its kind only: where the
    // fleet is and why it fails are for the operator (`pagejson status`), not for whoever reaches /readyz.
    const probed = await runtime.scrapers.probeBrowser(AbortSignal.timeout(BROWSER_PROBE_MS)).catch(() => undefined);
    const browser = { uses: probed?.uses ?? 'unknown', answers: probed?.answers ?? false };
    return reply
      .type(JSON_UTF8)
      .send(JSON.stringify({ data: { status: 'ready', configs, problems: runtime.configs.problems().length, browser }, errors: null }));
  });
  if (metricsToken) registerMetricsRoute(app, metrics, metricsToken);
};
