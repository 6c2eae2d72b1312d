import { describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createOriginQueue } from '../../src/core/fetch/net/origin-queue.js';
import { rejection } from '../support/rejection.js';

/** A task that runs until the test releases it, recording when it started. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('origin queue', () => {
  it('runs at most `concurrency` tasks per origin, in arrival order', async () => {
    const queue = createOriginQueue(2);
    const started: number[] = [];
    const gates = Array.from({ length: 6 }, gate);
    const runs = gates.map((g, i) =>
      queue.run('http://a', async () => {
        started.push(i);
        await g.opened;
        return i;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(queue.stats().get('http://a')).toEqual({ running: 2, waiting: 4 });
    gates[1]?.open();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.open();
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const g of gates) g.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(queue.stats().size).toBe(0);
  });

  it('hands a freed slot to the next waiter, not to a newcomer', async () => {
    const queue = createOriginQueue(1);
    const order: string[] = [];
    const first = gate();
    const a = queue.run('o', async () => {
      order.push('a');
      await first.opened;
    });
    const b = queue.run('o', async () => {
      order.push('b');
    });
    await tick();
    first.open();
    // Arrives in the same turn as the release: must still go after b.
    const c = queue.run('o', async () => {
      order.push('c');
    });
    await Promise.all([a, b, c]);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('keeps origins independent', async () => {
    const queue = createOriginQueue(1);
    const blocked = gate();
    const slow = queue.run('http://slow', () => blocked.opened);
    expect(await queue.run('http://fast', async () => 'done')).toBe('done');
    blocked.open();
    await slow;
  });

  it('frees the slot when a task fails', async () => {
    const queue = createOriginQueue(1);
    await expect(queue.run('o', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.run('o', async () => 'next')).toBe('next');
  });

  it('drops a waiting task whose signal aborts, without running it', async () => {
    const queue = createOriginQueue(1);
    const blocked = gate();
    const running = queue.run('o', () => blocked.opened);
    const controller = new AbortController();
    let ran = false;
    const waiting = queue.run(
      'o',
      async () => {
        ran = true;
      },
      controller.signal,
    );
    controller.abort();
    const error = await rejection(waiting);
    expect(error).toBeInstanceOf(PagejsonError);
    expect(error.code).toBe('FETCH_FAILED');
    expect(queue.stats().get('o')).toEqual({ running: 1, waiting: 0 });
    blocked.open();
    await running;
    expect(ran).toBe(false);
    expect(queue.stats().size).toBe(0);
  });

  it('refuses an already aborted signal and a nonsense limit', async () => {
    const queue = createOriginQueue(1);
    await expect(queue.run('o', async () => 1, AbortSignal.abort())).rejects.toThrow();
    expect(() => createOriginQueue(0)).toThrow(RangeError);
  });
});
