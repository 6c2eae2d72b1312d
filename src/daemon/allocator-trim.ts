import { loadNativeAddon } from '../core/shared/native-addon.js';

/**
 * Gives memory the daemon freed back to the system. glibc keeps freed memory for reuse and returns only what
 * is free at the top of a heap; after a burst of misses (page bytes, socket reads, compressed bodies made and
 * dropped beside cached bodies that stay) it held 60–80 MB free in the middle of its heaps, counted in the
 * daemon's RSS until the process ends (docs/performance.md, "Memory"). `malloc_trim` hands every whole free
 * page back. Node has no binding for it: native/malloc-trim is one, built at install where it can be (Linux
 * with a compiler); elsewhere the daemon runs without it.
 */
export interface Allocator {
  /** Bytes the allocator holds free, in all its heaps (mallinfo2). */
  freeBytes(): number;
  /** Returns whole free pages to the system; true when some were released. */
  trim(): boolean;
}

/** The addon (native/malloc-trim); undefined where it was not built. */
export function loadAllocator(): Allocator | undefined {
  return loadNativeAddon<Allocator>('malloc-trim', 'malloc_trim');
}

export interface TrimmerOptions {
  /** How often the free bytes are looked at. */
  intervalMs?: number;
  /** Trim once the free bytes grew by this much since the last trim. */
  minGrowthBytes?: number;
}

/**
 * One trimmer per process, shared by every daemon app in it (tests run several): started by the first,
 * stopped with the last. Looking costs a few microseconds a second; a trim a few milliseconds, and runs only
 * after the free bytes grew by `minGrowthBytes` (after trimming, the free chunks stay free, only their pages go).
 */
const trimmer = {
  users: 0,
  timer: undefined as NodeJS.Timeout | undefined,
  allocator: undefined as Allocator | undefined,
  loaded: false,
  trims: 0,
  /** Free bytes right after the last trim (or the lowest seen since): growth is measured from here. */
  floor: 0,
};

export function startAllocatorTrimmer(options: TrimmerOptions = {}): { stop(): void } {
  if (!trimmer.loaded) {
    trimmer.allocator = loadAllocator();
    trimmer.loaded = true;
  }
  const allocator = trimmer.allocator;
  let stopped = false;
  trimmer.users += 1;
  if (allocator && trimmer.timer === undefined) {
    // 2 MB: a trim costs ~0.4 ms plus ~0.1 ms per MB it gives back, so even one a second is cheap; at 8 MB
    // the memory figure kept up to 8 MB of free pages a burst had left below the threshold.
    const minGrowth = options.minGrowthBytes ?? 2 * 1024 * 1024;
    trimmer.floor = allocator.freeBytes();
    trimmer.timer = setInterval(() => {
      const free = allocator.freeBytes();
      if (free - trimmer.floor < minGrowth) {
        trimmer.floor = Math.min(trimmer.floor, free);
        return;
      }
      allocator.trim();
      trimmer.trims += 1;
      trimmer.floor = allocator.freeBytes();
    }, options.intervalMs ?? 1_000);
    trimmer.timer.unref();
  }
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      trimmer.users -= 1;
      if (trimmer.users === 0 && trimmer.timer !== undefined) {
        clearInterval(trimmer.timer);
        trimmer.timer = undefined;
      }
    },
  };
}

/** What /metrics says of it: whether the addon is there, and how many trims ran in this process. */
export function allocatorTrims(): { available: boolean; trims: number } {
  return { available: trimmer.allocator !== undefined, trims: trimmer.trims };
}
