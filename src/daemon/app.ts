import { randomUUID, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions, type onSendHookHandler } from 'fastify';
import { isPagejsonError } from '../core/shared/errors.js';
import { formatCredits } from '../core/shared/credit-amounts.js';
import { MAX_BODY_BYTES } from '../core/retrieval/retrieval-service.js';
import { ANSWER_GRACE_MS, type Runtime } from '../core/runtime.js';
import { errorEnvelope, errorReply, MESSAGES, rawErrorResponse } from './errors.js';
import { createDaemonLogger, requestLoggers } from './logger.js';
import { createAnswers, EXTERNAL_ROUTE } from './answers.js';
import { createMetrics, type DaemonMetrics } from './metrics.js';
import { dashboardPlugin, dashboardSessionsFor } from './dashboard/plugin.js';
import { registerHostCheck } from './host-check.js';
import { registerMcpRoute } from './mcp/route.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { JSON_UTF8, registerExternalRoutes } from './routes/external.js';

/**
 * buildApp(runtime): the retrieval daemon's Fastify app, without listen (tests use inject or port 0).
 * Every answer, including the errors Fastify raises itself, is the `{data, errors}` envelope
 * (DESIGN.md section 11): setErrorHandler, setNotFoundHandler, frameworkErrors and clientErrorHandler.
 *
 * Bodies are read raw (up to TRANSPORT_BODY_LIMIT) and judged by the retrieval service, so the table's
 * precedence holds: a missing key beats a malformed body.
 */
export const TRANSPORT_BODY_LIMIT = 1024 * 1024;
/** What the service sees in place of a body the transport refused: one byte over its own limit. */
const OVERSIZED_BODY = Buffer.alloc(MAX_BODY_BYTES + 1);

export interface BuildAppOptions {
  /** pino options (level, stream, …) or false. Default: info level to stdout. */
  logger?: FastifyServerOptions['logger'];
  /** Backstop above the fetch deadline: a handler still running after this answers 503. */
  handlerTimeoutMs?: number;
  /** Socket-level time to receive a whole request. */
  requestTimeoutMs?: number;
  /** Serve /metrics on this app too, to requests with `Authorization: Bearer <token>` (metrics.tokenEnv). */
  metricsToken?: string;
  /** Streamable HTTP MCP at /mcp (default on). */
  mcp?: boolean;
  /** Where the dashboard's built assets are (tests; default dist/dashboard). */
  dashboardAssetsDir?: string;
}

export interface DaemonApp extends FastifyInstance {
  /** From now on, new requests get a 503 envelope; in-flight ones finish. */
  startDraining(): void;
  /** The app's metrics (the daemon serves them on a listener of their own, see serveMetrics). */
  metrics: DaemonMetrics;
  /** A one-time dashboard sign-in link (`pagejson dashboard`, over the admin socket); undefined when the dashboard is off. */
  dashboardLoginLink(): { url: string; expiresAt: string } | undefined;
}

/** The address the app listens on, else the one pagejson.json names (for the OpenAPI document's server). */
function publicUrl(app: FastifyInstance, runtime: Runtime): string {
  const address = app.server.address();
  if (typeof address === 'object' && address) return `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  const { host, port } = runtime.settings.server;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Where a browser on this machine reaches the daemon: dashboard.publicUrl, else the bound address (a wildcard bind as loopback). */
function browserUrl(app: FastifyInstance, runtime: Runtime): string {
  const configured = runtime.settings.dashboard.publicUrl;
  if (configured) return configured.replace(/\/$/, '');
  return publicUrl(app, runtime).replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * Request ids (X-Request-Id): shaped like a UUID, a random prefix per app and then a counter, so they are
 * unique per daemon and across restarts without drawing random bytes per request (randomUUID was 3% of a
 * cache hit's allocations). They name a request in the log; they are not secrets.
 */
export function requestIds(): () => string {
  const prefix = randomUUID().slice(0, 24);
  let next = 0;
  return () => prefix + (next++).toString(16).padStart(12, '0');
}

/** Consecutive 500s after which the daemon says it is not ready: the retrieval path itself is failing. */
export const NOT_READY_AFTER_INTERNAL_ERRORS = 5;

function createReadiness(runtime: Runtime) {
  let consecutiveInternal = 0;
  return {
    observe(status: number): void {
      if (status >= 500 && status !== 502 && status !== 503) consecutiveInternal += 1;
      else consecutiveInternal = 0;
    },
    async problems(): Promise<string[]> {
      const problems: string[] = [];
      if (consecutiveInternal >= NOT_READY_AFTER_INTERNAL_ERRORS) problems.push(`the last ${consecutiveInternal} retrievals failed with internal errors`);
      let timer: NodeJS.Timeout | undefined;
      const probe = runtime.store.getAccount('default');
      const late = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), 1_000);
      });
      try {
        await Promise.race([probe, late]);
      } catch (error) {
        problems.push(`the state store (${runtime.store.name}) does not answer: ${(error as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
      return problems;
    },
  };
}

