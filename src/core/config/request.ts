import { z } from 'zod';
import { secretTemplate } from './secrets.js';

/**
 * A config's `request` (docs/access.md): headers and cookies sent with every fetch of the endpoint, by every
 * scraper and on every page of a pagination, to the origin of the config's URL only (a redirect to another
 * origin goes without them unless `sendToRedirects` is true; docs/decisions.md, "Request headers and
 * redirects"). Values may hold `${NAME}` secrets (secrets.ts), resolved at fetch and never written back.
 */

/**
 * RFC 9110 token: what a header or cookie name may be. (zod leaves a `__proto__` key out of a record's
 * output, so it never becomes a header.)
 */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
export const MAX_REQUEST_HEADERS = 50;
export const MAX_REQUEST_COOKIES = 50;
const MAX_HEADER_VALUE = 8_192;
const MAX_COOKIE_VALUE = 4_096;

/**
 * Headers pagejson sets or that describe the connection, not the request: a config cannot set them. Why, in
 * the words `validate` shows.
 */
export const REFUSED_HEADERS: Readonly<Record<string, string>> = {
  host: 'the Host comes from the URL',
  'content-length': 'it describes the body, and a fetch sends none',
  'transfer-encoding': 'it describes the body, and a fetch sends none',
  connection: 'it describes the connection, not the request',
  'keep-alive': 'it describes the connection, not the request',
  'proxy-connection': 'it describes the connection, not the request',
  upgrade: 'it describes the connection, not the request',
  te: 'it describes the connection, not the request',
  trailer: 'it describes the body, and a fetch sends none',
  cookie: 'write cookies under request.cookies, one entry each',
  'proxy-authorization': 'put proxy credentials in the proxy URL (proxy.urls: http://${USER}:${PASS}@host:port)',
};

/** A cookie value's characters (RFC 6265 cookie-octet), placeholders aside. */
const COOKIE_OCTETS = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;

export function isCookieValue(value: string): boolean {
  return COOKIE_OCTETS.test(value);
}

const HeaderValue = secretTemplate(MAX_HEADER_VALUE);
const CookieValue = secretTemplate(MAX_COOKIE_VALUE).refine(
  (value) => isCookieValue(value.replace(/\$\{[A-Z_][A-Z0-9_]*\}/g, '')),
  'a cookie value cannot hold spaces, quotes, commas, semicolons or backslashes',
);

function nameProblems(what: 'header' | 'cookie', names: string[], context: z.RefinementCtx): void {
  for (const name of names) {
    if (!HEADER_NAME_PATTERN.test(name))
      context.addIssue({
        code: 'custom',
        path: [name],
        message: `"${name.slice(0, 100)}" cannot be a ${what} name: use letters, digits and !#$%&'*+.^_\`|~- (at most 100)`,
      });
  }
}

function headerProblems(headers: Record<string, string>, context: z.RefinementCtx): void {
  nameProblems('header', Object.keys(headers), context);
  const seen = new Set<string>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    const refused = REFUSED_HEADERS[lower];
    if (refused) context.addIssue({ code: 'custom', path: [name], message: `request.headers cannot set ${name}: ${refused}` });
    if (seen.has(lower))
      context.addIssue({ code: 'custom', path: [name], message: `header ${name} is given twice (names are case-insensitive)` });
    seen.add(lower);
  }
}

export const RequestSchema = z
  .object({
    headers: z
      .record(z.string(), HeaderValue)
      .superRefine(headerProblems)
      .refine((headers) => Object.keys(headers).length <= MAX_REQUEST_HEADERS, `at most ${MAX_REQUEST_HEADERS} headers`)
      .optional()
      .describe(
        'Headers sent with every fetch of the endpoint, e.g. {"Authorization": "Bearer ${API_TOKEN}"}; ${NAME} is read from the environment',
      ),
    cookies: z
      .record(z.string(), CookieValue)
      .superRefine((cookies, context) => nameProblems('cookie', Object.keys(cookies), context))
      .refine((cookies) => Object.keys(cookies).length <= MAX_REQUEST_COOKIES, `at most ${MAX_REQUEST_COOKIES} cookies`)
      .optional()
      .describe('Cookies sent with every fetch of the endpoint, e.g. {"session": "${SITE_SESSION}"}; ${NAME} is read from the environment'),
    sendToRedirects: z
      .boolean()
      .optional()
      .describe("Also send these headers and cookies after a redirect to another origin (default: only to the origin of the config's url)"),
  })
  .strict()
  .describe('Headers and cookies sent with every fetch of the endpoint (docs/access.md)');

export type RequestSettings = z.output<typeof RequestSchema>;

/** Every text of a `request` block that may hold secrets, with where it stands (for validate and masking). */
export function requestTexts(request: RequestSettings | undefined): Array<{ path: Array<string>; value: string }> {
  if (!request) return [];
  const texts: Array<{ path: Array<string>; value: string }> = [];
  for (const [name, value] of Object.entries(request.headers ?? {})) texts.push({ path: ['request', 'headers', name], value });
  for (const [name, value] of Object.entries(request.cookies ?? {})) texts.push({ path: ['request', 'cookies', name], value });
  return texts;
}
