import { randomBytes } from 'node:crypto';
import { Cookie, CookieJar } from 'tough-cookie';
import type { LoginSession, OriginStorage, StoredSession } from './types.js';

/**
 * A login session between its three forms: the cookie jar scrapers 1 and 2 send, Playwright's storage state
 * scraper 3 starts a context with (and gets back after browser steps), and the JSON kept on disk or in Redis.
 */

/** Playwright's cookie, as `storageState` holds it. */
export interface BrowserCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Seconds since the epoch; -1: a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

export interface BrowserStorage {
  cookies: BrowserCookie[];
  origins: OriginStorage[];
}

const SAME_SITE: Readonly<Record<string, BrowserCookie['sameSite']>> = { strict: 'Strict', lax: 'Lax', none: 'None' };

export function newSessionId(): string {
  return randomBytes(12).toString('hex');
}

async function cookiesOf(jar: CookieJar): Promise<Cookie[]> {
  const serialized = await jar.serialize();
  return serialized.cookies.map((json) => Cookie.fromJSON(json)).filter((cookie): cookie is Cookie => cookie !== null);
}

/** The jar as Playwright cookies: host-only cookies keep their host, domain cookies get the leading dot. */
export async function browserStorageOf(session: LoginSession): Promise<BrowserStorage> {
  const cookies = (await cookiesOf(session.jar)).map((cookie): BrowserCookie => {
    const expiry = cookie.expiryTime();
    return {
      name: cookie.key,
      value: cookie.value,
      domain: cookie.hostOnly ? (cookie.domain ?? '') : `.${cookie.domain ?? ''}`,
      path: cookie.path ?? '/',
      expires: expiry === undefined || !Number.isFinite(expiry) ? -1 : Math.floor(expiry / 1000),
      httpOnly: cookie.httpOnly,
      secure: cookie.secure,
      sameSite: SAME_SITE[String(cookie.sameSite).toLowerCase()] ?? 'Lax',
    };
  });
  return { cookies, origins: session.origins };
}

/** A jar holding a browser's cookies (what browser steps signed in with). */
export async function jarOfBrowserCookies(cookies: readonly BrowserCookie[]): Promise<CookieJar> {
  const jar = new CookieJar();
  for (const cookie of cookies) {
    const hostOnly = !cookie.domain.startsWith('.');
    const made = new Cookie({
      key: cookie.name,
      value: cookie.value,
      domain: hostOnly ? cookie.domain : cookie.domain.slice(1),
      path: cookie.path,
      expires: cookie.expires > 0 ? new Date(cookie.expires * 1000) : 'Infinity',
      httpOnly: cookie.httpOnly,
      secure: cookie.secure,
      hostOnly,
      sameSite: cookie.sameSite.toLowerCase(),
    });
    await jar.store.putCookie(made);
  }
  return jar;
}

export async function storedOf(
  session: LoginSession,
  facts: { endpoint: string; settingsKey: string; createdAt: string },
): Promise<StoredSession> {
  return {
    version: 1,
    id: session.id,
    endpoint: facts.endpoint,
    settingsKey: facts.settingsKey,
    createdAt: facts.createdAt,
    jar: await session.jar.serialize(),
    ...(session.origins.length > 0 ? { origins: session.origins } : {}),
  };
}

/** A kept session back as a live one; undefined when it does not read as one (an older or damaged file). */
export async function sessionOf(stored: StoredSession): Promise<LoginSession | undefined> {
  try {
    const jar = await CookieJar.deserialize(stored.jar as Parameters<typeof CookieJar.deserialize>[0]);
    return { id: stored.id, jar, origins: Array.isArray(stored.origins) ? stored.origins : [] };
  } catch {
    return undefined;
  }
}

/** The jar as text, to tell whether a fetch changed it (a site that renews its cookie as it goes). */
export async function jarText(jar: CookieJar): Promise<string> {
  const cookies = await cookiesOf(jar);
  return JSON.stringify(cookies.map((cookie) => [cookie.key, cookie.value, cookie.domain, cookie.path, String(cookie.expires)]));
}
