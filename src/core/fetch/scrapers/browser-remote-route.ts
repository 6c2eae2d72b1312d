import type { BrowserContext, Page, Response, Route } from 'playwright-core';
import { ProxyAgent, request as sendRequest, type Dispatcher } from 'undici';
import { announcedLength, readBodyWithLimit } from '../net/body-limit.js';
import { decodedStream } from '../net/html-response.js';
import type { ResolvedAccess } from '../net/request-access.js';
import { withAccess } from './browser-access.js';
import type { GuardProxy } from './browser-guard-proxy.js';
import { toFetchError, tooManyRedirectsError } from './crawlee-errors.js';
import type { PagejsonError } from '../../shared/index.js';

/**
 * Scraper 3 on a browser elsewhere (docs/security.md, "A remote browser"): the browser's own network is never
 * used for a page. Every request of the fetch's context is intercepted (`context.route`) and sent by pagejson
 * itself through the same guard proxy as a local Chromium (browser-guard-proxy.ts: the address actually
 * connected to is checked, a configured proxy is chained), then answered to the browser with what came back.
 * The context's own proxy is an address that never resolves, so anything the route does not see (redirect
 * hops, which Playwright never routes; requests without a frame) fails instead of going out. Service workers
 * are blocked and WebSockets closed.
 *
 * A redirect of a document becomes a stub page that refreshes to the target, so the hop is a navigation of
 * its own and routed again (renderer: settleRedirects); a redirect of a subresource is followed here.
 */

/** RFC 6761: `.invalid` never resolves, so the browser cannot reach anything through it. */
export const NO_NETWORK_PROXY = 'http://no-network.pagejson.invalid:9';
/** Set on a redirect's stub page: the target it refreshes to. */
export const REDIRECT_STUB_HEADER = 'x-pagejson-redirect';
export const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NOT_FORWARDED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer']);
const NOT_ANSWERED = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive']);

export interface RouteJob {
  guard: GuardProxy;
  access?: ResolvedAccess | undefined;
  maxBytes: number;
  timeoutMs: number;
}

export interface RoutedContext {
  /** Whether a document (the page or a frame) was larger than maxBytes, so it was refused. */
  tooLarge(): boolean;
  /** Why the page's own document could not be answered, when it was its body (a corrupt compressed body). */
  documentFailure(): PagejsonError | undefined;
  close(): Promise<void>;
}

/** The options of a context on a remote browser: no network of its own, no service workers, no downloads. */
export const REMOTE_CONTEXT_OPTIONS = { proxy: { server: NO_NETWORK_PROXY }, serviceWorkers: 'block', acceptDownloads: false } as const;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function outgoingHeaders(sent: Record<string, string>, url: string, access: ResolvedAccess | undefined): Record<string, string> {
  const kept: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(sent)) if (!NOT_FORWARDED.has(name) && !name.startsWith(':')) kept[name] = value;
  // The browser gets the body as it is to show: nothing to decode on either side.
  kept['accept-encoding'] = 'identity';
  if (!access?.sendsAnything) return kept;
  const merged: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const { name, value } of withAccess(kept, access.headersFor(url), access.cookiesFor(url))) merged[name] = value;
  return merged;
}

function answeredHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !NOT_ANSWERED.has(name))
      kept[name] = Array.isArray(value) ? value.join(name === 'set-cookie' ? '\n' : ', ') : value;
  return kept;
}

async function sendOnce(
  url: string,
  init: { method: string; headers: Record<string, string>; body: Buffer | null },
  agent: Dispatcher,
  job: RouteJob,
): Promise<Answer & { location?: string }> {
  const response = await sendRequest(url, {
    method: init.method as Dispatcher.HttpMethod,
    headers: init.headers,
    body: init.body,
    dispatcher: agent,
    headersTimeout: job.timeoutMs,
    bodyTimeout: job.timeoutMs,
  });
  const headers = answeredHeaders(response.headers);
  const location = REDIRECT_STATUSES.has(response.statusCode) ? headers.location : undefined;
  try {
    if ((announcedLength(headers['content-length']) ?? 0) > job.maxBytes) throw new RangeError('too large');
    // A redirect's body is not shown: read up to a little of it so that the connection can be reused.
    if (location) await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    // Asked for identity, a source may still compress: decoded here (the cap counts what comes out), as a
    // browser would, since the answer to the browser carries no content-encoding.
    const decoded = location ? undefined : decodedStream(response.body, headerText(response.headers['content-encoding']));
    const body = decoded ? await readBodyWithLimit(decoded, job.maxBytes) : Buffer.alloc(0);
    return { status: response.statusCode, headers, body, ...(location ? { location: new URL(location, url).href } : {}) };
  } catch (error) {
    response.body.on('error', () => undefined).destroy();
    throw error;
  }
}

