/**
 * The proxy of the environment, for fetches nothing else configures (docs/access.md, "Proxies"): what Node
 * tools read, with undici's EnvHttpProxyAgent's rules. `https:` targets use `https_proxy`/`HTTPS_PROXY`, else
 * the HTTP proxy; `http:` targets `http_proxy`/`HTTP_PROXY` (lower case first). `no_proxy`/`NO_PROXY` lists
 * hosts reached directly, separated by commas or spaces: `*` for all, `example.com` for it and its
 * subdomains (`.example.com` and `*.example.com` say the same), `host:port` for one port.
 *
 * One decision for all three scrapers, made here rather than by EnvHttpProxyAgent inside scraper 1, so that
 * scrapers 2 and 3 (got-scraping, Chromium) go where scraper 1 goes and failures are counted alike.
 */

type Env = Readonly<Record<string, string | undefined>>;

interface NoProxyEntry {
  host: string;
  port: number | undefined;
}

function firstSet(env: Env, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

function parseNoProxy(value: string): NoProxyEntry[] | '*' {
  const entries: NoProxyEntry[] = [];
  for (const raw of value.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return '*';
    // `host:port` and `[v6]:port`; a bare IPv6 address (`::1`) has colons but no port.
    const withPort = /^\[(.+)\]:(\d+)$/.exec(entry) ?? (entry.split(':').length === 2 ? /^(.+):(\d+)$/.exec(entry) : null);
    const host = (withPort?.[1] ?? entry).replace(/^\*?\./, '').replace(/^\[|\]$/g, '');
    entries.push({ host, port: withPort ? Number(withPort[2]) : undefined });
  }
  return entries;
}

function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** Whether NO_PROXY sends `target` direct. */
export function bypassesProxy(target: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const entries = parseNoProxy(noProxy);
  if (entries === '*') return true;
  const host = target.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = effectivePort(target);
  return entries.some(
    (entry) => (entry.port === undefined || entry.port === port) && (host === entry.host || host.endsWith(`.${entry.host}`)),
  );
}

/** The environment's proxy URL for `target`, or undefined: none set, or NO_PROXY names the host. */
export function environmentProxyFor(target: URL, env: Env): string | undefined {
  const http = firstSet(env, 'http_proxy', 'HTTP_PROXY');
  const proxy = target.protocol === 'https:' ? (firstSet(env, 'https_proxy', 'HTTPS_PROXY') ?? http) : http;
  if (!proxy) return undefined;
  return bypassesProxy(target, firstSet(env, 'no_proxy', 'NO_PROXY')) ? undefined : proxy;
}
