import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  type onSendHookHandler,
} from 'fastify';
import type { Logger } from 'pino';
import { isPagejsonError } from '../core/shared/errors.js';
import { formatCredits } from '../core/shared/credit-amounts.js';
import { ANSWER_GRACE_MS, type Runtime } from '../core/runtime.js';
import { errorEnvelope, errorReply, MESSAGES, rawErrorResponse, rowReply, type ErrorReply } from './errors.js';
import { createDaemonLogger, requestLoggers } from './logger.js';
import { createAnswers, EXTERNAL_ROUTE, type Answers } from './answers.js';
import { createMetrics, type DaemonMetrics } from './metrics.js';
import { dashboardPlugin, dashboardSessionsFor } from './dashboard/plugin.js';
import { registerHostCheck } from './host-check.js';
import { registerMcpRoute } from './mcp/route.js';
import { createReadiness, operationsPlugin } from './operations.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { externalPlugin, JSON_UTF8 } from './routes/external.js';
import { registerJobRoutes } from './routes/jobs.js';

export { NOT_READY_AFTER_INTERNAL_ERRORS } from './operations.js';

/**
 * buildApp(runtime): the retrieval daemon's Fastify app, without listen (tests use inject or port 0). An
 * adapter over the core: routes turn requests into the core's input and its answers into replies, and every
 * failure, including the errors Fastify raises itself, is answered in the `{data, errors}` envelope from the
 * one error table (errors.ts) through Fastify's own extension points: setErrorHandler, setNotFoundHandler,
 * frameworkErrors and clientErrorHandler. Every answer is counted in one place (answers.ts).
 */