const headerText = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

function stubPage(answer: Answer, target: string): Answer {
  const escaped = target.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8', [REDIRECT_STUB_HEADER]: target };
  if (answer.headers['set-cookie']) headers['set-cookie'] = answer.headers['set-cookie'];
  return { status: 200, headers, body: Buffer.from(`<!doctype html><meta http-equiv="refresh" content="0; url=${escaped}">`) };
}

/** What pagejson answers the browser for one routed request (see above for redirects). */
async function answerFor(route: Route, agent: Dispatcher, job: RouteJob): Promise<Answer> {
  const request = route.request();
  let url = request.url();
  let method = request.method();
  let body = request.postDataBuffer();
  const sent = await request.allHeaders();
  for (let hops = 0; ; hops += 1) {
    const answer = await sendOnce(url, { method, headers: outgoingHeaders(sent, url, job.access), body }, agent, job);
    if (!answer.location) return answer;
    if (request.isNavigationRequest()) return stubPage(answer, answer.location);
    if (hops >= MAX_REDIRECTS) throw new RangeError('too many redirects');
    // As browsers do: a 303, or a 301/302 of a POST, continues as a GET without a body.
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
      method = 'GET';
      body = null;
    }
    url = answer.location;
  }
}

/** Routes every request of `context` through pagejson (see above); `close()` ends its connections. */
export async function routeThroughGuard(context: BrowserContext, job: RouteJob): Promise<RoutedContext> {
  const agent = new ProxyAgent({ uri: job.guard.url, token: job.guard.authorization, proxyTunnel: false });
  let tooLarge = false;
  let documentFailure: PagejsonError | undefined;
  await context.routeWebSocket(/.*/, (socket) => void socket.close({ code: 1008, reason: 'no WebSockets on a remote browser' }));
  await context.route('**/*', async (route) => {
    const request = route.request();
    try {
      if (!/^https?:$/i.test(new URL(request.url()).protocol)) return await route.abort('blockedbyclient');
      const answer = await answerFor(route, agent, job);
      await route.fulfill({ status: answer.status, headers: answer.headers, body: answer.body });
    } catch (error) {
      if (error instanceof Error && /larger than|too large/.test(error.message) && request.isNavigationRequest()) tooLarge = true;
      else if (request.isNavigationRequest() && request.frame() === request.frame().page().mainFrame()) {
        const failure = toFetchError(error, job.timeoutMs);
        if (failure.message.startsWith('could not decompress')) documentFailure = failure;
      }
      // The guard remembered a refused address (renderer: pageFailure); the page's request just fails.
      await route.abort('failed').catch(() => undefined);
    }
  });
  return {
    tooLarge: () => tooLarge,
    documentFailure: () => documentFailure,
    close: async () => {
      await context.unrouteAll({ behavior: 'ignoreErrors' }).catch(() => undefined);
      await agent.destroy().catch(() => undefined);
    },
  };
}

/**
 * The document a navigation ended on, past the stub pages of its redirects (see above): each stub refreshes
 * to its target, which is routed as a navigation of its own. `latest` is the main frame's latest document
 * response (the renderer watches them); Chromium's own limit on redirects does not apply to stubs, so this one does.
 */
export async function settleRedirects(
  page: Page,
  first: Response | null,
  latest: () => Response | undefined,
  deadlineAt: number,
): Promise<Response | null> {
  let response = first;
  for (let hops = 0; ; hops += 1) {
    const target = response?.headers()[REDIRECT_STUB_HEADER];
    if (target === undefined) return response;
    if (hops >= MAX_REDIRECTS || target === page.url()) throw tooManyRedirectsError();
    await page.waitForURL((url) => url.href === target, { waitUntil: 'domcontentloaded', timeout: Math.max(1, deadlineAt - Date.now()) });
    response = latest() ?? null;
  }
}
