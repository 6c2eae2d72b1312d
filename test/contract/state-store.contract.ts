import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKeyRecord, StateStore } from '../../src/core/state/types.js';

/**
 * The contract every StateStore driver passes (lowdb now, Redis later): the same arithmetic, the same
 * no-overdraft guarantee under concurrency, the same key, usage and status semantics, and durability across
 * a reopen.
 */
export interface StoreUnderTest {
  store: StateStore;
  /** Close this store and open a new one over the same data (after flush), returning it. */
  reopen: () => Promise<StateStore>;
  cleanup: () => Promise<void>;
}

export function sampleKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const id = overrides.id ?? `k_${Math.random().toString(36).slice(2, 10).padEnd(8, '0')}`;
  return {
    id,
    digest: `digest-of-${id}`,
    account: 'default',
    label: 'prod',
    scope: null,
    status: 'active',
    createdAt: '2026-01-01T00:00:00.000Z',
    lastUsedAt: null,
    expiresAt: null,
    ...overrides,
  };
}

export function runStateStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`StateStore contract: ${name}`, () => {
    let subject: StoreUnderTest;
    let store: StateStore;

    beforeEach(async () => {
      subject = await makeStore();
      store = subject.store;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    it('creates an account once with its initial balance and never resets it', async () => {
      expect(await store.getAccount('acme')).toBeUndefined();
      const created = await store.ensureAccount('acme', 100_000);
      expect(created).toMatchObject({ id: 'acme', balance: 100_000 });
      expect(Number.isNaN(Date.parse(created.createdAt))).toBe(false);
      await store.reserve('acme', 400);
      const again = await store.ensureAccount('acme', 100_000);
      expect(again.balance).toBe(99_600);
      expect((await store.getAccount('acme'))?.balance).toBe(99_600);
    });

    it('reserves, refunds and grants exact integer amounts and never overdraws', async () => {
      await store.ensureAccount('a', 1_000);
      expect(await store.reserve('a', 400)).toEqual({ ok: true, balance: 600 });
      expect(await store.reserve('a', 500)).toEqual({ ok: true, balance: 100 });
      expect(await store.reserve('a', 400)).toEqual({ ok: false, balance: 100 });
      expect(await store.refund('a', 500)).toBe(600);
      expect(await store.grant('a', 2_000)).toBe(2_600);
      expect(await store.reserve('a', 2_600)).toEqual({ ok: true, balance: 0 });
      expect(await store.reserve('a', 1)).toEqual({ ok: false, balance: 0 });
      expect((await store.getAccount('a'))?.balance).toBe(0);
    });

    it('rejects negative or fractional amounts and unknown accounts', async () => {
      await store.ensureAccount('a', 1_000);
      await expect(store.reserve('a', -1)).rejects.toThrow(RangeError);
      await expect(store.grant('a', 0.5)).rejects.toThrow(RangeError);
      await expect(store.reserve('nobody', 400)).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
      await expect(store.grant('nobody', 400)).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
      expect((await store.getAccount('a'))?.balance).toBe(1_000);
    });

    it('lets exactly floor(balance / cost) of 200 concurrent reserves succeed', async () => {
      await store.ensureAccount('burst', 50_300);
      const results = await Promise.all(Array.from({ length: 200 }, () => store.reserve('burst', 400)));
      const granted = results.filter((r) => r.ok);
      expect(granted).toHaveLength(125);
      expect(results.every((r) => r.balance >= 0)).toBe(true);
      expect(new Set(granted.map((r) => r.balance)).size).toBe(125);
      expect((await store.getAccount('burst'))?.balance).toBe(300);
    });

    it('adds, finds, lists and updates keys, returning copies', async () => {
      const first = sampleKey({ id: 'k_first001', createdAt: '2026-01-01T00:00:00.000Z', scope: ['books'] });
      const second = sampleKey({ id: 'k_second01', createdAt: '2026-01-02T00:00:00.000Z' });
      await store.addKey(first);
      await store.addKey(second);
      await expect(store.addKey(first)).rejects.toThrow();
      expect(await store.getKey('k_first001')).toEqual(first);
      expect(await store.findKeyByDigest(second.digest)).toEqual(second);
      expect(await store.findKeyByDigest('digest-of-nothing')).toBeUndefined();
      expect((await store.listKeys()).map((k) => k.id)).toEqual(['k_first001', 'k_second01']);

      const found = await store.getKey('k_first001');
      found!.scope!.push('tampered');
      expect((await store.getKey('k_first001'))?.scope).toEqual(['books']);

      const revoked = await store.updateKey('k_first001', { status: 'revoked', lastUsedAt: '2026-01-03T00:00:00.000Z' });
      expect(revoked).toMatchObject({ id: 'k_first001', digest: first.digest, status: 'revoked', lastUsedAt: '2026-01-03T00:00:00.000Z' });
      expect((await store.findKeyByDigest(first.digest))?.status).toBe('revoked');
      expect(await store.updateKey('k_missing0', { status: 'revoked' })).toBeUndefined();
    });

    it('aggregates usage per day, apiId and key, and filters by apiId, key and days', async () => {
      const today = new Date();
      const longAgo = new Date(today.getTime() - 5 * 86_400_000);
      const event = { apiId: 'books', keyId: 'k_a', account: 'default', milliCredits: 400, outcome: 'MISS' as const, at: today };
      await store.recordUsage(event);
      await store.recordUsage({ ...event, outcome: 'HIT' });
      await store.recordUsage({ ...event, outcome: 'STALE' });
      await store.recordUsage({ ...event, outcome: 'ERROR', milliCredits: 0 });
      await store.recordUsage({ ...event, keyId: 'k_b' });
      await store.recordUsage({ ...event, apiId: 'jobs', keyId: null, outcome: 'BYPASS', milliCredits: 500 });
      await store.recordUsage({ ...event, at: longAgo });

      const all = await store.usage({});
      expect(all).toHaveLength(4);
      const day = today.toISOString().slice(0, 10);
      expect(all.find((r) => r.apiId === 'books' && r.keyId === 'k_a' && r.day === day)).toEqual({
        day,
        apiId: 'books',
        keyId: 'k_a',
        requests: 4,
        errors: 1,
        cacheHits: 2,
        milliCredits: 1_200,
        promptTokens: 0,
        completionTokens: 0,
      });
      expect((await store.usage({ apiId: 'jobs' })).map((r) => [r.keyId, r.milliCredits])).toEqual([[null, 500]]);
      expect((await store.usage({ keyId: 'k_b' })).map((r) => r.requests)).toEqual([1]);
      expect((await store.usage({ apiId: 'books', keyId: 'k_a', days: 3 })).map((r) => r.day)).toEqual([day]);
      expect(await store.usage({ apiId: 'books', keyId: 'k_a', days: 7 })).toHaveLength(2);
    });

    it('keeps hourly usage beside daily usage, filtered by apiId, key and hours, dropped after the retention', async () => {
      const now = new Date();
      const hourAgo = new Date(now.getTime() - 3_600_000);
      const tenDaysAgo = new Date(now.getTime() - 10 * 86_400_000);
      const event = { apiId: 'books', keyId: 'k_a', account: 'default', milliCredits: 400, outcome: 'MISS' as const, at: now };
      await store.recordUsage(event);
      await store.recordUsage({ ...event, outcome: 'HIT' });
      await store.recordUsage({ ...event, outcome: 'ERROR', milliCredits: 0, at: hourAgo });
      await store.recordUsage({ ...event, keyId: 'k_b', at: hourAgo });
      await store.recordUsage({ ...event, apiId: 'jobs', keyId: null, outcome: 'MODEL', milliCredits: 250 });
      await store.recordUsage({ ...event, at: tenDaysAgo });

      const hourOf = (at: Date) => `${at.toISOString().slice(0, 13)}:00Z`;
      const hours = await store.usage({ unit: 'hour' });
      // The event of ten days ago is past the hourly retention: no hourly row (its daily row stays).
      expect(hours.map((r) => [r.hour, r.apiId, r.keyId, r.requests, r.errors, r.cacheHits, r.milliCredits])).toEqual([
        [hourOf(now), 'books', 'k_a', 2, 0, 1, 800],
        [hourOf(now), 'jobs', null, 0, 0, 0, 250],
        [hourOf(hourAgo), 'books', 'k_a', 1, 1, 0, 0],
        [hourOf(hourAgo), 'books', 'k_b', 1, 0, 0, 400],
      ]);
      expect(hours.every((r) => r.day === r.hour!.slice(0, 10))).toBe(true);
      expect((await store.usage({ unit: 'hour', hours: 1 })).map((r) => r.apiId)).toEqual(['books', 'jobs']);
      expect((await store.usage({ unit: 'hour', keyId: 'k_b' })).map((r) => r.hour)).toEqual([hourOf(hourAgo)]);
      expect((await store.usage({ unit: 'hour', apiId: 'jobs' })).map((r) => r.milliCredits)).toEqual([250]);
      // Daily rows are untouched by the hourly ones and carry no hour.
      const days = await store.usage({ apiId: 'books', keyId: 'k_a' });
      expect(days.some((r) => r.day === tenDaysAgo.toISOString().slice(0, 10))).toBe(true);
      expect(days.every((r) => r.hour === undefined)).toBe(true);
    });

    it('adds an event of count n as n requests (the usage buffer sums alike hits), a bad count as one', async () => {
      const now = new Date();
      const event = { apiId: 'books', keyId: 'k_a', account: 'default', milliCredits: 1_200, outcome: 'HIT' as const, at: now };
      await store.recordUsage({ ...event, count: 3 });
      await store.recordUsage({ ...event, outcome: 'ERROR', milliCredits: 0, count: 2 });
      await store.recordUsage({ ...event, milliCredits: 400, count: 0.5 });
      await store.recordUsage({ ...event, milliCredits: 400, count: -4 });
      const rows = (unit: 'day' | 'hour') =>
        store.usage({ unit }).then((all) => all.map((r) => [r.requests, r.errors, r.cacheHits, r.milliCredits]));
      expect(await rows('day')).toEqual([[7, 2, 5, 2_000]]);
      expect(await rows('hour')).toEqual([[7, 2, 5, 2_000]]);
    });

    it('adds model tokens per day, apiId and key; MODEL events add tokens without counting a request', async () => {
      const today = new Date();
      const yesterday = new Date(today.getTime() - 86_400_000);
      const event = { apiId: 'books', keyId: 'k_a', account: 'default', milliCredits: 400, outcome: 'MISS' as const, at: today };
      await store.recordUsage({ ...event, promptTokens: 120, completionTokens: 30 });
      await store.recordUsage({ ...event, outcome: 'BYPASS', promptTokens: 80, completionTokens: 12 });
      await store.recordUsage({ ...event, outcome: 'HIT' });
      await store.recordUsage({ ...event, keyId: 'k_b', promptTokens: 7, completionTokens: 3 });
      await store.recordUsage({ ...event, at: yesterday, promptTokens: 1_000, completionTokens: 100 });
      await store.recordUsage({ ...event, keyId: null, outcome: 'MODEL', milliCredits: 0, promptTokens: 50, completionTokens: 5 });
      await store.recordUsage({ ...event, keyId: null, outcome: 'MODEL', milliCredits: 0, promptTokens: 25, completionTokens: 0 });
      await store.recordUsage({ ...event, apiId: 'jobs' });

      const day = today.toISOString().slice(0, 10);
      const rows = await store.usage({});
      const pick = (apiId: string, keyId: string | null, onDay: string) =>
        rows.find((r) => r.apiId === apiId && r.keyId === keyId && r.day === onDay);
      expect(pick('books', 'k_a', day)).toMatchObject({
        requests: 3,
        cacheHits: 1,
        milliCredits: 1_200,
        promptTokens: 200,
        completionTokens: 42,
      });
      expect(pick('books', 'k_b', day)).toMatchObject({ requests: 1, promptTokens: 7, completionTokens: 3 });
      expect(pick('books', 'k_a', yesterday.toISOString().slice(0, 10))).toMatchObject({
        requests: 1,
        promptTokens: 1_000,
        completionTokens: 100,
      });
      expect(pick('books', null, day)).toEqual({
        day,
        apiId: 'books',
        keyId: null,
        requests: 0,
        errors: 0,
        cacheHits: 0,
        milliCredits: 0,
        promptTokens: 75,
        completionTokens: 5,
      });
      // Events without tokens leave the token counters at 0.
      expect(pick('jobs', 'k_a', day)).toMatchObject({ requests: 1, promptTokens: 0, completionTokens: 0 });
      expect(rows).toHaveLength(5);
    });

    it('keeps the latest runtime status per endpoint', async () => {
      await store.setEndpointStatus({ apiId: 'jobs', lastFetchAt: '2026-01-01T00:00:00.000Z', lastError: null, lastErrorAt: null });
      await store.setEndpointStatus({ apiId: 'books', lastFetchAt: null, lastError: 'timeout', lastErrorAt: '2026-01-01T00:00:00.000Z' });
      await store.setEndpointStatus({ apiId: 'jobs', lastFetchAt: '2026-01-02T00:00:00.000Z', lastError: null, lastErrorAt: null });
      expect(await store.listEndpointStatus()).toEqual([
        { apiId: 'books', lastFetchAt: null, lastError: 'timeout', lastErrorAt: '2026-01-01T00:00:00.000Z' },
        { apiId: 'jobs', lastFetchAt: '2026-01-02T00:00:00.000Z', lastError: null, lastErrorAt: null },
      ]);
    });

    it('keeps every change across flush and reopen', async () => {
      await store.ensureAccount('default', 10_000);
      void store.reserve('default', 400);
      void store.grant('default', 1_000);
      void store.addKey(sampleKey({ id: 'k_durable1' }));
      void store.recordUsage({
        apiId: 'books',
        keyId: 'k_durable1',
        account: 'default',
        milliCredits: 400,
        outcome: 'MISS',
        at: new Date(),
        promptTokens: 9,
        completionTokens: 4,
      });
      void store.setEndpointStatus({ apiId: 'books', lastFetchAt: '2026-01-01T00:00:00.000Z', lastError: null, lastErrorAt: null });
      await store.flush();
      const reopened = await subject.reopen();
      expect((await reopened.getAccount('default'))?.balance).toBe(10_600);
      expect((await reopened.findKeyByDigest('digest-of-k_durable1'))?.id).toBe('k_durable1');
      expect((await reopened.usage({ keyId: 'k_durable1' }))[0]).toMatchObject({ requests: 1, promptTokens: 9, completionTokens: 4 });
      expect((await reopened.listEndpointStatus()).map((s) => s.apiId)).toEqual(['books']);
    });

    it('holds debit like reserve; a settled hold keeps its debit, a released one refunds once', async () => {
      await store.ensureAccount('h', 1_000);
      expect(await store.hold('h', 400, 'hold-a')).toEqual({ ok: true, balance: 600 });
      expect(await store.hold('h', 400, 'hold-b')).toEqual({ ok: true, balance: 200 });
      expect(await store.hold('h', 400, 'hold-c')).toEqual({ ok: false, balance: 200 });
      await store.settle('hold-a');
      expect(await store.release('hold-b')).toBe(600);
      expect(await store.release('hold-b')).toBeUndefined();
      expect(await store.release('hold-a')).toBeUndefined();
      expect((await store.getAccount('h'))?.balance).toBe(600);
      // A live store's own holds are never taken for orphans.
      await store.hold('h', 100, 'hold-d');
      expect(await store.releaseOrphanedHolds()).toEqual({ holds: 0, milliCredits: 0 });
      expect((await store.getAccount('h'))?.balance).toBe(500);
    });

    it('settles a hold at less than it held, refunding the rest in the same step (pagination: held for ten pages, answered with three)', async () => {
      await store.ensureAccount('paged', 5_000);
      expect(await store.hold('paged', 4_000, 'pages-a')).toEqual({ ok: true, balance: 1_000 });
      expect(await store.settle('pages-a', 1_200)).toBe(3_800);
      expect((await store.getAccount('paged'))?.balance).toBe(3_800);
      // Gone once settled: neither settled again, nor released, nor taken for an orphan at the next open.
      expect(await store.settle('pages-a', 400)).toBeUndefined();
      expect(await store.release('pages-a')).toBeUndefined();
      // Kept whole: no refund, no balance to tell.
      await store.hold('paged', 800, 'pages-b');
      expect(await store.settle('pages-b', 800)).toBeUndefined();
      expect((await store.getAccount('paged'))?.balance).toBe(3_000);
      const reopened = await subject.reopen();
      expect(await reopened.releaseOrphanedHolds()).toEqual({ holds: 0, milliCredits: 0 });
      expect((await reopened.getAccount('paged'))?.balance).toBe(3_000);
    });

    it('releases, at the next open, the holds a store left neither settled nor released', async () => {
      await store.ensureAccount('crash', 10_000);
      for (const id of ['h1', 'h2', 'h3']) await store.hold('crash', 400, id);
      await store.settle('h2'); // answered: its debit stays
      await store.hold('crash', 99_999, 'too-big'); // refused: nothing held
      const reopened = await subject.reopen();
      expect((await reopened.getAccount('crash'))?.balance).toBe(8_800);
      expect(await reopened.releaseOrphanedHolds()).toEqual({ holds: 2, milliCredits: 800 });
      expect((await reopened.getAccount('crash'))?.balance).toBe(9_600);
      expect(await reopened.releaseOrphanedHolds()).toEqual({ holds: 0, milliCredits: 0 });
      const again = await subject.reopen();
      expect((await again.getAccount('crash'))?.balance).toBe(9_600);
    });
  });
}
