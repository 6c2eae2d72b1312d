import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Delivery, MonitorStore } from '../../src/core/monitor/store.js';

/** What every MonitorStore driver keeps: leases, runs, atomic health swaps, bounded history, the outbox. */
export interface MonitorStoreUnderTest {
  store: MonitorStore;
  /** A second handle on the same data (Redis: another connection; embedded: the file reopened after close). */
  reopen(): Promise<MonitorStore>;
  /** Lets `ms` pass on the clock the store's leases expire by (embedded: its injected clock; Redis: its TTLs). */
  elapse(ms: number): Promise<void>;
  cleanup(): Promise<void>;
}

export function delivery(id: string, overrides: Partial<Delivery> = {}): Delivery {
  return {
    id,
    url: 'http://127.0.0.1:1/hook',
    secretEnv: 'SECRET',
    type: 'data.changed',
    payload: '{"type":"data.changed"}',
    createdAt: 1_000,
    attempts: 0,
    nextAttemptAt: 1_000,
    status: 'pending',
    lastError: null,
    deliveredAt: null,
    ...overrides,
  };
}

export function runMonitorStoreContract(name: string, make: () => Promise<MonitorStoreUnderTest>): void {
  describe(`MonitorStore contract: ${name}`, () => {
    let subject: MonitorStoreUnderTest;
    let store: MonitorStore;
    beforeEach(async () => {
      subject = await make();
      store = subject.store;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    it('gives a lease to one owner at a time, and never again once finished', async () => {
      expect(await store.acquireLease('books@1', 'a', 60_000)).toBe(true);
      expect(await store.acquireLease('books@1', 'b', 60_000)).toBe(false);
      expect(await store.acquireLease('books@1', 'a', 60_000)).toBe(true);
      await store.finishLease('books@1', 'a', 60_000);
      expect(await store.acquireLease('books@1', 'a', 60_000)).toBe(false);
      expect(await store.acquireLease('books@1', 'b', 60_000)).toBe(false);
      expect(await store.acquireLease('books@2', 'b', 60_000)).toBe(true);
    });

    it('lets an unfinished lease expire so another owner takes it over', async () => {
      expect(await store.acquireLease('jobs@7', 'dead', 60_000)).toBe(true);
      expect(await store.acquireLease('jobs@7', 'alive', 60_000)).toBe(false);
      // A second short of its end (Redis's own clock moves a few real milliseconds meanwhile) it still holds.
      await subject.elapse(59_000);
      expect(await store.acquireLease('jobs@7', 'alive', 60_000)).toBe(false);
      await subject.elapse(1_000);
      expect(await store.acquireLease('jobs@7', 'alive', 60_000)).toBe(true);
    });

    it('swaps health atomically: of many concurrent swaps to one state, one sees the change', async () => {
      await store.swapHealth('books', 'healthy');
      const previous = await Promise.all(Array.from({ length: 20 }, () => store.swapHealth('books', 'broken')));
      expect(previous.filter((state) => state === 'healthy')).toHaveLength(1);
      expect(previous.filter((state) => state === 'broken')).toHaveLength(19);
      expect(await store.swapHealth('never-seen', 'healthy')).toBeUndefined();
    });

    it('keeps runs and a bounded history, newest first', async () => {
      await store.putRun({
        monitorId: 'books',
        apiId: 'books',
        lastSlot: '5',
        lastRunAt: 'x',
        lastOutcome: 'ok',
        lastError: null,
        lastData: { a: [1] },
        lastDataAt: 'x',
      });
      expect((await store.getRun('books'))?.lastData).toEqual({ a: [1] });
      expect(await store.getRun('__proto__')).toBeUndefined();
      for (let i = 0; i < 5; i += 1) await store.addHistory({ at: String(i), monitorId: 'books', apiId: 'books', kind: 'data.changed' }, 3);
      expect((await store.history('books', 10)).map((entry) => entry.at)).toEqual(['4', '3', '2']);
      expect(await store.history('other', 10)).toEqual([]);
      const reopened = await subject.reopen();
      expect((await reopened.getRun('books'))?.lastSlot).toBe('5');
      expect(await reopened.history('books', 1)).toHaveLength(1);
    });

    it('claims due deliveries once, records outcomes, and keeps pending ones across a reopen', async () => {
      await store.enqueue([delivery('msg_a'), delivery('msg_b', { nextAttemptAt: 5_000 }), delivery('msg_c')]);
      const first = await store.claimDue(2_000, 10_000, 10);
      expect(first.map((d) => d.id).sort()).toEqual(['msg_a', 'msg_c']);
      expect(await store.claimDue(2_000, 10_000, 10)).toEqual([]);
      await store.delivered('msg_a', 2_100);
      await store.retryLater('msg_c', 1, 3_000, 'the receiver answered 500');
      const reopened = await subject.reopen();
      const due = await reopened.claimDue(6_000, 10_000, 10);
      expect(due.map((d) => d.id).sort()).toEqual(['msg_b', 'msg_c']);
      expect(due.find((d) => d.id === 'msg_c')).toMatchObject({ attempts: 1, lastError: 'the receiver answered 500', status: 'pending' });
      await reopened.giveUp('msg_b', 9, 'gave up', 7_000);
      const all = await reopened.deliveries(10);
      expect(Object.fromEntries(all.map((d) => [d.id, d.status]))).toEqual({ msg_a: 'delivered', msg_b: 'failed', msg_c: 'pending' });
    });
  });
}
