import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { ApiConfig, ProjectSettings } from '../core/config/schema.js';
import { API_ID_PATTERN } from '../core/config/constants.js';
import { KEY_ID_PATTERN } from '../core/access/keys.js';
import { isPagejsonError, PagejsonError, type ErrorCode } from '../core/shared/errors.js';
import { createStateService } from '../core/access/state-service.js';
import type { EndpointObservation, StateStore, UsageQuery } from '../core/state/types.js';
import { parseObservations } from '../core/state/observation.js';
import type { Watch } from '../core/monitor/watch.js';
import { registerMonitorRoutes } from './admin-monitors.js';

/**
 * The admin API (docs/state.md): while a daemon runs it is the only writer of the embedded state, so the
 * CLI's `keys`, `credits`, `usage`, `status` and `generate`'s charge go through it. The daemon listens it on
 * `<dataDir>/admin.sock` (mode 0600); it is never exposed on TCP. JSON in, JSON out, amounts in milli-credits;
 * errors are `{"error": {"code", "message", "hint", "context"}}` so the client can rebuild the PagejsonError.
 */
export interface AdminAppOptions {
  store: StateStore;
  /** The configs the daemon serves right now. */
  listConfigs: () => ApiConfig[] | Promise<ApiConfig[]>;
  settings: Pick<ProjectSettings, 'credits'>;
  /** The daemon's public address (`pagejson mcp` goes through it). */
  publicUrl?: () => string | undefined;
  /** Called after a grant or charge changed a balance (the daemon may refresh cached balances or metrics). */
  onCreditsChanged?: (account: string, milliCredits: number) => void;
  now?: () => Date;
  /** Monitors and webhooks of the daemon (absent: those routes are not served). */
  watch?: Watch;
  /** Records a CLI command's retrieval in the daemon's endpoint status (absent: written to the store directly). */
  observe?: (observation: EndpointObservation) => Promise<void>;
  /** A one-time dashboard sign-in link; undefined when the dashboard is off (absent: no daemon app). */
  dashboardLoginLink?: () => { url: string; expiresAt: string } | undefined;
}

export interface AdminErrorBody {
  error: { code: ErrorCode; message: string; hint?: string; context?: Record<string, unknown> };
}

const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  USAGE: 400,
  KEY_NOT_FOUND: 404,
  ACCOUNT_NOT_FOUND: 404,
  KEY_INVALID: 409,
  NO_CREDITS: 402,
  SHUTTING_DOWN: 503,
};

type Body = Record<string, unknown>;

function bodyOf(value: unknown): Body {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw usage('the request body must be a JSON object');
  return value as Body;
}

function usage(message: string): PagejsonError {
  return new PagejsonError('USAGE', message);
}

function optionalString(body: Body, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw usage(`${name} must be a string`);
  return value;
}

/** An id from outside, checked against its pattern before it is used for any lookup. */
function idMatching(value: string | undefined, pattern: RegExp, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (!pattern.test(value)) throw usage(`${name} "${value.slice(0, 80)}" is not a valid ${name}`);
  return value;
}

function integer(value: unknown, name: string): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number)) throw usage(`${name} must be an integer`);
  return number;
}

function tokenCount(value: unknown, name: string): number {
  if (value === undefined || value === null) return 0;
  const number = integer(value, name);
  if (number < 0) throw usage(`${name} must not be negative`);
  return number;
}

