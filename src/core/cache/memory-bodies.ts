import { gunzipSync, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';

/**
 * How the in-memory cache keeps response bodies: gzipped, with the bytes of the bodies read lately kept beside
 * them. JSON bodies shrink 3–10× at gzip's fastest level, so the memory budget holds that many more entries
 * (fewer answers read back from SQLite) or the same entries in a fraction of the memory; a hit on a hot entry
 * costs nothing more, and a cold one sent as JSON one gunzip (~15 µs for a 10 KB body) that makes it hot again
 * (sent gzipped, it is not unpacked at all).
 *
 * A new entry's bytes are only fresh: they answer the request that made the entry (and any that joined it)
 * from a small part of their own, and become hot only when the entry is read again after leaving it. A burst
 * of fills is no sign that its entries will be read again; made hot, its last 8 MB of bodies stayed in memory
 * beside their gzip (the memory figure's fills, docs/performance.md "Memory").
 *
 * One eighth of the budget is for the hot bytes, the rest for the stored (packed) bodies. A body is packed when
 * it is at least 1 KB (below that, gzip's header is a large share) and at most 256 KB (packing runs on the event
 * loop at the fill: ~50 µs for 10 KB, too long for megabytes; such bodies are kept as they are), and only when
 * it shrinks by a tenth or more.
 */
export interface MemoryEntry {
  /** The body, gzipped when `packed`. Counts against the budget's stored part. */
  readonly stored: Buffer;
  readonly packed: boolean;
  /** The body's bytes: always for an unpacked entry; for a packed one while it is hot. */
  raw: Buffer | undefined;
  readonly fetchedAt: number;
  /** Set only on answers that were not stored (Uncacheable). */
  readonly note?: string;
  /** A paginated answer: the pages it holds (credits are per page, docs/pagination.md), kept with the entry. */
  readonly pages?: number;
  /** A paginated answer cut short (`time`, `error`); such answers are never stored. */
  readonly partial?: string;
}

/** What an entry carries beside its body. */
export type EntryMeta = Pick<MemoryEntry, 'note' | 'pages' | 'partial'>;

const PACK_MIN_BYTES = 1024;
const PACK_MAX_BYTES = 256 * 1024;
/** gzip's fastest level: a 10 KB JSON body packs in ~50 µs, to a third or less. */
const PACKING = { level: 1 } as const;
/** The share of the budget that keeps the bytes of packed bodies read lately. */
const HOT_SHARE = 1 / 8;
/**
 * Bytes of new entries kept for the requests answered with them: a miss, the requests that joined it, and a
 * hit that follows soon after. Taken from the hot share; at most 1 MB (about a hundred 10 KB bodies).
 */
const FRESH_SHARE_OF_HOT = 1 / 8;
const FRESH_MAX_BYTES = 1024 * 1024;

/**
 * zlib's sync calls return a view of their 16 KB output chunk: a 1 KB gzip kept as it came would hold 16 KB
 * (10,000 entries held 160 MB). A body kept for long gets a buffer of its own size.
 */
function ownBuffer(view: Buffer): Buffer {
  if (view.byteOffset === 0 && view.buffer.byteLength === view.length) return view;
  const own = Buffer.allocUnsafeSlow(view.length);
  view.copy(own);
  return own;
}

export interface MemoryBodies {
  /** A new entry; its bytes start fresh (the requests answered as it is made take them without unpacking). */
  make(bytes: Buffer, fetchedAt: number, meta?: EntryMeta): MemoryEntry;
  /** An entry without packing or a place in the hot part (an answer that is not kept). */
  unkept(bytes: Buffer, fetchedAt: number, meta?: EntryMeta): MemoryEntry;
  /** The body's bytes, unpacking (and warming) a cold entry. */
  bytesOf(entry: MemoryEntry): Buffer;
  /** The entry left the cache: its hot bytes go too. */
  forget(entry: MemoryEntry): void;
  /** Bytes the stored part may hold (the budget minus the hot part). */
  readonly storedBudget: number;
  /** Bytes kept as they are now, in the hot and the fresh part (tests, metrics). */
  readonly hotBytes: number;
  /** Of those, the bytes of new entries not read since (the fresh part). */
  readonly freshBytes: number;
  clear(): void;
}

/** Only the fields that are set: most entries carry none, and every entry has the same few keys. */
function metaOf(meta: EntryMeta | undefined): EntryMeta {
  if (meta === undefined) return {};
  return {
    ...(meta.note !== undefined ? { note: meta.note } : {}),
    ...(meta.pages !== undefined ? { pages: meta.pages } : {}),
    ...(meta.partial !== undefined ? { partial: meta.partial } : {}),
  };
}

export function createMemoryBodies(budgetBytes: number): MemoryBodies {
  const hotBudget = Math.max(1, Math.floor(budgetBytes * HOT_SHARE));
  const freshBudget = Math.max(1, Math.min(FRESH_MAX_BYTES, Math.floor(hotBudget * FRESH_SHARE_OF_HOT)));
  // A packed entry pushed out of the hot or the fresh part keeps only its stored bytes.
  const coolDown = (raw: Buffer, entry: MemoryEntry) => {
    if (entry.packed && entry.raw === raw) entry.raw = undefined;
  };
  const hot = new LRUCache<MemoryEntry, Buffer>({
    maxSize: hotBudget - freshBudget || 1,
    sizeCalculation: (raw) => Math.max(1, raw.length),
    dispose: coolDown,
  });
  const fresh = new LRUCache<MemoryEntry, Buffer>({
    maxSize: freshBudget,
    sizeCalculation: (raw) => Math.max(1, raw.length),
    dispose: coolDown,
  });

  const plain = (bytes: Buffer, fetchedAt: number, meta: EntryMeta | undefined): MemoryEntry => ({
    stored: bytes,
    packed: false,
    raw: bytes,
    fetchedAt,
    ...metaOf(meta),
  });

  const warm = (entry: MemoryEntry, raw: Buffer): Buffer => {
    entry.raw = raw;
    hot.set(entry, raw);
    // Larger than the whole hot part: served, not kept.
    if (!hot.has(entry)) entry.raw = undefined;
    return raw;
  };

  return {
    make(bytes, fetchedAt, meta) {
      if (bytes.length >= PACK_MIN_BYTES && bytes.length <= PACK_MAX_BYTES) {
        const packed = ownBuffer(gzipSync(bytes, PACKING));
        if (packed.length <= bytes.length * 0.9) {
          const entry: MemoryEntry = { stored: packed, packed: true, raw: bytes, fetchedAt, ...metaOf(meta) };
          fresh.set(entry, bytes);
          // Larger than the whole fresh part: answered from the bytes the caller holds, not kept.
          if (!fresh.has(entry)) entry.raw = undefined;
          return entry;
        }
      }
      return plain(bytes, fetchedAt, meta);
    },
    unkept: plain,
    bytesOf(entry) {
      return entry.raw ?? warm(entry, ownBuffer(gunzipSync(entry.stored)));
    },
    forget(entry) {
      if (!entry.packed) return;
      hot.delete(entry);
      fresh.delete(entry);
    },
    storedBudget: Math.max(1, budgetBytes - hotBudget),
    get hotBytes() {
      return hot.calculatedSize + fresh.calculatedSize;
    },
    get freshBytes() {
      return fresh.calculatedSize;
    },
    clear() {
      hot.clear();
      fresh.clear();
    },
  };
}