export const TRANSPORT_BODY_LIMIT = 1024 * 1024;

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
  if (typeof address === 'object' && address)
    return `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  const { host, port } = runtime.settings.server;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Where a browser on this machine reaches the daemon: dashboard.publicUrl, else the bound address (a wildcard bind as loopback). */
function browserUrl(app: FastifyInstance, runtime: Runtime): string {
  const configured = runtime.settings.dashboard.publicUrl;
  if (configured) return configured.replace(/\/$/, '');
  return publicUrl(app, runtime).replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
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

function rawReason(status: number): string {
  return status === 431
    ? 'Request Header Fields Too Large'
    : status === 408
      ? 'Request Timeout'
      : status === 413
        ? 'Payload Too Large'
        : 'Bad Request';
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

/** What the app's steps share: its answers, metrics and readiness, the backstop, and whether it drains. */
interface AppParts {
  runtime: Runtime;
  log: Logger;
  answers: Answers;
  metrics: DaemonMetrics;
  readiness: ReturnType<typeof createReadiness>;
  /** Above the retrieval's own answer deadline (fetch.timeoutMs + ANSWER_GRACE_MS), which refunds credits. */
  handlerTimeout: number;
  draining: { now: boolean };
}

function appParts(runtime: Runtime, options: BuildAppOptions): AppParts {
  // The daemon's own logger in place of Fastify's (logger.ts says why); request lines are the answer log's.
  const log = createDaemonLogger(options.logger, ['req.headers.apikey', 'headers.apikey', 'apikey']);
  const metrics = createMetrics(runtime);
  const readiness = createReadiness(runtime);
  const draining = { now: false };
  const answers = createAnswers({
    log,
    isDraining: () => draining.now,
    countExternal(apiId, status) {
      metrics.countRequest(apiId, status);
      readiness.observe(status);
    },
  });
  const handlerTimeout = options.handlerTimeoutMs ?? runtime.settings.fetch.timeoutMs + ANSWER_GRACE_MS + 5_000;
  return { runtime, log, answers, metrics, readiness, handlerTimeout, draining };
}

/**
 * An error answered in the envelope, from the table: status, message, the balance and Retry-After the error
 * carries, and the answer counted. Every failure of the app goes out through here.
 */
function sendError(
  parts: AppParts,
  request: FastifyRequest,
  reply: FastifyReply,
  route: string | undefined,
  error: unknown,
  countHere: boolean,
  answer: ErrorReply = errorReply(error),
): FastifyReply {
  if (answer.internal) request.log.error({ err: error }, 'unexpected failure');
  reply.code(answer.status);
  if (isPagejsonError(error)) {
    const { creditsRemaining, retryAfterSeconds } = error.context;
    if (typeof creditsRemaining === 'number') reply.header('x-pagejson-credits-remaining', formatCredits(creditsRemaining));
    if (typeof retryAfterSeconds === 'number') reply.header('retry-after', String(retryAfterSeconds));
  }
  // A body left unread (refused as too large, or not needed) is not read on: the connection closes instead.
  if (route === EXTERNAL_ROUTE && request.raw.complete === false) reply.header('connection', 'close');
  const code = answer.status >= 500 ? (answer.errors[0]?.code ?? 'INTERNAL') : undefined;
  // Routes other than /external answer through their onSend hook (installAnswerHooks), which reads the code.
  if (countHere) parts.answers.answered(request, reply, route, code);
  else if (code) failureCodes.set(request, code);
  return reply.type(JSON_UTF8).send(errorEnvelope(answer.errors));
}

/** The failure's code for a route's "request failed" line: a status alone does not say a timeout from a bad page. */
const failureCodes = new WeakMap<FastifyRequest, string>();

function createApp(parts: AppParts, options: BuildAppOptions): FastifyInstance {
  const app = Fastify({
    logger: false,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIds(),
    childLoggerFactory: requestLoggers(parts.log),
    requestIdHeader: false,
    bodyLimit: TRANSPORT_BODY_LIMIT,
    routerOptions: { maxParamLength: 1000 },
    return503OnClosing: false,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    // Refused before routing (a malformed URL): no hook has run, so the request id is set and the answer counted here.
    frameworkErrors: (error, request, reply) =>
      void sendError(parts, request, (reply as FastifyReply).header('x-request-id', request.id), request.routeOptions.url, error, true),
    clientErrorHandler: answerClientError,
  });
  // A plain property of the instance (plugins' instances inherit it): `app.log` is the daemon's logger.
  (app as { log: FastifyBaseLogger }).log = parts.log as unknown as FastifyBaseLogger;
  app.decorateRequest('receivedAt', 0);
  app.addHook('onClose', async () => parts.metrics.close());
  // Bodies of every route but /external are read as bytes up to the transport limit (/external: routes/external.ts).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  return app;
}

/**
 * Where answers are counted and failures answered. /external counts where it answers (its route, or here), so a
 * hit runs no hook runner; every other route counts from a route-level onSend hook added as it is declared,
 * and keeps Fastify's handler timeout (/external has a cheaper backstop of its own).
 */
function installAnswerHooks(app: FastifyInstance, parts: AppParts): void {
  const { answers, handlerTimeout, draining } = parts;
  const routeAnswered: onSendHookHandler = (request, reply, payload, done) => {
    answers.answered(request, reply, request.routeOptions.url, failureCodes.get(request));
    done(null, payload);
  };
  app.addHook('onRoute', (route) => {
    if (route.url === EXTERNAL_ROUTE) return;
    route.handlerTimeout ??= handlerTimeout;
    route.onSend = [...(route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend]), routeAnswered];
  });
  app.addHook('onRequest', (request, reply, done) => {
    request.receivedAt = performance.now();
    reply.header('x-request-id', request.id);
    if (!draining.now) return done();
    const route = request.routeOptions.url;
    void sendError(parts, request, reply, route, undefined, route === undefined || route === EXTERNAL_ROUTE, rowReply('SHUTTING_DOWN'));
  });
  // The Host check (host-check.ts), before any other work of a route.
  registerHostCheck(app, parts.runtime);

  app.setErrorHandler((error, request, reply) => {
    const route = request.routeOptions.url;
    return sendError(parts, request, reply, route, error, route === EXTERNAL_ROUTE);
  });
  app.setNotFoundHandler(
    (request, reply) => void sendError(parts, request, reply, undefined, undefined, true, rowReply('ROUTE_NOT_FOUND')),
  );
}

/** The routes: /external, /mcp, the catalog, the dashboard, and the operations routes. */
async function registerRoutes(app: FastifyInstance, parts: AppParts, options: BuildAppOptions) {
  const { runtime, metrics, answers } = parts;
  await app.register(externalPlugin, {
    runtime,
    metrics,
    backstopMs: parts.handlerTimeout,
    answered: (request, reply) => answers.answered(request, reply, EXTERNAL_ROUTE),
  });
  if (options.mcp !== false) registerMcpRoute(app, runtime);
  registerCatalogRoutes(app, runtime, { docs: runtime.settings.docs.enabled, serverUrl: () => publicUrl(app, runtime) });
  registerJobRoutes(app, runtime);
  const sessions = runtime.settings.dashboard.enabled ? dashboardSessionsFor(runtime) : undefined;
  if (sessions) {
    await app.register(dashboardPlugin, {
      runtime,
      sessions,
      publicUrl: () => browserUrl(app, runtime),
      ...(options.dashboardAssetsDir ? { assetsDir: options.dashboardAssetsDir } : {}),
    });
  }
  await app.register(operationsPlugin, { runtime, readiness: parts.readiness, metrics, metricsToken: options.metricsToken });
  return sessions;
}

export async function buildApp(runtime: Runtime, options: BuildAppOptions = {}): Promise<DaemonApp> {
  const parts = appParts(runtime, options);
  const app = createApp(parts, options);
  installAnswerHooks(app, parts);
  const sessions = await registerRoutes(app, parts, options);

  const daemon = app as unknown as DaemonApp;
  daemon.metrics = parts.metrics;
  daemon.dashboardLoginLink = () => {
    if (!sessions) return undefined;
    const { token, expiresAt } = sessions.issueLoginToken();
    return { url: `${browserUrl(app, runtime)}/ui/login?token=${token}`, expiresAt: expiresAt.toISOString() };
  };
  daemon.startDraining = () => {
    parts.draining.now = true;
  };
  await app.ready();
  return daemon;
}