function rawReason(status: number): string {
  return status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : status === 413 ? 'Payload Too Large' : 'Bad Request';
}

function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  // A timed-out or reset connection gets nothing: there may be no request to answer.
  if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const message = status === 431 ? 'request headers are too large' : MESSAGES.badRequest;
  socket.end(rawErrorResponse(status, rawReason(status), { message, code: status === 431 ? 'HEADERS_TOO_LARGE' : 'BAD_REQUEST' }));
}

export async function buildApp(runtime: Runtime, options: BuildAppOptions = {}): Promise<DaemonApp> {
  // Above the retrieval's own answer deadline (fetch.timeoutMs + ANSWER_GRACE_MS), which refunds credits: this
  // backstop only catches what has no deadline of its own.
  const handlerTimeout = options.handlerTimeoutMs ?? runtime.settings.fetch.timeoutMs + ANSWER_GRACE_MS + 5_000;
  // The daemon's own logger in place of Fastify's (logger.ts says why); request lines are the answer log's.
  const log = createDaemonLogger(options.logger, ['req.headers.apikey', 'headers.apikey', 'apikey']);
  const app = Fastify({
    logger: false,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIds(),
    childLoggerFactory: requestLoggers(log),
    requestIdHeader: false,
    bodyLimit: TRANSPORT_BODY_LIMIT,
    routerOptions: { maxParamLength: 1000 },
    return503OnClosing: false,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    frameworkErrors: (error, request, reply) => {
      const answer = errorReply(error);
      answers.answered(request, (reply as FastifyReply).code(answer.status), request.routeOptions.url);
      void (reply as FastifyReply).header('x-request-id', request.id).type(JSON_UTF8).send(errorEnvelope(answer.errors));
    },
    clientErrorHandler: answerClientError,
  });
  // A plain property of the instance (plugins' instances inherit it): `app.log` is the daemon's logger.
  (app as { log: FastifyBaseLogger }).log = log as unknown as FastifyBaseLogger;
  app.decorateRequest('receivedAt', 0);

  let draining = false;
  const metrics = createMetrics(runtime);
  const health = createReadiness(runtime);
  const answers = createAnswers({
    log,
    isDraining: () => draining,
    countExternal(apiId, status) {
      metrics.countRequest(apiId, status);
      health.observe(status);
    },
  });
  // The failure's code for the "request failed" line: a status alone does not say a timeout from a bad page.
  const failureCodes = new WeakMap<FastifyRequest, string>();

  // Every route but /external answers through this onSend hook. A route-level hook, not an app-wide one:
  // /external calls `answered` where it answers, with no hook runner per answer.
  const routeAnswered: onSendHookHandler = (request, reply, payload, done) => {
    answers.answered(request, reply, request.routeOptions.url, failureCodes.get(request));
    done(null, payload);
  };

  // Every route but /external (which has a cheaper backstop of its own) keeps Fastify's handler timeout.
  app.addHook('onRoute', (route) => {
    if (route.url === EXTERNAL_ROUTE) return;
    route.handlerTimeout ??= handlerTimeout;
    route.onSend = [...(route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend]), routeAnswered];
  });

  app.addHook('onClose', async () => metrics.close());

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.addHook('onRequest', (request, reply, done) => {
    request.receivedAt = performance.now();
    reply.header('x-request-id', request.id);
    if (!draining) return done();
    reply.code(503);
    // Routes other than /external answer through routeAnswered; /external and unknown routes here.
    const route = request.routeOptions.url;
    if (route === undefined || route === EXTERNAL_ROUTE) answers.answered(request, reply, route);
    void reply.type(JSON_UTF8).send(errorEnvelope([{ message: MESSAGES.shuttingDown, code: 'SHUTTING_DOWN' }]));
  });
  registerHostCheck(app, runtime);

  app.setErrorHandler(async (raised, request, reply) => {
    const error = await tableOrder(raised, request);
    const answer = errorReply(error);
    if (answer.internal) request.log.error({ err: error }, 'unexpected failure');
    const code = answer.status >= 500 ? (answer.errors[0]?.code ?? 'INTERNAL') : undefined;
    reply.code(answer.status);
    // /external answers here (it has no onSend hook); other routes through routeAnswered.
    const route = request.routeOptions.url;
    if (route === EXTERNAL_ROUTE) answers.answered(request, reply, route, code);
    else if (code) failureCodes.set(request, code);
    const remaining = isPagejsonError(error) ? error.context.creditsRemaining : undefined;
    if (typeof remaining === 'number') void reply.header('x-pagejson-credits-remaining', formatCredits(remaining));
    const retryAfter = isPagejsonError(error) ? error.context.retryAfterSeconds : undefined;
    if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
    return reply.type(JSON_UTF8).send(errorEnvelope(answer.errors));
  });

  /**
   * Fastify refuses a body over its transport limit before the route runs, which would let "too large" beat
   * a missing or invalid key. The retrieval service is asked with a stand-in body of the refused size, so the
   * wire table's order decides (key, apiId, status, then body); it stops at the body row, before any credits.
   */
  async function tableOrder(error: unknown, request: FastifyRequest): Promise<unknown> {
    if ((error as { code?: string }).code !== 'FST_ERR_CTP_BODY_TOO_LARGE' || request.routeOptions.url !== EXTERNAL_ROUTE) return error;
    const header = request.headers.apikey;
    return runtime.retrieval
      .retrieve({
        apiId: (request.params as { apiId: string }).apiId,
        apikey: Array.isArray(header) ? header[0] : header,
        // Always as a POST: only then does the service reach the body row, so it can never charge or fetch here.
        method: 'POST',
        body: { raw: OVERSIZED_BODY, contentType: request.headers['content-type'] },
        query: {},
      })
      .then(
        () => error,
        (decided: unknown) => decided,
      );
  }

  app.setNotFoundHandler((request, reply) => {
    answers.answered(request, reply.code(404), undefined);
    void reply.type(JSON_UTF8).send(errorEnvelope([{ message: MESSAGES.routeNotFound, code: 'ROUTE_NOT_FOUND' }]));
  });

  registerExternalRoutes(app, runtime, { metrics, backstopMs: handlerTimeout, answered: (request, reply) => answers.answered(request, reply, EXTERNAL_ROUTE) });
  if (options.mcp !== false) registerMcpRoute(app, runtime);
  registerCatalogRoutes(app, runtime, { docs: runtime.settings.docs.enabled, serverUrl: () => publicUrl(app, runtime) });
  const sessions = runtime.settings.dashboard.enabled ? dashboardSessionsFor(runtime) : undefined;
  if (sessions) {
    await app.register(dashboardPlugin, { runtime, sessions, publicUrl: () => browserUrl(app, runtime), ...(options.dashboardAssetsDir ? { assetsDir: options.dashboardAssetsDir } : {}) });
  }

  // Liveness: the event loop answers. Readiness: the state store answers and retrievals are not failing.
  app.get('/healthz', async (_request, reply) => reply.type(JSON_UTF8).send('{"data":{"status":"ok"},"errors":null}'));
  app.get('/readyz', async (_request, reply) => {
    const configs = runtime.configs.list().length;
    const problems = await health.problems();
    if (problems.length > 0) {
      return reply.code(503).type(JSON_UTF8).send(errorEnvelope(problems.map((message) => ({ message: `not ready: ${message}`, code: 'NOT_READY' }))));
    }
    return reply.type(JSON_UTF8).send(JSON.stringify({ data: { status: 'ready', configs, problems: runtime.configs.problems().length }, errors: null }));
  });
  // /metrics lists every apiId: on the public port only for a caller with the configured bearer token.
  const metricsToken = options.metricsToken;
  if (metricsToken) {
    app.get('/metrics', async (request, reply) => {
      if (!bearerMatches(request.headers.authorization, metricsToken)) {
        return reply.code(404).type(JSON_UTF8).send(errorEnvelope([{ message: MESSAGES.routeNotFound, code: 'ROUTE_NOT_FOUND' }]));
      }
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }

  const daemon = app as unknown as DaemonApp;
  daemon.metrics = metrics;
  daemon.dashboardLoginLink = () => {
    if (!sessions) return undefined;
    const { token, expiresAt } = sessions.issueLoginToken();
    return { url: `${browserUrl(app, runtime)}/ui/login?token=${token}`, expiresAt: expiresAt.toISOString() };
  };
  daemon.startDraining = () => {
    draining = true;
  };
  await app.ready();
  return daemon;
}
