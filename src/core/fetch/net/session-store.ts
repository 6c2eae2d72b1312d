import type * as ToughCookie from 'tough-cookie';
import type { CookieJar } from 'tough-cookie';

/** tough-cookie (~1 MB of heap with its public-suffix list) loads with the first session, not at start. */
let cookies: Promise<typeof ToughCookie> | undefined;

/**
 * Sessions of "Use session" (docs/wire.md, use session), one cookie jar per origin. A session lives `ttlMs` (10 minutes by
 * default) and is dropped early when the target refuses it (401/403). Concurrent first requests to an
 * origin share one handshake: the store keeps the promise, not the finished jar.
 */
export interface OriginSession {
  jar: CookieJar;
  createdAt: number;
}

export interface SessionStore {
  /** The live session of `origin`, or a new one made by `establish` (shared by concurrent callers). */
  get(origin: string, establish: (jar: CookieJar) => Promise<void>): Promise<{ session: OriginSession; reused: boolean }>;
  /** Forget `session` if it is still the current one of `origin` (a newer one made meanwhile is kept). */
  invalidate(origin: string, session: OriginSession): void;
  clear(): void;
}

export const SESSION_TTL_MS = 10 * 60 * 1000;

export function createSessionStore(options: { ttlMs?: number; now?: () => number } = {}): SessionStore {
  const ttlMs = options.ttlMs ?? SESSION_TTL_MS;
  const now = options.now ?? Date.now;
  const sessions = new Map<string, Promise<OriginSession>>();
  const settled = new Map<string, OriginSession>();

  /** Sessions of origins that are no longer fetched would otherwise stay forever in a long-running daemon. */
  function forgetExpired(): void {
    for (const [origin, session] of settled) {
      if (now() - session.createdAt >= ttlMs) {
        settled.delete(origin);
        sessions.delete(origin);
      }
    }
  }

  async function get(origin: string, establish: (jar: CookieJar) => Promise<void>) {
    const known = settled.get(origin);
    if (known && now() - known.createdAt < ttlMs) return { session: known, reused: true };
    if (known) {
      settled.delete(origin);
      sessions.delete(origin);
    }
    const pending = sessions.get(origin);
    if (pending) return { session: await pending, reused: false };
    forgetExpired();

    const creating = (async () => {
      const jar = new (await (cookies ??= import('tough-cookie'))).CookieJar();
      await establish(jar);
      return { jar, createdAt: now() };
    })();
    sessions.set(origin, creating);
    try {
      const session = await creating;
      if (sessions.get(origin) === creating) settled.set(origin, session);
      return { session, reused: false };
    } catch (error) {
      // A failed handshake is not remembered: the next request tries again.
      if (sessions.get(origin) === creating) sessions.delete(origin);
      throw error;
    }
  }

  return {
    get,
    invalidate(origin, session) {
      if (settled.get(origin) === session) {
        settled.delete(origin);
        sessions.delete(origin);
      }
    },
    clear() {
      sessions.clear();
      settled.clear();
    },
  };
}
