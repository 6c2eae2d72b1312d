import { Pool, ProxyAgent, type buildConnector, type Dispatcher } from 'undici';
import { markProxyLeg } from './proxy-attempts.js';
import type { ProxyCandidate } from './proxy-rotation.js';

/**
 * Scraper 1's proxies: one undici ProxyAgent per proxy (kept, with its keep-alive connections, until the
 * scraper closes). `http:` pages go to an HTTP proxy as absolute-form requests, as curl and browsers send
 * them (many proxies open CONNECT tunnels to port 443 only); `https:` pages through a CONNECT tunnel. The
 * credentials become a `Proxy-Authorization: Basic` header of the agent; the URL handed to undici has none,
 * so no message of undici's can quote them.
 */
export interface ProxyDispatchers {
  for(candidate: ProxyCandidate): Dispatcher;
  close(): Promise<void>;
}

/** `Basic <base64(user:password)>` of a proxy URL's user info, or undefined without one. */
export function basicProxyAuthorization(url: URL): string | undefined {
  if (!url.username && !url.password) return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
}

/** The proxy URL without user info: what proxy clients are given beside the header. */
export function bareProxyUrl(url: URL): string {
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  return bare.href;
}

/**
 * The connector of the connection to the proxy itself, its failures marked as the proxy's: a TLS failure with
 * an `https://` proxy carries the same OpenSSL code as one with the page behind it (proxy-attempts.ts).
 */
function proxyLegClient(origin: URL, opts: object): Dispatcher {
  const { connect } = opts as { connect?: buildConnector.connector };
  if (typeof connect !== 'function') return new Pool(origin, opts);
  const marked: buildConnector.connector = (options, callback) =>
    connect(options, (...args: Parameters<buildConnector.Callback>) => {
      if (args[0]) markProxyLeg(args[0]);
      callback(...args);
    });
  return new Pool(origin, { ...opts, connect: marked });
}

export function createProxyDispatchers(options: { timeoutMs: number }): ProxyDispatchers {
  const agents = new Map<string, ProxyAgent>();
  return {
    for(candidate) {
      const key = candidate.url.href;
      let agent = agents.get(key);
      if (!agent) {
        const token = basicProxyAuthorization(candidate.url);
        agent = new ProxyAgent({
          uri: bareProxyUrl(candidate.url),
          ...(token ? { token } : {}),
          proxyTunnel: false,
          clientFactory: proxyLegClient,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
          keepAliveTimeout: 4_000,
        });
        agents.set(key, agent);
      }
      return agent;
    },
    async close() {
      const all = [...agents.values()];
      agents.clear();
      await Promise.all(all.map((agent) => agent.close().catch(() => agent.destroy().catch(() => undefined))));
    },
  };
}
