import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { jsonText } from '../shared/index.js';
import { keyvStore, type DurableStore, type KeyvEntry, type StoredAnswer } from './durable-store.js';
import { createMemoryBodies, type MemoryBodies, type MemoryEntry } from './memory-bodies.js';
import { openSqliteStore } from './sqlite-store.js';
import type Keyv from 'keyv';

/**
 * The retrieval cache: stale-while-revalidate over two layers (docs/performance.md has its figures).
 *
 * - An in-memory LRU of pre-serialised response bodies (gzipped, the ones read lately also as they are:
 *   memory-bodies.ts) answers hits: measured at 0.84 of a bare Fastify route, against 0.28 when every hit
 *   read keyv+SQLite.
 * - A durable store (durable-store.ts: the cache's own SQLite file, or Redis through keyv) keeps entries
 *   across restarts and is the source of truth for stale entries. An entry there lives `keepMs` (read past
 *   it, it is absent); freshness is decided here from `fetchedAt`.
 *
 * Only successful extractions reach the cache: `load` throws on errors and empty results, and a throw is
 * never stored. A cache error is a miss, never a failed request.
 */
export type CacheState = 'HIT' | 'STALE' | 'MISS' | 'BYPASS';

/**
 * What a loader returns for data that must be served but not kept (a degraded extraction): the caller gets
 * it, the cache does not store it, and a stale entry already there stays.
 */
export class Uncacheable {
  constructor(
    readonly data: unknown,
    readonly note: string,
  ) {}
}

/**
 * What a loader returns for a paginated answer (docs/pagination.md): its value (data, or an Uncacheable) and
 * the pages it holds, kept with the entry so that a hit costs what the miss did; `partial` says why it was cut
 * short (such answers are Uncacheable).
 */
export class Paged {
  constructor(
    readonly value: unknown,
    readonly pages: number,
    readonly partial?: string,
  ) {}
}

export interface CacheAnswer {
  /**
   * The whole response body, `{"data":…,"errors":null}`, serialised once when the entry was made, as the
   * UTF-8 bytes the wire gets. Sent as a Buffer, the body is written beside the headers as it is; a string
   * would be joined to the headers and copied for every answer (a third of a hit's allocations).
   */
  readonly bytes: Buffer;
  /** The same body gzipped, when memory keeps it so: sent as it is to a client that accepts gzip. */
  readonly gzipped: Buffer | undefined;
  /** The same body as text, made when asked for (MCP, monitors); the wire never asks. */
  readonly body: string;
  state: CacheState;
  /** The note of an Uncacheable answer (`degraded`). */
  note?: string;
  /** Pages the answer holds (1 unless paginated). */
  readonly pages: number;
  /** A paginated answer cut short: why (`time`, `error`). */
  readonly partial?: string | undefined;
  ageSeconds: number;
  fetchedAt: number;
}

/**
 * A CacheAnswer as a class: its getters live on the prototype, not in closures made per answer. The bytes are
 * taken from the entry when asked for, so an answer sent gzipped never unpacks a cold entry.
 */
class Answer implements CacheAnswer {
  readonly fetchedAt: number;
  readonly note: string | undefined;

  constructor(
    private readonly entry: MemoryEntry,
    private readonly bodies: MemoryBodies,
    readonly state: CacheState,
    readonly ageSeconds: number,
  ) {
    this.fetchedAt = entry.fetchedAt;
    this.note = entry.note;
  }

  get bytes(): Buffer {
    return this.bodies.bytesOf(this.entry);
  }

  get gzipped(): Buffer | undefined {
    return this.entry.packed ? this.entry.stored : undefined;
  }

  get body(): string {
    return this.bytes.toString('utf8');
  }

  get pages(): number {
    return this.entry.pages ?? 1;
  }

  get partial(): string | undefined {
    return this.entry.partial;
  }
}

