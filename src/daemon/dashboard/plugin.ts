import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Runtime } from '../../core/runtime.js';
import { registerDashboardApi } from './api.js';
import { createDashboardSessions, type DashboardSession, type DashboardSessions } from './sessions.js';

/**
 * The web dashboard at /ui/ (issue 18): static assets built by Vite from src/dashboard, and a JSON API under
 * /ui/api/ over the same core the CLI uses. Everything here is scoped to this plugin: its own cookie parser,
 * security headers and JSON body parser, none of which touch /external.
 *
 * Security: a session comes only from a one-time link the daemon's user asks for over the admin socket; its
 * cookie is HttpOnly, SameSite=Strict, and behind TLS Secure and named `__Host-…`. Every change needs the
 * session's CSRF token in a header and is refused when the browser says it came from another site. The CSP
 * allows scripts and styles from the daemon itself only (no inline script), and no page may frame the dashboard.
 */
export const SESSION_COOKIE = 'pagejson_session';
/**
 * The name behind TLS: browsers keep a `__Host-` cookie only when it is Secure, for the whole host (Path=/) and
 * without Domain, so no other name under the same domain, and no plain-HTTP page, can set or shadow it.
 */
export const SECURE_SESSION_COOKIE = '__Host-pagejson_session';
export const CSRF_HEADER = 'x-pagejson-csrf';

export interface DashboardOptions {
  runtime: Runtime;
  /** Where users reach the daemon (dashboard.publicUrl, else the bound address). */
  publicUrl: () => string;
  sessions: DashboardSessions;
  /** Built assets (default: dist/dashboard of this package). */
  assetsDir?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboardSession?: DashboardSession;
  }
}

const here = dirname(fileURLToPath(import.meta.url));
/** The package root from dist/src/daemon/dashboard (the built daemon) or src/daemon/dashboard (tests of the sources). */
const packageRoot = here.includes(`${sep}dist${sep}`) ? join(here, '..', '..', '..', '..') : join(here, '..', '..', '..');
/** Where `npm run build` puts the dashboard (Vite, src/dashboard/vite.config.ts). */
export const DEFAULT_ASSETS_DIR = join(packageRoot, 'dist', 'dashboard');

export function dashboardSessionsFor(runtime: Runtime): DashboardSessions {
  return createDashboardSessions({ sessionMs: runtime.settings.dashboard.sessionHours * 3_600_000 });
}

function apiError(reply: FastifyReply, status: number, code: string, message: string, hint?: string): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .send({ error: { code, message, ...(hint ? { hint } : {}) } });
}

/**
 * What the browser tells about where a request came from. `Sec-Fetch-Site` is sent by every current browser;
 * `Origin` by all of them on POST. A request from another site is refused even with a valid cookie.
 */
function crossSite(request: FastifyRequest, publicUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    // Behind a proxy the Host header may be the daemon's own address: the public origin counts as ours too.
    const host = new URL(origin).host;
    return host !== request.headers.host && host !== new URL(publicUrl).host;
  } catch {
    return true;
  }
}

