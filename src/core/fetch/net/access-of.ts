import type { ProxySettings, RequestSettings } from '../../config/index.js';

/**
 * What a caller hands a scraper for an endpoint (docs/access.md): its `request` and `proxy` as written
 * (templates, resolved by the scraper at fetch). Type imports only, so the CLI's commands and the daemon's
 * routes can import it without loading the config schemas.
 */
export interface FetchAccess {
  /** The endpoint (apiId): sticky proxies are kept per endpoint. */
  endpoint?: string | undefined;
  request?: RequestSettings | undefined;
  /** The config's `proxy`; undefined: `fetch.proxy` of pagejson.json, then the environment. */
  proxy?: ProxySettings | undefined;
}

/** The `access` of a fetch for a config: `fetch({ url, ...accessOf(config) })`. */
export function accessOf(config: { apiId: string; request?: RequestSettings | undefined; proxy?: ProxySettings | undefined }): {
  access: FetchAccess;
} {
  return { access: { endpoint: config.apiId, request: config.request, proxy: config.proxy } };
}
