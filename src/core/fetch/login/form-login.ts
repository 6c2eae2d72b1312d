import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { getPublicSuffix, type CookieJar } from 'tough-cookie';
import { assertAllowedUrlHost } from '../net/address-guard.js';
import { classifyPage, blockedError, statusFacts } from '../net/block-page.js';
import { PagejsonError } from '../../shared/index.js';
import { readBodyWithLimit } from '../net/body-limit.js';
import { decodeHtmlBody } from '../net/charset.js';
import { decodedStream } from '../net/html-response.js';
import { chooseLoginForm, formPayload, parseForms } from './form-parse.js';
import { loginFailed } from './login-errors.js';

/**
 * A login form posted over HTTP (docs/access.md, "Logins"), as a browser would: the login page is fetched with
 * the session's cookie jar, its form found (the one holding the configured fields, else the one with a password
 * field), every field it carries kept (hidden CSRF tokens, the submit button) with the configured values over
 * them, and the form posted to its action; redirects are followed and every Set-Cookie lands in the jar. The
 * login failed when the site answers an error status, or its login form again (the credentials were refused).
 * Every hop passes the address guard; bodies are capped; nothing here prints a value.
 */
export interface FormLoginJob {
  /** The login page, `${NAME}` resolved. */
  url: string;
  /** The configured fields, `${NAME}` resolved. */
  fields: Readonly<Record<string, string>>;
  jar: CookieJar;
  signal: AbortSignal;
  /** Direct (the guarded agent) or through the endpoint's proxy. */
  dispatcher: Dispatcher;
  /** Through a proxy the connected address is the proxy's: the target was checked by name already. */
  checkHost: boolean;
  allowPrivateNetworks: boolean;
  maxBytes: number;
  /** The endpoint's configured headers for a URL (request.headers, docs/access.md), if any. */
  headersFor?: (url: URL) => Record<string, string>;
}

export interface FormLoginResult {
  /** Where the login ended (after redirects). */
  finalUrl: string;
  status: number;
}

const MAX_HOPS = 5;
const MAX_LOGIN_PAGE_BYTES = 2 * 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The headers scraper 1 sends (scrapers/http.ts): a login is the same visitor as the fetches after it. */
const BROWSER_HEADERS = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en-US,en;q=0.9',
  'accept-encoding': 'gzip, deflate, br',
} as const;

interface Sent {
  method: 'GET' | 'POST';
  body?: string;
  referer?: string;
}

interface Answer {
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function sendOnce(job: FormLoginJob, url: URL, sent: Sent): Promise<Answer> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw loginFailed(`the login leads to a ${url.protocol} address`, "the login url and the form's action must be http(s)");
  if (job.checkHost) assertAllowedUrlHost(url, job.allowPrivateNetworks);
  const headers: Record<string, string> = { ...BROWSER_HEADERS, ...job.headersFor?.(url) };
  const cookie = await job.jar.getCookieString(url.href);
  if (cookie) headers.cookie = cookie;
  // Never across sites: a GET form's address holds its fields, the password among them (issue 45).
  const referer = sent.referer !== undefined && isSameSite(new URL(sent.referer), url) ? sent.referer : undefined;
  if (referer) headers.referer = referer;
  if (sent.method === 'POST') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    if (referer) headers.origin = new URL(referer).origin;
  }
  const response = await request(url, {
    dispatcher: job.dispatcher,
    method: sent.method,
    headers,
    ...(sent.body !== undefined ? { body: sent.body } : {}),
    signal: job.signal,
  });
  const setCookie = response.headers['set-cookie'];
  for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [])
    await job.jar.setCookie(line, url.href, { ignoreError: true });
  return { url: url.href, status: response.statusCode, headers: response.headers, body: response.body };
}

/**
 * Follows redirects as a browser does after a form: 301-303 become a GET, 307/308 repeat the request. With
 * `credentials`, the login's site (the configured login URL's): a request that carries the fields (a repeated
 * body, or a GET form's address) never goes to another site.
 */
async function follow(job: FormLoginJob, start: URL, first: Sent, credentials?: { home: URL; inAddress: boolean }): Promise<Answer> {
  let url = start;
  let sent = first;
  for (let hop = 0; ; hop += 1) {
    const answer = await sendOnce(job, url, sent);
    const location = one(answer.headers.location);
    if (!REDIRECTS.has(answer.status) || !location) return answer;
    await answer.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    if (hop >= MAX_HOPS)
      throw loginFailed('the login redirects more than 5 times', 'open the login url in a browser: it may loop until cookies are accepted');
    const next = new URL(location, url);
    next.hash = '';
    const keepsBody = answer.status === 307 || answer.status === 308;
    if (credentials && keepsBody && sent.body !== undefined) assertSameSite(credentials.home, next, 'redirects the login form');
    if (credentials?.inAddress) assertSameSite(credentials.home, next, 'redirects its form sent in the address (GET)');
    sent = keepsBody ? sent : { method: 'GET', referer: url.href };
    url = next;
  }
}

