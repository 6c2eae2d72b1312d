import type { StateStore, UsageEvent } from './storage/types.js';

/**
 * Usage counters are buffered and handed to the store in bursts: every store change is a durable write of the
 * whole state file, and one per request would halve the hit path. Balances are never buffered (the debit is
 * durable before the answer); a crash can lose at most the last `usageFlushMs` of usage counters.
 */
export function createUsageBuffer(store: StateStore, flushMs: number): { record(event: UsageEvent): void; flush(): Promise<void>; close(): Promise<void> } {
  let pending: UsageEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const events = pending;
    pending = [];
    // Each call applies synchronously inside the store, so the whole burst lands in one write.
    await Promise.all(events.map((event) => store.recordUsage(event).catch(() => undefined)));
  };
  return {
    record(event) {
      pending.push(event);
      if (pending.length >= 10_000) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), flushMs);
        timer.unref();
      }
    },
    flush,
    close: flush,
  };
}
