/**
 * A deadline as an AbortSignal that lets go of everything once the work is done.
 *
 * `AbortSignal.timeout(ms)` keeps its timer (and the signal, and whatever listens to it) alive until it fires,
 * and `AbortSignal.any` registers the combined signal with its sources: with a fetch deadline of 20 s, every
 * fetch of the last 20 s stays in memory, three timers each under a burst of misses. `dispose()` clears the
 * timer and detaches from the caller's signal as soon as the work has ended.
 */
export interface Deadline {
  /** Aborted by the timer alone (callers tell a timeout from the caller's own cancellation by it). */
  deadline: AbortSignal;
  /** Aborted by the timer or by the caller's signal, whichever comes first. */
  signal: AbortSignal;
  dispose(): void;
}

export function startDeadline(ms: number, caller?: AbortSignal): Deadline {
  const timed = new AbortController();
  const timer = setTimeout(() => timed.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError')), ms);
  // Like AbortSignal.timeout: a pending deadline does not keep the process alive.
  timer.unref();
  if (!caller) return { deadline: timed.signal, signal: timed.signal, dispose: () => clearTimeout(timer) };

  const combined = new AbortController();
  const onCaller = () => combined.abort(caller.reason);
  if (caller.aborted) combined.abort(caller.reason);
  else caller.addEventListener('abort', onCaller, { once: true });
  timed.signal.addEventListener('abort', () => combined.abort(timed.signal.reason), { once: true });
  return {
    deadline: timed.signal,
    signal: combined.signal,
    dispose: () => {
      clearTimeout(timer);
      caller.removeEventListener('abort', onCaller);
    },
  };
}
