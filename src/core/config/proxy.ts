import { z } from 'zod';
import { secretTemplate } from './secrets.js';

/**
 * Proxies (docs/access.md): `fetch.proxy` in pagejson.json for every endpoint, `proxy` in a config for one
 * (`false`: direct, whatever pagejson.json or the environment say). An ordered list of HTTP(S) proxy URLs,
 * credentials in the URL and `${NAME}` allowed anywhere in it, taken in turn (`round-robin`) or the same one
 * per endpoint until it fails (`sticky`). Neither set: HTTPS_PROXY/HTTP_PROXY/NO_PROXY of the environment.
 */
export const PROXY_ROTATIONS = ['round-robin', 'sticky'] as const;
export type ProxyRotation = (typeof PROXY_ROTATIONS)[number];
export const MAX_PROXY_URLS = 100;
const MAX_PROXY_URL_LENGTH = 2_000;

/** The URL a template would make, with every placeholder standing for `1`: enough to check its shape. */
function sampleOf(template: string): string {
  return template.replace(/\$\{[A-Z_][A-Z0-9_]*\}/g, '1');
}

/** What is wrong with a proxy URL (a template or not), or undefined. */
export function proxyUrlProblem(template: string): string | undefined {
  if (!/^https?:\/\//i.test(template)) {
    return /^socks/i.test(template)
      ? 'SOCKS proxies are not supported: use an HTTP(S) proxy (http://host:port)'
      : 'a proxy URL starts with http:// or https://, e.g. http://${PROXY_USER}:${PROXY_PASS}@proxy.example:3128';
  }
  let url: URL;
  try {
    url = new URL(sampleOf(template));
  } catch {
    return 'not a URL: write http://[user:password@]host:port';
  }
  if (!url.hostname) return 'the proxy URL has no host';
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    return 'a proxy URL is scheme, credentials, host and port only (no path, query or fragment)';
  return undefined;
}

/**
 * How a proxy is named in errors, logs and listings: its template without the user info, so neither a
 * written nor a resolved credential is ever shown (`http://${USER}:${PASS}@proxy:3128` → `http://proxy:3128`).
 */
export function proxyLabel(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/i.exec(url);
  if (!match) return '(a proxy)';
  const [, scheme = '', authority = '', rest = ''] = match;
  const at = authority.lastIndexOf('@');
  const host = at >= 0 ? authority.slice(at + 1) : authority;
  return `${scheme}${host}${rest === '/' ? '' : rest}`;
}

/** Whether the URL carries credentials (written or as `${NAME}`): shown masked by the dashboard and `show`. */
export function proxyHasCredentials(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url);
}

const ProxyUrl = secretTemplate(MAX_PROXY_URL_LENGTH).superRefine((value, context) => {
  const problem = proxyUrlProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

export const ProxyListSchema = z
  .object({
    urls: z
      .array(ProxyUrl)
      .min(1, 'give at least one proxy URL, or write false for none')
      .max(MAX_PROXY_URLS)
      .describe('HTTP(S) proxies in the order to try them: http://[user:password@]host:port, ${NAME} read from the environment'),
    rotate: z
      .enum(PROXY_ROTATIONS)
      .default('round-robin')
      .describe(
        'round-robin: each fetch takes the next proxy; sticky: an endpoint keeps its proxy (and its login session) until that proxy fails',
      ),
  })
  .strict();

export const ProxySchema = z
  .union([z.literal(false), ProxyListSchema])
  .describe('Proxies for fetching (docs/access.md); false: direct. A failing proxy is skipped for a while and the next one tried');

export type ProxyList = z.output<typeof ProxyListSchema>;
export type ProxySettings = z.output<typeof ProxySchema>;
export type ProxySettingsInput = z.input<typeof ProxySchema>;
