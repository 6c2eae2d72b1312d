import { LRUCache } from 'lru-cache';

/**
 * Failed retrievals per key in the current minute. A caller that keeps asking for a page that fails (a hostile
 * page, a selector past its budget) spends the daemon's work but no credits (5xx are refunded): this is what
 * it spends instead. Bounded: at most 10,000 keys are tracked, the least recently seen go first.
 */
export function createFailureRate(perMinute: number, now: () => number) {
  const windows = new LRUCache<string, { start: number; count: number }>({ max: 10_000 });
  return {
    /** Seconds until the key may cause failures again, or 0 when it may now. */
    retryAfter(keyId: string): number {
      const window = windows.get(keyId);
      if (!window || now() - window.start >= 60_000 || window.count < perMinute) return 0;
      return Math.max(1, Math.ceil((window.start + 60_000 - now()) / 1000));
    },
    count(keyId: string): void {
      const window = windows.get(keyId);
      if (!window || now() - window.start >= 60_000) windows.set(keyId, { start: now(), count: 1 });
      else window.count += 1;
    },
  };
}
