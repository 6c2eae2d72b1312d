/**
 * Job traffic's politeness per origin (docs/jobs.md, "Polite by default"): at most `concurrency` job items of
 * any job ask one origin at once, their starts at least `minDelayMs` apart, and an origin that answered 429 is
 * left alone by every job until its pause is over. Waiters are served in the order they came. This driver is
 * one process's (the embedded queue's daemon, `jobs run`); the Redis one (redis-origin-gate.ts) is shared by
 * every daemon and worker on that Redis.
 */
export interface OriginGate {
  /** Waits for the origin's turn; resolves with the release of the slot. Rejects with the signal's reason. */
  acquire(origin: string, signal?: AbortSignal): Promise<() => void>;
  /** The origin asked to be left alone: no job item starts there for `ms`. */
  pause(origin: string, ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface OriginGateOptions {
  concurrency: number;
  minDelayMs: number;
  now?: () => number;
}

interface Waiter {
  resolve: () => void;
}

interface OriginTurns {
  running: number;
  /** No start before this time (the minimum delay, or a 429's pause). */
  nextAt: number;
  waiting: Waiter[];
  timer?: NodeJS.Timeout;
}

/** Origins remembered at most: idle ones whose delay has passed are forgotten first. */
const MAX_IDLE_ORIGINS = 10_000;

export function createMemoryOriginGate(options: OriginGateOptions): OriginGate {
  const now = options.now ?? Date.now;
  const origins = new Map<string, OriginTurns>();

  const forgetIdle = () => {
    if (origins.size < MAX_IDLE_ORIGINS) return;
    for (const [origin, turns] of origins)
      if (turns.running === 0 && turns.waiting.length === 0 && turns.nextAt <= now()) origins.delete(origin);
  };

  const turnsOf = (origin: string): OriginTurns => {
    let turns = origins.get(origin);
    if (!turns) {
      forgetIdle();
      turns = { running: 0, nextAt: 0, waiting: [] };
      origins.set(origin, turns);
    }
    return turns;
  };

  /** Starts as many waiters as a free slot and the delay allow; else wakes up when the delay is over. */
  const pump = (turns: OriginTurns): void => {
    while (turns.waiting.length > 0 && turns.running < options.concurrency) {
      const wait = turns.nextAt - now();
      if (wait > 0) {
        if (!turns.timer)
          turns.timer = setTimeout(() => {
            turns.timer = undefined;
            pump(turns);
          }, wait);
        return;
      }
      const next = turns.waiting.shift()!;
      turns.running += 1;
      turns.nextAt = now() + options.minDelayMs;
      next.resolve();
    }
  };

  return {
    acquire(origin, signal) {
      signal?.throwIfAborted();
      const turns = turnsOf(origin);
      return new Promise<() => void>((resolve, reject) => {
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          turns.running -= 1;
          pump(turns);
        };
        const onAbort = () => {
          const index = turns.waiting.indexOf(waiter);
          if (index >= 0) turns.waiting.splice(index, 1);
          reject(signal!.reason as Error);
        };
        const waiter: Waiter = {
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(release);
          },
        };
        turns.waiting.push(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
        pump(turns);
      });
    },
    async pause(origin, ms) {
      const turns = turnsOf(origin);
      turns.nextAt = Math.max(turns.nextAt, now() + ms);
      // A timer set for the old, earlier time finds the new one and waits again.
    },
    async close() {
      for (const turns of origins.values()) clearTimeout(turns.timer);
      origins.clear();
    },
  };
}
