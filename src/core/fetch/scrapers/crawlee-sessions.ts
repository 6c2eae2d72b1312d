import { CookieJar } from 'tough-cookie';

/**
 * Scraper 2's fingerprint sessions, as Crawlee's session pool keeps them for its HTTP crawlers: a session is
 * a browser identity (got-scraping generates one header fingerprint per `sessionToken` and reuses it for
 * every request of that session) with its own cookie jar. A fetch takes one at random; a session the source
 * blocked (401, 403, 429) is retired, so a retry goes out as another browser; a session is also retired after
 * `maxUses` requests, which bounds what its cookie jar can gather.
 */
export interface FingerprintSession {
  /** got-scraping's `sessionToken`: it keys the generated headers (by object identity, in a WeakMap). */
  readonly token: object;
  readonly cookieJar: CookieJar;
}

export interface SessionPool {
  /** A session for the next request, never `avoid` when another can be had (a retry after a block). */
  take(avoid?: FingerprintSession): FingerprintSession;
  /** Counts one use; a blocked session, or one at its use limit, leaves the pool. */
  release(session: FingerprintSession, blocked: boolean): void;
  size(): number;
}

interface Entry extends FingerprintSession {
  uses: number;
}

/** Statuses that mean "this identity is blocked", Crawlee's default `blockedStatusCodes`. */
export const BLOCKED_STATUSES: ReadonlySet<number> = new Set([401, 403, 429]);

export function createSessionPool(options: { maxSize: number; maxUses: number; random?: () => number }): SessionPool {
  const random = options.random ?? Math.random;
  const entries: Entry[] = [];

  function create(): Entry {
    const entry: Entry = { token: {}, cookieJar: new CookieJar(), uses: 0 };
    entries.push(entry);
    return entry;
  }

  return {
    take(avoid) {
      // Like Crawlee's pool: a new identity per request until the pool is full, then a random one.
      if (entries.length < options.maxSize) return create();
      const candidates = entries.filter((entry) => entry !== avoid);
      if (candidates.length === 0) return create();
      return candidates[Math.floor(random() * candidates.length)] ?? create();
    },
    release(session, blocked) {
      const index = entries.findIndex((entry) => entry === session);
      if (index < 0) return;
      const entry = entries[index]!;
      entry.uses += 1;
      if (blocked || entry.uses >= options.maxUses) entries.splice(index, 1);
    },
    size: () => entries.length,
  };
}
