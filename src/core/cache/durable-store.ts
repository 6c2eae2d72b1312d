import type Keyv from 'keyv';

/**
 * The response cache's durable layer, behind the in-memory one: entries outlive the process there, and it is
 * the source of truth for stale entries. Two kinds: the cache's own SQLite file (sqlite-store.ts) and, when
 * daemons share Redis, keyv over `@keyv/redis` (redis-cache.ts, docs/redis.md).
 */
export interface StoredAnswer {
  /** The whole response body as the wire gets it (UTF-8). */
  bytes: Buffer;
  fetchedAt: number;
  /** A paginated answer's pages (docs/pagination.md); absent for one page. */
  pages?: number;
}

export interface DurableStore {
  /** The entry, or undefined when there is none or it is past its time. */
  get(key: string): Promise<StoredAnswer | undefined>;
  set(key: string, answer: StoredAnswer, ttlMs: number): Promise<void>;
  /** Deletes the entries past their time and says how many; a store that expires its own (Redis) deletes none. */
  purgeExpired(): Promise<number>;
  close(): Promise<void>;
}

/** An entry as keyv keeps it in Redis: JSON (docs/redis.md, "Keys in Redis"). */
export interface KeyvEntry {
  body: string;
  fetchedAt: number;
  pages?: number;
}

/** A page count worth keeping: a whole number above one (one page is the default, and a store's text is not trusted). */
export function pagesOf(pages: unknown): { pages?: number } {
  return typeof pages === 'number' && Number.isInteger(pages) && pages > 1 && pages <= 1_000 ? { pages } : {};
}

/** keyv as the durable layer. keyv deletes an entry past its TTL on read; Redis expires the keys itself. */
export function keyvStore(keyv: Keyv<KeyvEntry>, onError: (error: unknown) => void): DurableStore {
  keyv.on('error', onError);
  return {
    async get(key) {
      const stored = await keyv.get(key);
      return stored ? { bytes: Buffer.from(stored.body, 'utf8'), fetchedAt: stored.fetchedAt, ...pagesOf(stored.pages) } : undefined;
    },
    async set(key, answer, ttlMs) {
      await keyv.set(key, { body: answer.bytes.toString('utf8'), fetchedAt: answer.fetchedAt, ...pagesOf(answer.pages) }, ttlMs);
    },
    purgeExpired: async () => 0,
    close: () => keyv.disconnect(),
  };
}
