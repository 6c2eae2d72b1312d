import type { ProxySettings } from './proxy.js';
import type { RequestSettings } from './request.js';
import { isTemplateOnly } from './template-only.js';

/**
 * How `request` and `proxy` are shown (`show`, `show --json`, `diff`, the dashboard; docs/security.md):
 * as written, `${NAME}` templates included, since a template holds no secret; a credential written literally
 * into a config (which `validate` cannot forbid, and docs/access.md says not to do) is masked, so none of
 * these screens repeats it. Resolved values are never at hand here: only the fetch resolves.
 */
export const MASK = '••••';

/** Header names whose value is a credential. */
const CREDENTIAL_HEADER = /auth|token|key|secret|session|cookie|signature|password|credential/i;

/** A literal credential as shown: its scheme word kept (`Bearer ••••`), the rest masked. */
function masked(value: string): string {
  const scheme = /^([A-Za-z]+) \S/.exec(value)?.[1];
  return scheme ? `${scheme} ${MASK}` : MASK;
}

/** A header's value as shown: a credential header's only as a template (`Bearer ${API_TOKEN}`). */
export function displayHeaderValue(name: string, value: string): string {
  return CREDENTIAL_HEADER.test(name) && !isTemplateOnly(value, { scheme: true }) ? masked(value) : value;
}

/** Cookie values are credentials more often than not: shown only when they are templates. */
export function displayCookieValue(value: string): string {
  return isTemplateOnly(value) ? value : MASK;
}

/** A proxy URL with written-in credentials masked (`http://user:••••@host:3128`); templates kept. */
export function displayProxyUrl(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@(.*)$/i.exec(url);
  if (!match) return url;
  const [, scheme = '', userinfo = '', rest = ''] = match;
  const colon = userinfo.indexOf(':');
  const user = colon >= 0 ? userinfo.slice(0, colon) : userinfo;
  const password = colon >= 0 ? userinfo.slice(colon + 1) : undefined;
  const shownPassword = password === undefined ? '' : `:${isTemplateOnly(password) ? password : MASK}`;
  return `${scheme}${user}${shownPassword}@${rest}`;
}

/** The `request` block as shown. */
export function displayRequest(request: RequestSettings): RequestSettings {
  const out: RequestSettings = { ...request };
  if (request.headers)
    out.headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, displayHeaderValue(name, value)]));
  if (request.cookies)
    out.cookies = Object.fromEntries(Object.entries(request.cookies).map(([name, value]) => [name, displayCookieValue(value)]));
  return out;
}

/** The `proxy` setting as shown. */
export function displayProxy(proxy: ProxySettings): ProxySettings {
  return proxy === false ? false : { ...proxy, urls: proxy.urls.map(displayProxyUrl) };
}

/** A config (or any object with `request`/`proxy`) with both as shown: for `show --json` and the dashboard. */
export function withAccessShown<T extends { request?: RequestSettings | undefined; proxy?: ProxySettings | undefined }>(config: T): T {
  return {
    ...config,
    ...(config.request ? { request: displayRequest(config.request) } : {}),
    ...(config.proxy !== undefined ? { proxy: displayProxy(config.proxy) } : {}),
  };
}

/** `show`'s rows for a config's access settings, in words. */
export function accessRows(config: { request?: RequestSettings | undefined; proxy?: ProxySettings | undefined }): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(config.request?.headers ?? {}))
    rows.push([`header`, `${name}: ${displayHeaderValue(name, value)}`]);
  for (const [name, value] of Object.entries(config.request?.cookies ?? {})) rows.push([`cookie`, `${name}=${displayCookieValue(value)}`]);
  if (config.request?.sendToRedirects) rows.push(['redirects', 'headers and cookies also sent to other origins']);
  if (config.proxy === false) rows.push(['proxy', 'none (direct, whatever pagejson.json or the environment say)']);
  else if (config.proxy) rows.push(['proxy', `${config.proxy.urls.map(displayProxyUrl).join(', ')} (${config.proxy.rotate})`]);
  return rows;
}