export function buildAdminApp(options: AdminAppOptions): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  const service = createStateService({
    store: options.store,
    credits: options.settings.credits,
    listConfigs: options.listConfigs,
    now: options.now,
  });
  const changed = (result: { account: string; milliCredits: number }) => {
    options.onCreditsChanged?.(result.account, result.milliCredits);
    return result;
  };

  app.setErrorHandler((error, _request, reply: FastifyReply) => {
    if (isPagejsonError(error)) {
      const body: AdminErrorBody = { error: { code: error.code, message: error.message, hint: error.hint, context: error.context } };
      return reply.status(STATUS_BY_CODE[error.code] ?? 500).send(body);
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (error instanceof RangeError || (status !== undefined && status >= 400 && status < 500)) {
      return reply.status(status ?? 400).send({ error: { code: 'USAGE', message: (error as Error).message } } satisfies AdminErrorBody);
    }
    return reply
      .status(500)
      .send({ error: { code: 'INTERNAL', message: `admin request failed: ${(error as Error).message}` } } satisfies AdminErrorBody);
  });
  app.setNotFoundHandler((request, reply) => {
    reply
      .status(404)
      .send({ error: { code: 'USAGE', message: `no admin route ${request.method} ${request.url}` } } satisfies AdminErrorBody);
  });

  if (options.watch) registerMonitorRoutes(app, options.watch);
  app.get('/health', async () => ({ ok: true, pid: process.pid, store: options.store.name, url: options.publicUrl?.() ?? null }));

  app.post('/keys', async (request, reply) => {
    const body = bodyOf(request.body);
    const scope = body.scope;
    if (scope !== undefined && scope !== null && (!Array.isArray(scope) || !scope.every((s) => typeof s === 'string')))
      throw usage('scope must be a list of apiIds');
    const created = await service.createKey({
      account: optionalString(body, 'account'),
      label: optionalString(body, 'label'),
      scope: scope as string[] | null | undefined,
    });
    return reply.status(201).send(created);
  });
  app.get('/keys', async () => service.listKeys());
  app.post<{ Params: { id: string } }>('/keys/:id/revoke', async (request) => service.revokeKey(request.params.id));
  app.post<{ Params: { id: string } }>('/keys/:id/rotate', async (request) => {
    const body = bodyOf(request.body);
    return service.rotateKey(request.params.id, body.graceMs === undefined ? 0 : integer(body.graceMs, 'graceMs'));
  });

  app.get<{ Querystring: { account?: string } }>('/credits', async (request) => service.credits(request.query.account));
  app.post('/credits/grant', async (request) => {
    const body = bodyOf(request.body);
    return changed(await service.grantCredits(optionalString(body, 'account'), integer(body.milliCredits, 'milliCredits')));
  });
  app.post('/credits/charge', async (request) => {
    const body = bodyOf(request.body);
    const apiId = idMatching(optionalString(body, 'apiId'), API_ID_PATTERN, 'apiId');
    // Optional: the model tokens a generation spent, recorded in the usage of the generated apiId.
    const tokens =
      apiId === undefined
        ? undefined
        : {
            apiId,
            promptTokens: tokenCount(body.promptTokens, 'promptTokens'),
            completionTokens: tokenCount(body.completionTokens, 'completionTokens'),
          };
    return changed(await service.charge(optionalString(body, 'account'), integer(body.milliCredits, 'milliCredits'), tokens));
  });

  app.get<{ Querystring: { apiId?: string; keyId?: string; days?: string } }>('/usage', async (request) => {
    const query: UsageQuery = {};
    if (request.query.apiId) query.apiId = idMatching(String(request.query.apiId), API_ID_PATTERN, 'apiId')!;
    if (request.query.keyId) query.keyId = idMatching(String(request.query.keyId), KEY_ID_PATTERN, 'keyId')!;
    if (request.query.days !== undefined) query.days = integer(request.query.days, 'days');
    return service.usage(query);
  });
  app.get('/status', async () => service.status());
  app.get('/endpoints/state', async () => service.endpointStates());
  // `pagejson run` and `check` while the daemon runs: their health, last fetch and learned baseline, through the daemon's own view.
  app.post('/endpoints/observations', async (request) => {
    const observations = parseObservations(request.body);
    if (options.observe) for (const observation of observations) await options.observe(observation);
    else await service.observe(observations);
    return { ok: true, recorded: observations.length };
  });
  // Only the daemon's user can reach this socket (0600): asking for a link is what proves who signs in.
  app.post('/dashboard/login-link', async () => {
    const link = options.dashboardLoginLink?.();
    if (!link)
      throw new PagejsonError('USAGE', 'the dashboard is off in this project', {
        hint: 'set "dashboard": {"enabled": true} in pagejson.json and restart `pagejson serve`',
      });
    return link;
  });

  return app;
}
