import { PagejsonError, isPagejsonError } from '../../shared/index.js';
import { proxyLabel, resolveSecrets, type ProxySettings } from '../../config/index.js';
import { assertAllowedProxiedTarget } from './proxy-target.js';

/**
 * A config's `proxy` is where a fetch sends its request, and its credentials: a config (which a pull request
 * can change) must not point it at this machine or its private network, any more than its page URL (issue
 * 45). Checked before anything is sent, by the rules of a page's host: a literal address by its range, a name
 * by what it resolves to; `fetch.allowPrivateNetworks` opens private ranges as it does for pages.
 * `fetch.proxy` of pagejson.json and the environment's proxies are the operator's and are not judged here.
 */
export async function assertConfigProxiesAllowed(
  proxy: ProxySettings | undefined,
  env: Readonly<Record<string, string | undefined>>,
  allowPrivateNetworks: boolean,
): Promise<void> {
  if (!proxy) return;
  for (const [index, text] of proxy.urls.entries()) {
    const where = `proxy.urls[${index}]`;
    const resolved = resolveSecrets(text, env, where);
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(resolved) ? resolved : `http://${resolved}`);
    } catch {
      continue; // the proxy choice refuses it with its own words
    }
    try {
      await assertAllowedProxiedTarget(url, allowPrivateNetworks);
    } catch (error) {
      if (!isPagejsonError(error) || error.code !== 'FETCH_BLOCKED_ADDRESS') throw error;
      const label = proxyLabel(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
      throw new PagejsonError('FETCH_BLOCKED_ADDRESS', `the proxy ${label} (${where}) is not at a public address: ${error.message}`, {
        context: { proxy: label, where, ...error.context },
        hint: 'a config may send its requests only through public proxies; set fetch.allowPrivateNetworks to true in pagejson.json if this proxy is on your network',
      });
    }
  }
}