export interface ResponseCacheOptions {
  /** SQLite file; absent = memory only (the `run` command, some tests). */
  sqlitePath?: string;
  /** An already-built keyv store (the Redis driver passes one). Takes precedence over sqlitePath. */
  keyv?: Keyv<KeyvEntry>;
  freshMs: number;
  keepMs: number;
  memoryEntries: number;
  /** Bound on the bodies held in memory (bytes); entries past it are read back from the store. */
  memoryBytes?: number;
  now?: () => number;
  /** Told about refresh failures and cache-store errors, which never fail a request. */
  onError?: (error: unknown, context: { key: string; phase: 'read' | 'write' | 'refresh' | 'purge' }) => void;
  /**
   * Daemons sharing one store (Redis): one refresh per key at a time across all of them. A background
   * refresh runs only when this lock was obtained (undefined = another daemon holds it), and the returned
   * function releases it afterwards.
   */
  refreshLock?: (key: string) => Promise<(() => Promise<void>) | undefined>;
  /**
   * With a shared lock: how long a cold miss waits for the daemon holding the key's lock to store its answer
   * before it fetches on its own (default 25 s; a dead holder's lock expires sooner).
   */
  missWaitMs?: number;
}

export interface ResponseCache {
  get(key: string, load: () => Promise<unknown>, options: { caching: boolean }): Promise<CacheAnswer>;
  /**
   * Loads now whatever the cache holds (a monitor's scheduled run), storing the result as a miss would;
   * joins a load of the same key already running. With caching off, only loads.
   */
  refresh(key: string, load: () => Promise<unknown>, options: { caching: boolean }): Promise<CacheAnswer>;
  /**
   * The answer memory holds for `key` (HIT or STALE), synchronously, or undefined. Unlike `get`, a STALE
   * answer starts no refresh: the caller decides (after charging for it) with `refreshLater`.
   */
  fromMemory(key: string): CacheAnswer | undefined;
  /** Refreshes `key` in the background, unless a load of it is already running (as a STALE `get` does). */
  refreshLater(key: string, load: () => Promise<unknown>): void;
  /** Resolves when every background refresh started so far has settled (tests, shutdown). */
  idle(): Promise<void>;
  purgeExpired(): Promise<number>;
  readonly memorySize: number;
  close(): Promise<void>;
}

/** The cache key: the revision is part of it, so an edited config never serves data of its old shape. */
export function cacheKey(apiId: string, revision: number, url: string): string {
  return `${apiId}:${revision}:${createHash('sha256').update(url).digest('base64url').slice(0, 32)}`;
}

/** The response body; data that came from an extraction thread brings its JSON text along (json-text.ts). */
export function envelopeBody(data: unknown): string {
  return `{"data":${jsonText(data)},"errors":null}`;
}

