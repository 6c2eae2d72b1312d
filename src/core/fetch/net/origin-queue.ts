import { PagejsonError } from '../../shared/index.js';

/**
 * "Requests are processed in order": fetches to one origin run through a FIFO queue with at most
 * `concurrency` in flight, so a burst of API calls never hammers a source site. Origins do not wait on
 * each other. A waiting task whose signal aborts leaves the queue at once.
 */
export interface OriginQueue {
  run<T>(origin: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Tasks running and waiting per origin; origins with neither are forgotten. */
  stats(): Map<string, { running: number; waiting: number }>;
}

interface Waiter {
  start: () => void;
  cancel: () => void;
}

interface OriginState {
  running: number;
  waiting: Waiter[];
}

export function createOriginQueue(concurrency: number): OriginQueue {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
  const origins = new Map<string, OriginState>();

  function release(origin: string, state: OriginState): void {
    const next = state.waiting.shift();
    if (next) {
      // Hand the slot straight to the next waiter: `running` stays the same, so no newcomer can jump in.
      next.start();
      return;
    }
    state.running -= 1;
    if (state.running === 0) origins.delete(origin);
  }

  async function run<T>(origin: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    let state = origins.get(origin);
    if (!state) {
      state = { running: 0, waiting: [] };
      origins.set(origin, state);
    }
    const current = state;
    if (current.running < concurrency) {
      current.running += 1;
    } else {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => waiter.cancel();
        const waiter: Waiter = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          cancel: () => {
            const index = current.waiting.indexOf(waiter);
            if (index >= 0) current.waiting.splice(index, 1);
            if (current.running === 0 && current.waiting.length === 0) origins.delete(origin);
            reject(abortedWhileQueued(signal));
          },
        };
        current.waiting.push(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
    try {
      return await task();
    } finally {
      release(origin, current);
    }
  }

  return {
    run,
    stats: () => new Map([...origins].map(([origin, s]) => [origin, { running: s.running, waiting: s.waiting.length }])),
  };
}

function abortedWhileQueued(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.name !== 'TimeoutError') return reason;
  return new PagejsonError('FETCH_FAILED', 'aborted while waiting for the origin queue');
}
