import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Dashboard sign-in. `pagejson dashboard` asks the daemon (over its admin socket, so only the daemon's user
 * can) for a one-time login token; the link carrying it is redeemed once for a session, whose id travels in
 * an HttpOnly cookie. Tokens and session ids are 32 random bytes; only their SHA-256 digests are kept, so a
 * memory dump holds nothing that signs in. Everything is in memory: a restart signs everyone out.
 */
export const LOGIN_TOKEN_TTL_MS = 10 * 60_000;
/** Bounds on what a flood of link requests or sign-ins can make the daemon hold. */
const MAX_PENDING_TOKENS = 100;
const MAX_SESSIONS = 1_000;
export const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface DashboardSession {
  /** Sent back in `x-pagejson-csrf` by every change the dashboard makes. */
  csrf: string;
  expiresAt: number;
}

export interface DashboardSessions {
  issueLoginToken(): { token: string; expiresAt: Date };
  /** The session id for a valid unused token (the token is spent), else undefined. */
  redeem(token: string): { id: string; session: DashboardSession } | undefined;
  find(id: string | undefined): DashboardSession | undefined;
  end(id: string): void;
  csrfMatches(session: DashboardSession, given: string | undefined): boolean;
}

const secret = (): string => randomBytes(32).toString('base64url');
const digestOf = (value: string): string => createHash('sha256').update(value).digest('hex');

/** Drop the oldest entries of a Map (insertion order) until it has room for one more. */
function makeRoom<V>(map: Map<string, V>, max: number): void {
  while (map.size >= max) map.delete(map.keys().next().value!);
}

export function createDashboardSessions(options: { sessionMs: number; now?: () => number }): DashboardSessions {
  const now = options.now ?? Date.now;
  const tokens = new Map<string, number>();
  const sessions = new Map<string, DashboardSession>();
  return {
    issueLoginToken() {
      makeRoom(tokens, MAX_PENDING_TOKENS);
      const token = secret();
      const expiresAt = now() + LOGIN_TOKEN_TTL_MS;
      tokens.set(digestOf(token), expiresAt);
      return { token, expiresAt: new Date(expiresAt) };
    },
    redeem(token) {
      if (!SECRET_PATTERN.test(token)) return undefined;
      const digest = digestOf(token);
      const expiresAt = tokens.get(digest);
      tokens.delete(digest);
      if (expiresAt === undefined || expiresAt <= now()) return undefined;
      makeRoom(sessions, MAX_SESSIONS);
      const id = secret();
      const session = { csrf: secret(), expiresAt: now() + options.sessionMs };
      sessions.set(digestOf(id), session);
      return { id, session };
    },
    find(id) {
      if (id === undefined || !SECRET_PATTERN.test(id)) return undefined;
      const digest = digestOf(id);
      const session = sessions.get(digest);
      if (!session) return undefined;
      if (session.expiresAt <= now()) {
        sessions.delete(digest);
        return undefined;
      }
      return session;
    },
    end(id) {
      if (SECRET_PATTERN.test(id)) sessions.delete(digestOf(id));
    },
    csrfMatches(session, given) {
      if (given === undefined) return false;
      const a = Buffer.from(given);
      const b = Buffer.from(session.csrf);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
