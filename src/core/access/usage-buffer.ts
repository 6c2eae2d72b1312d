import { HOUR_MS, type StateStore, type UsageEvent } from '../state/index.js';

/**
 * Usage counters are buffered and handed to the store in bursts: every store change is a journal write, and
 * one per request would halve the hit path. Balances are never buffered (the debit is durable before the
 * answer); a crash can lose at most the last `flushMs` of usage counters.
 *
 * Requests are summed as they come, per hour, endpoint, key and outcome, so a burst of 20,000 hits is a
 * handful of store events rather than 20,000 objects made, kept and applied one by one (a hit adds to a number
 * it finds through three map lookups). Events with model tokens are kept as they are.
 */
export interface UsageBuffer {
  /** One request: summed with alike requests of the same hour. `atMs` is the request's time (ms since epoch). */
  add(apiId: string, keyId: string | null, account: string, outcome: UsageEvent['outcome'], milliCredits: number, atMs: number): void;
  /** An event as it is (one with model tokens). */
  record(event: UsageEvent): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Past this many distinct sums or events, the buffer flushes at once. */
const MAX_PENDING = 10_000;

/** A running sum: the event handed to the store at the flush, its count and credits growing until then. */
type Sum = UsageEvent & { count: number };

export function createUsageBuffer(store: StateStore, flushMs: number): UsageBuffer {
  // apiId → key (or, for keyless requests, NUL + account) → outcome → running sum. Maps: the ids came from outside.
  let sums = new Map<string, Map<string, Map<string, Sum>>>();
  let events: UsageEvent[] = [];
  let pending = 0;
  let hour = -1;
  let timer: NodeJS.Timeout | undefined;

  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const summed = sums;
    const single = events;
    sums = new Map();
    events = [];
    pending = 0;
    const batch: UsageEvent[] = [];
    for (const byKey of summed.values()) for (const byOutcome of byKey.values()) for (const sum of byOutcome.values()) batch.push(sum);
    batch.push(...single);
    // Each call applies synchronously inside the store, so the whole burst lands in one write.
    await Promise.all(batch.map((event) => store.recordUsage(event).catch(() => undefined)));
  };

  const scheduled = (): void => {
    pending += 1;
    if (pending >= MAX_PENDING) void flush();
    else if (!timer) {
      timer = setTimeout(() => void flush(), flushMs);
      timer.unref();
    }
  };

  return {
    add(apiId, keyId, account, outcome, milliCredits, atMs) {
      // A new hour starts new rows in the store: what the old hour summed goes first.
      const thisHour = Math.floor(atMs / HOUR_MS);
      if (thisHour !== hour) {
        if (pending > 0) void flush();
        hour = thisHour;
      }
      let byKey = sums.get(apiId);
      if (!byKey) sums.set(apiId, (byKey = new Map()));
      const who = keyId ?? `\u0000${account}`;
      let byOutcome = byKey.get(who);
      if (!byOutcome) byKey.set(who, (byOutcome = new Map()));
      const sum = byOutcome.get(outcome);
      if (sum) {
        sum.count += 1;
        sum.milliCredits += milliCredits;
        return;
      }
      byOutcome.set(outcome, { apiId, keyId, account, milliCredits, outcome, at: new Date(atMs), count: 1 });
      scheduled();
    },
    record(event) {
      events.push(event);
      scheduled();
    },
    flush,
    close: flush,
  };
}
