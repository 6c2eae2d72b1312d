import { getEventListeners, setMaxListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startDeadline } from '../../src/core/fetch/net/deadline.js';

/** The deadline's timer runs on vitest's fake clock: its time is up exactly when the clock says so. */
describe('startDeadline', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts both signals with a TimeoutError when the time is up', () => {
    const { deadline, signal } = startDeadline(20);
    vi.advanceTimersByTime(19);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.aborted).toBe(true);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it("follows the caller's cancellation without counting it as a timeout", async () => {
    const caller = new AbortController();
    const { deadline, signal, dispose } = startDeadline(10_000, caller.signal);
    caller.abort(new Error('client went away'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('client went away');
    expect(deadline.aborted).toBe(false);
    dispose();
  });

  it('is aborted at once for a caller that already gave up', () => {
    const caller = new AbortController();
    caller.abort(new Error('gone'));
    expect(startDeadline(10_000, caller.signal).signal.aborted).toBe(true);
  });

  it('lets go of its timer and of the caller once disposed: nothing fires later, nothing stays attached', () => {
    const caller = new AbortController();
    // Fifty deadlines on one caller on purpose: Node's leak warning (at ten) would be noise in the run's output.
    setMaxListeners(50, caller.signal);
    const handles = Array.from({ length: 50 }, () => startDeadline(20, caller.signal));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(50);
    for (const handle of handles) handle.dispose();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60);
    // AbortSignal.timeout would have fired here (and kept each signal alive until then).
    expect(handles.some((handle) => handle.deadline.aborted || handle.signal.aborted)).toBe(false);
  });
});