export async function createResponseCache(options: ResponseCacheOptions): Promise<ResponseCache> {
  const now = options.now ?? Date.now;
  const report = options.onError ?? (() => undefined);
  // Bounded by count and by bytes: 10,000 entries of a 10 KB body would otherwise hold 100 MB. Bodies are
  // kept gzipped, the ones read lately also as they are (memory-bodies.ts); both count against the budget.
  const bodies = createMemoryBodies(options.memoryBytes ?? 64 * 1024 * 1024);
  const memory = new LRUCache<string, MemoryEntry>({
    max: options.memoryEntries,
    maxSize: bodies.storedBudget,
    sizeCalculation: (entry) => entry.stored.length + 64,
    dispose: (entry) => bodies.forget(entry),
  });
  const toMemoryEntry = (stored: StoredAnswer): MemoryEntry =>
    bodies.make(stored.bytes, stored.fetchedAt, stored.pages === undefined ? undefined : { pages: stored.pages });
  const inflight = new Map<string, Promise<MemoryEntry>>();
  const refreshes = new Set<Promise<unknown>>();
  const store = await openDurableStore(options, now, report);

  async function readStore(key: string): Promise<MemoryEntry | undefined> {
    if (!store) return undefined;
    try {
      const stored = await store.get(key);
      return stored ? toMemoryEntry(stored) : undefined;
    } catch (error) {
      report(error, { key, phase: 'read' });
      return undefined;
    }
  }

  /** One load per key at a time: concurrent misses and refreshes share it. */
  function loadOnce(key: string, load: () => Promise<unknown>): Promise<MemoryEntry> {
    const running = inflight.get(key);
    if (running) return running;
    const promise = loadAndStore(key, load).finally(() => inflight.delete(key));
    inflight.set(key, promise);
    return promise;
  }

  /** An answer that is not kept (caching off, or an Uncacheable load). */
  const unstored = (result: unknown): MemoryEntry => {
    const { value: loaded, pages, partial } = unpaged(result);
    const meta = { ...(pages !== undefined ? { pages } : {}), ...(partial !== undefined ? { partial } : {}) };
    return loaded instanceof Uncacheable
      ? bodies.unkept(Buffer.from(envelopeBody(loaded.data), 'utf8'), now(), { ...meta, note: loaded.note })
      : bodies.unkept(Buffer.from(envelopeBody(loaded), 'utf8'), now(), meta);
  };

  async function loadAndStore(key: string, load: () => Promise<unknown>): Promise<MemoryEntry> {
    const result = await load();
    const { value: loaded, pages } = unpaged(result);
    if (loaded instanceof Uncacheable) return unstored(result);
    const stored: StoredAnswer = {
      bytes: Buffer.from(envelopeBody(loaded), 'utf8'),
      fetchedAt: now(),
      ...(pages !== undefined && pages > 1 ? { pages } : {}),
    };
    const entry = toMemoryEntry(stored);
    memory.set(key, entry);
    if (store) {
      try {
        await store.set(key, stored, options.keepMs);
      } catch (error) {
        report(error, { key, phase: 'write' });
      }
    }
    return entry;
  }

  function refreshInBackground(key: string, load: () => Promise<unknown>): void {
    if (inflight.has(key) || locking.has(key)) return;
    const work = options.refreshLock ? lockedRefresh(key, load, options.refreshLock) : loadOnce(key, load);
    // A failed refresh keeps the old entry: it is reported, and the next stale hit tries again.
    const refresh = work.catch((error: unknown) => report(error, { key, phase: 'refresh' }));
    refreshes.add(refresh);
    void refresh.finally(() => refreshes.delete(refresh));
  }

  /** Keys whose cross-daemon refresh lock is being asked for: one request per key, not one per stale hit. */
  const locking = new Set<string>();

  /**
   * Refresh under the shared lock. The holder re-reads the store first: another daemon may have refreshed
   * between this daemon's stale read and the lock, and then its entry is taken instead of a second fetch.
   * A lock that cannot be asked for (store down) does not stop the refresh: it degrades to one per daemon.
   */
  async function lockedRefresh(
    key: string,
    load: () => Promise<unknown>,
    lock: NonNullable<ResponseCacheOptions['refreshLock']>,
  ): Promise<void> {
    locking.add(key);
    try {
      const release = await lock(key).catch((error: unknown) => {
        report(error, { key, phase: 'refresh' });
        return async () => undefined;
      });
      if (!release) return;
      try {
        const current = await readStore(key);
        if (current && now() - current.fetchedAt < options.freshMs) memory.set(key, current);
        else await loadOnce(key, load);
      } finally {
        await release().catch((error: unknown) => report(error, { key, phase: 'refresh' }));
      }
    } finally {
      locking.delete(key);
    }
  }

  /**
   * A cold miss among daemons sharing the store: the one that takes the key's lock fetches (after looking
   * once more: another may have just stored it); the others wait for its entry to appear in the store and
   * answer from it. A lock whose holder died expires (its TTL), and the next waiter takes it and fetches. One
   * source fetch per miss across daemons, as one per daemon before. In-process callers share one of these.
   */
  function sharedMiss(
    key: string,
    load: () => Promise<unknown>,
    lock: NonNullable<ResponseCacheOptions['refreshLock']>,
  ): Promise<MemoryEntry> {
    const running = inflight.get(key);
    if (running) return running;
    const promise = (async (): Promise<MemoryEntry> => {
      const giveUpAt = now() + (options.missWaitMs ?? 25_000);
      const fresh = (entry: MemoryEntry | undefined): entry is MemoryEntry =>
        entry !== undefined && now() - entry.fetchedAt < options.freshMs;
      for (let pause = 25; ; pause = Math.min(pause * 2, 200)) {
        // A lock that cannot be asked for (store down) does not stop the request: it fetches on its own.
        const release = await lock(key).catch((error: unknown) => {
          report(error, { key, phase: 'read' });
          return async () => undefined;
        });
        if (release) {
          try {
            const stored = await readStore(key);
            if (fresh(stored)) {
              memory.set(key, stored);
              return stored;
            }
            return await loadAndStore(key, load);
          } finally {
            await release().catch((error: unknown) => report(error, { key, phase: 'write' }));
          }
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
        const stored = await readStore(key);
        if (fresh(stored)) {
          memory.set(key, stored);
          return stored;
        }
        if (now() >= giveUpAt) return loadAndStore(key, load);
      }
    })().finally(() => inflight.delete(key));
    inflight.set(key, promise);
    return promise;
  }

  const answer = (entry: MemoryEntry, state: CacheState, at = now()): CacheAnswer =>
    new Answer(entry, bodies, state, Math.max(0, Math.floor((at - entry.fetchedAt) / 1000)));

  const cache: ResponseCache = {
    async get(key, load, { caching }) {
      if (!caching) {
        return answer(unstored(await load()), 'BYPASS');
      }
      let entry = memory.get(key);
      if (!entry) {
        entry = await readStore(key);
        if (entry) memory.set(key, entry);
      }
      if (entry) {
        const age = now() - entry.fetchedAt;
        if (age < options.freshMs) return answer(entry, 'HIT');
        if (age < options.keepMs) {
          refreshInBackground(key, load);
          return answer(entry, 'STALE');
        }
        memory.delete(key);
      }
      return answer(await (options.refreshLock ? sharedMiss(key, load, options.refreshLock) : loadOnce(key, load)), 'MISS');
    },

    async refresh(key, load, { caching }) {
      if (!caching) return cache.get(key, load, { caching });
      const entry = await loadOnce(key, load);
      return answer(entry, 'MISS');
    },

    fromMemory(key) {
      const entry = memory.get(key);
      if (entry === undefined) return undefined;
      const at = now();
      const age = at - entry.fetchedAt;
      if (age < options.freshMs) return answer(entry, 'HIT', at);
      return age < options.keepMs ? answer(entry, 'STALE', at) : undefined;
    },

    refreshLater(key, load) {
      refreshInBackground(key, load);
    },

    async idle() {
      while (refreshes.size > 0) await Promise.allSettled([...refreshes]);
    },

    async purgeExpired() {
      let purged = 0;
      memory.forEach((entry, key) => {
        if (now() - entry.fetchedAt >= options.keepMs) {
          memory.delete(key);
          purged += 1;
        }
      });
      if (store) {
        try {
          purged += await store.purgeExpired();
        } catch (error) {
          report(error, { key: '', phase: 'purge' });
        }
      }
      return purged;
    },

    get memorySize() {
      return memory.size;
    },

    async close() {
      await Promise.allSettled([...refreshes]);
      memory.clear();
      bodies.clear();
      await store?.close();
    },
  };
  return cache;
}

/** A loader's result without its Paged wrapper, if it had one. */
function unpaged(result: unknown): { value: unknown; pages?: number; partial?: string } {
  if (!(result instanceof Paged)) return { value: result };
  return { value: result.value, pages: result.pages, ...(result.partial !== undefined ? { partial: result.partial } : {}) };
}

/** The durable layer: the keyv store given (Redis), else the cache's own SQLite file, else none (memory only). */
async function openDurableStore(
  options: ResponseCacheOptions,
  now: () => number,
  report: NonNullable<ResponseCacheOptions['onError']>,
): Promise<DurableStore | undefined> {
  if (options.keyv) return keyvStore(options.keyv, (error) => report(error, { key: '', phase: 'write' }));
  return options.sqlitePath ? openSqliteStore(options.sqlitePath, now) : undefined;
}
