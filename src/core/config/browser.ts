import { z } from 'zod';
import { HEADER_NAME_PATTERN } from './request.js';
import { secretTemplate } from './secrets.js';

/**
 * `browser` of pagejson.json (docs/daemon.md, "Scraper 3 on a browser elsewhere"): where scraper 3 finds its
 * browser. Without `connect` it launches the system Chromium; with it, it connects to a Playwright server
 * (`ws://…`) or a Chrome DevTools endpoint (`http://host:9222`, `ws://…/devtools/browser/…`).
 * PAGEJSON_BROWSER_URL, when set, wins over `connect`. The URL and the headers may hold `${NAME}` secrets.
 */
export const BROWSER_KINDS = ['playwright', 'cdp'] as const;
export type BrowserKind = (typeof BROWSER_KINDS)[number];
export const DEFAULT_MAX_SESSIONS = 3;
const MAX_CONNECT_URL_LENGTH = 2_000;
const MAX_BROWSER_HEADERS = 20;
const MAX_HEADER_VALUE = 8_192;

/** What is wrong with a browser URL (a template or not), or undefined. */
export function browserUrlProblem(template: string): string | undefined {
  const sample = template.replace(/\$\{[A-Z_][A-Z0-9_]*\}/g, '1');
  if (!/^(wss?|https?):\/\//i.test(sample))
    return 'a browser URL starts with ws://, wss://, http:// or https://, e.g. ws://browsers.internal:3000/playwright';
  try {
    if (!new URL(sample).hostname) return 'the browser URL has no host';
  } catch {
    return 'not a URL: write ws://host:port/path or http://host:9222';
  }
  return undefined;
}

export const BrowserSchema = z
  .object({
    connect: secretTemplate(MAX_CONNECT_URL_LENGTH)
      .superRefine((value, context) => {
        const problem = browserUrlProblem(value);
        if (problem) context.addIssue({ code: 'custom', message: problem });
      })
      .optional()
      .describe(
        'A Playwright server (ws://…) or a Chrome DevTools endpoint (http://host:9222) that scraper 3 uses instead of launching Chromium; PAGEJSON_BROWSER_URL wins over it',
      ),
    kind: z
      .enum(BROWSER_KINDS)
      .optional()
      .describe('How to talk to `connect`: "playwright" or "cdp"; guessed from the URL when absent (http(s):// and /devtools/ are CDP)'),
    headers: z
      .record(z.string(), secretTemplate(MAX_HEADER_VALUE))
      .superRefine((headers, context) => {
        const names = Object.keys(headers);
        if (names.length > MAX_BROWSER_HEADERS) context.addIssue({ code: 'custom', message: `at most ${MAX_BROWSER_HEADERS} headers` });
        for (const name of names)
          if (!HEADER_NAME_PATTERN.test(name))
            context.addIssue({ code: 'custom', path: [name], message: `"${name.slice(0, 100)}" cannot be a header name` });
      })
      .optional()
      .describe('Headers sent when connecting to the browser (e.g. a token: "Authorization": "Bearer ${BROWSER_TOKEN}")'),
    maxSessions: z
      .number()
      .int()
      .positive()
      .max(1_000)
      .default(DEFAULT_MAX_SESSIONS)
      .describe('Pages at once on that browser (or on the local one); more fetches wait their turn within their deadline'),
  })
  .strict();

export type BrowserSettings = z.output<typeof BrowserSchema>;

/** `browser.kind`, or the kind the URL says: http(s):// and a `/devtools/` path are CDP, any other ws:// Playwright. */
export function browserKindOf(url: string, kind: BrowserKind | undefined): BrowserKind {
  if (kind) return kind;
  return /^https?:/i.test(url) || /\/devtools\//i.test(url) ? 'cdp' : 'playwright';
}

/**
 * How a browser URL is shown in errors, logs, `status` and `/readyz`: scheme, host and path, without user
 * info or query (where tokens go: browserless's `?token=`), so a resolved secret is never printed.
 */
export function browserUrlLabel(url: string): string {
  try {
    const parsed = new URL(url);
    // A DevTools browser id, or the random path of a Playwright server, is as good as a token to whoever can reach the port.
    const path = parsed.pathname
      .split('/')
      .map((segment) => (/^[0-9a-f-]{16,}$/i.test(segment) ? '…' : segment))
      .join('/');
    return `${parsed.protocol}//${parsed.host}${path === '/' ? '' : path}`;
  } catch {
    return '(the browser URL)';
  }
}