export async function dashboardPlugin(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const { sessions } = options;
  const assetsDir = options.assetsDir ?? DEFAULT_ASSETS_DIR;
  const built = existsSync(join(assetsDir, 'index.html'));

  await app.register(fastifyCookie);
  await app.register(fastifyHelmet, {
    // Only what the dashboard needs: its own scripts, styles, fonts and images, and fetches to itself.
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    // The login link carries its token in the URL: no page may pass it on as a referrer.
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginEmbedderPolicy: false,
    hsts: false,
  });

  const secureCookie = (request: FastifyRequest): boolean => request.protocol === 'https' || options.publicUrl().startsWith('https:');
  const cookie = (request: FastifyRequest) =>
    secureCookie(request) ? { name: SECURE_SESSION_COOKIE, path: '/', secure: true } : { name: SESSION_COOKIE, path: '/ui', secure: false };

  // The session is looked up once per request; routes decide what to do without one.
  app.addHook('onRequest', async (request) => {
    const found = sessions.find(request.cookies[cookie(request).name]);
    if (found) request.dashboardSession = found;
  });

  if (built) {
    await app.register(fastifyStatic, {
      root: join(assetsDir, 'assets'),
      prefix: '/ui/assets/',
      immutable: true,
      maxAge: '365d',
      index: false,
    });
  }

  const page = (file: 'index.html' | 'login.html') => async (request: FastifyRequest, reply: FastifyReply) => {
    if (!built)
      return apiError(
        reply,
        503,
        'DASHBOARD_NOT_BUILT',
        'the dashboard assets are missing',
        'run `npm run build` in the pagejson checkout',
      );
    if (file === 'index.html' && !request.dashboardSession) return reply.redirect('/ui/login', 303);
    return reply.header('cache-control', 'no-store').sendFile(file, assetsDir);
  };

  app.get('/ui', async (_request, reply) => reply.redirect('/ui/', 301));
  app.get('/ui/login', async (request, reply) => {
    const { token } = request.query as { token?: unknown };
    if (typeof token === 'string') {
      const redeemed = sessions.redeem(token);
      if (!redeemed) return reply.redirect('/ui/login?reason=expired', 303);
      const { name, path, secure } = cookie(request);
      reply.setCookie(name, redeemed.id, {
        httpOnly: true,
        sameSite: 'strict',
        secure,
        path,
        expires: new Date(redeemed.session.expiresAt),
      });
      // Away from the URL holding the (now spent) token.
      return reply.redirect('/ui/', 303);
    }
    return page('login.html')(request, reply);
  });
  // Every other page is the app's: it routes on the client.
  app.get('/ui/', page('index.html'));
  app.get('/ui/*', async (request, reply) => {
    if (request.url.startsWith('/ui/api/') || request.url.startsWith('/ui/assets/'))
      return apiError(reply, 404, 'NOT_FOUND', `no dashboard route ${request.method} ${request.url.split('?')[0]}`);
    return page('index.html')(request, reply);
  });

  await app.register(
    async (api) => {
      api.removeAllContentTypeParsers();
      api.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_request, body, done) => {
        try {
          done(null, body === '' ? {} : JSON.parse(body as string));
        } catch {
          done(Object.assign(new Error('the request body is not valid JSON'), { statusCode: 400 }), undefined);
        }
      });
      api.addHook('onRequest', async (request, reply) => {
        reply.header('cache-control', 'no-store');
        const session = request.dashboardSession;
        if (!session)
          return apiError(reply, 401, 'UNAUTHENTICATED', 'not signed in to the dashboard', 'run `pagejson dashboard` for a sign-in link');
        if (request.method === 'GET' || request.method === 'HEAD') return undefined;
        if (crossSite(request, options.publicUrl())) return apiError(reply, 403, 'CROSS_SITE', 'a change from another site was refused');
        const given = request.headers[CSRF_HEADER];
        if (!sessions.csrfMatches(session, typeof given === 'string' ? given : undefined)) {
          return apiError(reply, 403, 'CSRF', `missing or wrong ${CSRF_HEADER} header`, 'reload the dashboard page');
        }
        return undefined;
      });
      api.post('/logout', async (request, reply) => {
        const { name, path, secure } = cookie(request);
        const id = request.cookies[name];
        if (id) sessions.end(id);
        reply.clearCookie(name, { path, secure, httpOnly: true, sameSite: 'strict' });
        return reply.code(204).send();
      });
      await registerDashboardApi(api, { runtime: options.runtime, publicUrl: options.publicUrl });
      api.setNotFoundHandler((request, reply) =>
        apiError(reply, 404, 'NOT_FOUND', `no dashboard route ${request.method} ${request.url.split('?')[0]}`),
      );
    },
    { prefix: '/ui/api' },
  );
}
