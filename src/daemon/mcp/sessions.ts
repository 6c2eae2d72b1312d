import { createFailureRate } from '../../core/access/index.js';

/**
 * The MCP sessions of the daemon's /mcp, bounded per key (docs/security.md, "MCP sessions"): one key could
 * otherwise open every session the daemon keeps and leave every other client with 503 until a restart.
 *
 * - at most `perKey` sessions per key (open or being opened), and `total` for the daemon;
 * - at most `opensPerMinute` session openings (`initialize`) per key and minute;
 * - a session without a request for `idleMs` is closed (an open event stream is not a request);
 * - a session whose key was revoked, expired or deleted is closed at the next sweep (`sweepMs`).
 */
export const MCP_SESSION_LIMITS = {
  total: 1_000,
  perKey: 16,
  opensPerMinute: 30,
  idleMs: 30 * 60_000,
  sweepMs: 10_000,
};

export interface Closable {
  close(): Promise<void>;
}

interface Entry<S> {
  session: S;
  keyDigest: string;
  lastSeen: number;
}

export type Admission<S> =
  | { ok: true; opened(id: string, session: S): void; release(): void }
  | { ok: false; status: 429 | 503; message: string; code: string; retryAfterSeconds?: number };

export interface McpSessionsOptions {
  now: () => number;
  /** Whether the key (by its digest) still may be used: not revoked, not expired, not deleted. */
  keyValid: (keyDigest: string) => Promise<boolean>;
  limits?: Partial<typeof MCP_SESSION_LIMITS>;
}

export function createMcpSessions<S extends Closable>(options: McpSessionsOptions) {
  const limits = { ...MCP_SESSION_LIMITS, ...options.limits };
  const { now } = options;
  const entries = new Map<string, Entry<S>>();
  /** Sessions of each key, open or being opened (an initialize in flight holds its place). */
  const perKey = new Map<string, number>();
  const opens = createFailureRate(limits.opensPerMinute, now);
  let pending = 0;

  const adjust = (keyDigest: string, by: number) => {
    const count = (perKey.get(keyDigest) ?? 0) + by;
    if (count <= 0) perKey.delete(keyDigest);
    else perKey.set(keyDigest, count);
  };

  function close(id: string): Promise<void> {
    const entry = entries.get(id);
    if (!entry) return Promise.resolve();
    entries.delete(id);
    adjust(entry.keyDigest, -1);
    return entry.session.close().catch(() => undefined);
  }

  /** Seconds until the key's least recently used session goes idle. */
  function untilIdle(keyDigest: string): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const entry of entries.values()) if (entry.keyDigest === keyDigest) oldest = Math.min(oldest, entry.lastSeen);
    return Number.isFinite(oldest) ? Math.max(1, Math.ceil((oldest + limits.idleMs - now()) / 1000)) : 1;
  }

  function refuse(keyDigest: string): Exclude<Admission<never>, { ok: true }> | undefined {
    const wait = opens.retryAfter(keyDigest);
    if (wait > 0)
      return {
        ok: false,
        status: 429,
        code: 'MCP_SESSIONS',
        retryAfterSeconds: wait,
        message: `too many MCP sessions opened with this key (${limits.opensPerMinute} a minute); try again in ${wait} s`,
      };
    if ((perKey.get(keyDigest) ?? 0) >= limits.perKey) {
      const idleMinutes = Math.round(limits.idleMs / 60_000);
      return {
        ok: false,
        status: 429,
        code: 'MCP_SESSIONS',
        retryAfterSeconds: untilIdle(keyDigest),
        message: `this key has ${limits.perKey} MCP sessions open, the most one key may have: end one (DELETE /mcp with its mcp-session-id) or let one sit idle for ${idleMinutes} minutes`,
      };
    }
    if (entries.size + pending >= limits.total)
      return { ok: false, status: 503, code: 'MCP_SESSIONS', message: 'too many MCP sessions, try again shortly' };
    return undefined;
  }

  return {
    /** A session id's session when it belongs to this key; an idle one is closed and not found. */
    find(id: string, keyDigest: string): S | undefined {
      const entry = entries.get(id);
      if (!entry || entry.keyDigest !== keyDigest) return undefined;
      if (now() - entry.lastSeen >= limits.idleMs) {
        void close(id);
        return undefined;
      }
      entry.lastSeen = now();
      return entry.session;
    },
    /** Room for a new session of this key (an `initialize`), counted toward its limits; synchronous. */
    admit(keyDigest: string): Admission<S> {
      const refused = refuse(keyDigest);
      opens.count(keyDigest);
      if (refused) return refused;
      pending += 1;
      adjust(keyDigest, 1);
      let settled = false;
      return {
        ok: true,
        opened(id, session) {
          if (settled) return;
          settled = true;
          pending -= 1;
          entries.set(id, { session, keyDigest, lastSeen: now() });
        },
        release() {
          if (settled) return;
          settled = true;
          pending -= 1;
          adjust(keyDigest, -1);
        },
      };
    },
    /** The transport closed itself (DELETE /mcp, or the client went away for good). */
    forget(id: string): void {
      const entry = entries.get(id);
      if (!entry) return;
      entries.delete(id);
      adjust(entry.keyDigest, -1);
    },
    /** Closes idle sessions and those whose key is no longer valid. */
    async sweep(): Promise<void> {
      const closing: Array<Promise<void>> = [];
      const byKey = new Map<string, string[]>();
      for (const [id, entry] of entries) {
        if (now() - entry.lastSeen >= limits.idleMs) closing.push(close(id));
        else byKey.set(entry.keyDigest, [...(byKey.get(entry.keyDigest) ?? []), id]);
      }
      for (const [keyDigest, ids] of byKey) {
        // A store that does not answer is no reason to end sessions.
        if (!(await options.keyValid(keyDigest).catch(() => true))) closing.push(...ids.map(close));
      }
      await Promise.all(closing);
    },
    sessions(): S[] {
      return [...entries.values()].map((entry) => entry.session);
    },
    async closeAll(): Promise<void> {
      await Promise.all([...entries.keys()].map(close));
    },
    get size(): number {
      return entries.size;
    },
  };
}

export type McpSessions<S extends Closable> = ReturnType<typeof createMcpSessions<S>>;