/** A body nobody reads any more: undici emits an AbortError on it when destroyed, which must not go uncaught. */
function drop(body: Readable): void {
  if (body.listenerCount('error') === 0) body.on('error', () => undefined);
  body.destroy();
}

async function readText(answer: Answer, maxBytes: number): Promise<string> {
  const headers = answer.headers;
  const stream: Readable = decodedStream(answer.body, one(headers['content-encoding']));
  try {
    const bytes = await readBodyWithLimit(stream, Math.min(maxBytes, MAX_LOGIN_PAGE_BYTES));
    return decodeHtmlBody(bytes, one(headers['content-type'])).text;
  } catch (error) {
    drop(stream);
    drop(answer.body);
    throw error;
  }
}

/** A page read as a login step sees it: an error status or a block page ends the login. */
async function pageOf(answer: Answer, job: FormLoginJob, what: string): Promise<string> {
  if (answer.status >= 400) {
    drop(answer.body);
    // The site asked to be left alone: a pause of its origin (net/source-screen.ts), not a failed login.
    if (answer.status === 429)
      throw new PagejsonError('FETCH_STATUS', 'HTTP 429', { context: { status: 429, url: answer.url, ...statusFacts(answer.headers) } });
    throw loginFailed(
      `${what} answered HTTP ${answer.status}`,
      answer.status === 401 || answer.status === 403
        ? 'check the credentials in login.form (the environment variables they name)'
        : 'check login.url: it must be the page that shows the login form',
    );
  }
  const html = await readText(answer, job.maxBytes);
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) if (typeof value === 'string') flat[name] = value;
  const verdict = classifyPage({ headers: flat, html });
  if (verdict) throw blockedError(verdict, answer.url);
  return html;
}

/** The registrable domain of a host (`auth.example.com` → `example.com`), or the host itself (an IP, localhost). */
function siteOf(host: string): string {
  try {
    return getPublicSuffix(host) ?? host;
  } catch {
    return host;
  }
}

/**
 * Credentials go to the login page's own site only: a form (or a redirect that repeats its body) that sends them
 * to another site — a login page taken over, an open redirect — is refused (docs/security.md).
 */
function isSameSite(from: URL, to: URL): boolean {
  return from.hostname === to.hostname || siteOf(from.hostname) === siteOf(to.hostname);
}

function assertSameSite(from: URL, to: URL, what: string): void {
  if (isSameSite(from, to)) return;
  throw loginFailed(
    `the login page ${what} to another site (${to.host}): the credentials were not sent`,
    "point login.url at the login page of the site itself: pagejson sends credentials only to the login page's site",
  );
}

export async function formLogin(job: FormLoginJob): Promise<FormLoginResult> {
  const start = new URL(job.url);
  const landing = await follow(job, start, { method: 'GET' });
  const loginPage = await pageOf(landing, job, 'the login page');
  const names = Object.keys(job.fields);
  const form = chooseLoginForm(parseForms(loginPage), names);
  if (!form) {
    throw loginFailed(
      `no login form on ${landing.url}`,
      `point login.url at the page with the form, and name its fields in login.form as the page does (looked for ${names.join(', ')})`,
    );
  }
  const missing = names.filter((name) => !form.fields.some((f) => f.name === name));
  if (missing.length > 0) {
    throw loginFailed(
      `the login form has no field ${missing.join(', ')}`,
      `name the fields as the form does: it has ${form.fields
        .map((f) => f.name)
        .slice(0, 20)
        .join(', ')}`,
    );
  }
  const body = new URLSearchParams(formPayload(form, job.fields)).toString();
  const action = new URL(form.action && form.action.trim() !== '' ? form.action : landing.url, landing.url);
  action.hash = '';
  // Judged against the configured login URL, not where its redirects landed (issue 45): a login page that
  // redirects to another site must not have that site's form filled and posted.
  assertSameSite(start, action, form.method === 'get' ? 'sends its form' : 'posts its form');
  const sent: Sent = form.method === 'get' ? { method: 'GET', referer: landing.url } : { method: 'POST', body, referer: landing.url };
  if (form.method === 'get') action.search = body;
  const answer = await follow(job, action, sent, { home: start, inAddress: form.method === 'get' });
  const after = await pageOf(answer, job, 'the site');
  const again = chooseLoginForm(parseForms(after), names);
  if (again && again.hasPassword && names.every((name) => again.fields.some((f) => f.name === name))) {
    throw loginFailed(
      'the site answered with its login form again: the credentials were not accepted',
      'check the values of login.form (the environment variables they name), and that login.url is the form they belong to',
    );
  }
  return { finalUrl: answer.url, status: answer.status };
}
