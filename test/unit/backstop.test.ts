import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBackstop as makeBackstop } from '../../src/daemon/backstop.js';

/** The sweeping timer runs on vitest's fake clock: every wait below is exact and takes no real time. */
const elapse = (ms: number) => vi.advanceTimersByTime(ms);

describe('backstop (one sweeping timer for every request in flight)', () => {
  const made: Array<{ close(): void }> = [];
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    made.splice(0).forEach((backstop) => backstop.close());
    vi.useRealTimers();
  });
  const createBackstop = <T>(options: Parameters<typeof makeBackstop<T>>[0]) => {
    const backstop = makeBackstop<T>(options);
    made.push(backstop);
    return backstop;
  };

  it('expires what is still in flight after the deadline, oldest first, and nothing that left', () => {
    const expired: string[] = [];
    const backstop = createBackstop<string>({ deadlineMs: 40, sweepMs: 10, expire: (item) => expired.push(item) });
    const a = backstop.enter('a');
    const b = backstop.enter('b');
    backstop.enter('c');
    const d = backstop.enter('d');
    backstop.leave(b);
    backstop.leave(d);
    backstop.leave(d); // idempotent
    expect(backstop.size).toBe(2);
    elapse(20);
    expect(expired).toEqual([]);
    elapse(80);
    expect(expired).toEqual(['a', 'c']);
    expect(backstop.size).toBe(0);
    backstop.leave(a); // after its expiry: nothing happens
    expect(expired).toEqual(['a', 'c']);
  });

  it('never expires early: an item entered late in a sweep gets its whole deadline', () => {
    const expiredAt = new Map<string, number>();
    const backstop = createBackstop<string>({ deadlineMs: 50, sweepMs: 10, expire: (item) => expiredAt.set(item, Date.now()) });
    const enteredAt = new Map<string, number>();
    for (const item of ['x', 'y', 'z']) {
      enteredAt.set(item, Date.now());
      backstop.enter(item);
      elapse(7);
    }
    elapse(150);
    for (const item of ['x', 'y', 'z']) expect(expiredAt.get(item)! - enteredAt.get(item)!).toBeGreaterThanOrEqual(49);
    // Nor late by more than one sweep.
    for (const item of ['x', 'y', 'z']) expect(expiredAt.get(item)! - enteredAt.get(item)!).toBeLessThanOrEqual(50 + 10);
  });

  it('keeps the list whole when items leave from its head, middle and tail in any order', () => {
    const expired: number[] = [];
    const backstop = createBackstop<number>({ deadlineMs: 20, sweepMs: 10, expire: (item) => expired.push(item) });
    const entries = Array.from({ length: 100 }, (_, i) => backstop.enter(i));
    // Leave every item but the multiples of 7, in a scrambled order (head, tail and middle all hit).
    const order = entries
      .map((entry, i) => ({ entry, i }))
      .filter(({ i }) => i % 7 !== 0)
      .sort((p, q) => ((p.i * 37) % 101) - ((q.i * 37) % 101));
    for (const { entry } of order) backstop.leave(entry);
    expect(backstop.size).toBe(15);
    elapse(80);
    expect(expired).toEqual(Array.from({ length: 15 }, (_, k) => k * 7));
  });

  it('a node that left holds no pointer to the item or to other nodes (nothing it touched stays reachable through it)', () => {
    const backstop = createBackstop<object>({ deadlineMs: 1_000, sweepMs: 100, expire: () => undefined });
    const first = backstop.enter({ request: 1 });
    const middle = backstop.enter({ request: 2 });
    backstop.enter({ request: 3 });
    backstop.leave(middle);
    backstop.leave(first);
    for (const node of [first, middle]) {
      const references = Object.values(node as object).filter((value) => typeof value === 'object' && value !== null);
      expect(references).toEqual([]);
    }
    expect(backstop.size).toBe(1);
  });
});
