import { PagejsonError } from '../../shared/index.js';
import { isCookieValue, resolveSecrets } from '../../config/index.js';
import type { FetchAccess } from './access-of.js';
import { createProxyChooser, type ProxyCandidate, type ProxyChooser } from './proxy-rotation.js';

/**
 * A config's `request` and `proxy` as one fetch uses them (docs/access.md): the templates are resolved from
 * the environment once, before anything is sent (an unset `${NAME}` fails the fetch naming it), and the
 * headers and cookies go to the origin of the fetched URL only; after a redirect to another origin they are
 * left out unless `sendToRedirects` (docs/decisions.md, "Request headers and redirects"). Every scraper asks
 * `headersFor`/`cookiesFor` for each request it sends, so a redirect hop, a pagination page or a browser
 * subresource is judged by its own URL.
 */

type Env = Readonly<Record<string, string | undefined>>;

export { accessOf, type FetchAccess } from './access-of.js';

export interface ResolvedAccess {
  readonly endpoint: string | undefined;
  /** The proxies to try, in order; empty: direct. */
  readonly candidates: ProxyCandidate[];
  /** Whether any header or cookie is configured (scraper 3 intercepts requests only then). */
  readonly sendsAnything: boolean;
  /** Configured headers (names in lower case) for a request to `url`; empty when it may not have them. */
  headersFor(url: string | URL): Record<string, string>;
  /** Configured cookies for `url` as `a=1; b=2`, or undefined. */
  cookiesFor(url: string | URL): string | undefined;
}

export interface AccessResolver {
  env: Env;
  proxies: ProxyChooser;
}

function originOf(url: string | URL): string | undefined {
  try {
    return (typeof url === 'string' ? new URL(url) : url).origin;
  } catch {
    return undefined;
  }
}

function resolveCookies(cookies: Readonly<Record<string, string>>, env: Env): Array<[string, string]> {
  return Object.entries(cookies).map(([name, template]) => {
    const value = resolveSecrets(template, env, `request.cookies.${name}`);
    if (!isCookieValue(value)) {
      throw new PagejsonError(
        'FETCH_FAILED',
        `the cookie ${name} (request.cookies) holds a character a cookie cannot: a space, quote, comma, semicolon or backslash`,
        {
          context: { cookie: name },
          hint: 'check what the environment variable in its value holds; encode the value if the site expects it encoded',
        },
      );
    }
    return [name, value];
  });
}

function resolveHeaders(headers: Readonly<Record<string, string>>, env: Env): Record<string, string> {
  const resolved: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, template] of Object.entries(headers))
    resolved[name.toLowerCase()] = resolveSecrets(template, env, `request.headers.${name}`);
  return resolved;
}

/** Resolves an endpoint's access for a fetch of `url`: secrets, the origin they go to, and the proxies. */
export function resolveAccess(url: string, access: FetchAccess | undefined, resolver: AccessResolver): ResolvedAccess {
  const request = access?.request;
  const headers = resolveHeaders(request?.headers ?? {}, resolver.env);
  const cookies = resolveCookies(request?.cookies ?? {}, resolver.env);
  const home = originOf(url);
  const toRedirects = request?.sendToRedirects === true;
  const allowed = (target: string | URL): boolean => toRedirects || (home !== undefined && originOf(target) === home);
  let target: URL | undefined;
  try {
    target = new URL(url);
  } catch {
    target = undefined;
  }
  const candidates = target ? resolver.proxies.candidates(target, { endpoint: access?.endpoint, proxy: access?.proxy }) : [];
  const cookieText = cookies.map(([name, value]) => `${name}=${value}`).join('; ');
  return {
    endpoint: access?.endpoint,
    candidates,
    sendsAnything: Object.keys(headers).length > 0 || cookies.length > 0,
    headersFor: (to) => (allowed(to) ? { ...headers } : {}),
    cookiesFor: (to) => (cookieText && allowed(to) ? cookieText : undefined),
  };
}

/**
 * A Cookie header with the configured cookies added to those the site set (a jar, the browser): a configured
 * cookie replaces the site's cookie of the same name, since the config says what to send.
 */
export function mergeCookieHeader(existing: string | undefined, configured: string | undefined): string | undefined {
  if (!configured) return existing;
  if (!existing) return configured;
  const names = new Set(configured.split('; ').map((pair) => pair.slice(0, pair.indexOf('='))));
  const kept = existing.split(/;\s*/).filter((pair) => pair && !names.has(pair.slice(0, Math.max(0, pair.indexOf('=')))));
  return [...kept, configured].join('; ');
}

/**
 * What a scraper resolves access with: the pool's chooser and environment (scraperOptionsFromSettings), or,
 * for a scraper made on its own, a chooser of its own over the environment it was given (none: no proxy).
 */
export function accessResolverFor(options: { env?: Env | undefined; proxies?: ProxyChooser | undefined }): AccessResolver {
  const env = options.env ?? {};
  return { env, proxies: options.proxies ?? createProxyChooser({ env }) };
}
