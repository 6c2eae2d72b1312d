import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedisStore } from '../../src/core/state/redis-store.js';
import type { StateStore } from '../../src/core/state/types.js';
import { runStateStoreContract, sampleKey } from '../contract/state-store.contract.js';
import { skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * The Redis StateStore against a real redis-server started for this file: the shared contract suite,
 * unchanged, and what only a shared store must prove (two instances, one balance; patches that never undo
 * each other; nothing lost when one daemon's connection goes away).
 */
const skip = skipRedisTests();
let server: RedisServer;
let prefixes = 0;
/** A fresh prefix per test: one server serves every test without FLUSHALL between them. */
const nextPrefix = () => `t${++prefixes}:`;

describe.skipIf(skip)('Redis state store', () => {
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  runStateStoreContract('redis', async () => {
    const prefix = nextPrefix();
    let current: StateStore = await createRedisStore({ url: server.url, prefix });
    return {
      store: current,
      reopen: async () => {
        await current.close();
        current = await createRedisStore({ url: server.url, prefix });
        return current;
      },
      cleanup: () => current.close(),
    };
  });

  it('lets exactly floor(balance / cost) of 200 concurrent reserves succeed across two store instances', async () => {
    const prefix = nextPrefix();
    const [a, b] = await Promise.all([createRedisStore({ url: server.url, prefix }), createRedisStore({ url: server.url, prefix })]);
    try {
      await a.ensureAccount('shared', 50_300);
      // The second instance sees the account the first created and never resets it.
      expect((await b.ensureAccount('shared', 999_999)).balance).toBe(50_300);
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).reserve('shared', 400)));
      const granted = results.filter((r) => r.ok);
      expect(granted).toHaveLength(125);
      expect(new Set(granted.map((r) => r.balance)).size).toBe(125);
      expect(results.every((r) => r.balance >= 0)).toBe(true);
      expect((await a.getAccount('shared'))?.balance).toBe(300);
      // Refunds and grants from both sides add up exactly.
      await Promise.all([a.refund('shared', 400), b.refund('shared', 400), b.grant('shared', 1_000)]);
      expect((await b.getAccount('shared'))?.balance).toBe(2_100);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('applies key patches field by field, so concurrent lastUsedAt stamps never undo a revoke', async () => {
    const prefix = nextPrefix();
    const [a, b] = await Promise.all([createRedisStore({ url: server.url, prefix }), createRedisStore({ url: server.url, prefix })]);
    try {
      await a.addKey(sampleKey({ id: 'k_shared01', scope: ['books', 'jobs'], label: null }));
      const stamps = Array.from({ length: 20 }, (_, i) =>
        a.updateKey('k_shared01', { lastUsedAt: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z` }),
      );
      const revoked = b.updateKey('k_shared01', { status: 'revoked' });
      await Promise.all([...stamps, revoked]);
      const found = await b.findKeyByDigest('digest-of-k_shared01');
      expect(found).toMatchObject({ id: 'k_shared01', status: 'revoked', scope: ['books', 'jobs'], label: null, expiresAt: null });
      expect(found?.lastUsedAt).toMatch(/^2026-01-01T00:00:\d\d\.000Z$/);
      // The id and digest are not patchable: a patch naming them leaves the indexes consistent.
      await a.updateKey('k_shared01', { id: 'k_other000', digest: 'other' } as never);
      expect((await b.getKey('k_shared01'))?.digest).toBe('digest-of-k_shared01');
      expect(await b.findKeyByDigest('other')).toBeUndefined();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('rejects a second key with the same digest and writes nothing of it', async () => {
    const store = await createRedisStore({ url: server.url, prefix: nextPrefix() });
    try {
      await store.addKey(sampleKey({ id: 'k_first001', digest: 'same' }));
      await expect(store.addKey(sampleKey({ id: 'k_second01', digest: 'same' }))).rejects.toThrow(/digest/);
      expect(await store.getKey('k_second01')).toBeUndefined();
      expect((await store.listKeys()).map((k) => k.id)).toEqual(['k_first001']);
    } finally {
      await store.close();
    }
  });

  it('keeps installations apart by prefix', async () => {
    const [one, two] = await Promise.all([
      createRedisStore({ url: server.url, prefix: nextPrefix() }),
      createRedisStore({ url: server.url, prefix: nextPrefix() }),
    ]);
    try {
      await one.ensureAccount('default', 1_000);
      expect(await two.getAccount('default')).toBeUndefined();
      await one.recordUsage({ apiId: 'books', keyId: null, account: 'default', milliCredits: 400, outcome: 'MISS', at: new Date() });
      expect(await two.usage({})).toEqual([]);
      expect(await one.usage({})).toHaveLength(1);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('fails to open with REDIS_UNAVAILABLE, password hidden, when nothing listens at the URL', async () => {
    const stopped = await startRedisServer();
    await stopped.stop();
    const error = await createRedisStore({ url: `redis://user:s3cret@127.0.0.1:${stopped.port}` }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    expect(String((error as Error).message)).toContain(`127.0.0.1:${stopped.port}`);
    expect(String((error as Error).message)).not.toContain('s3cret');
    await expect(createRedisStore({ url: 'http://127.0.0.1:1' })).rejects.toMatchObject({ code: 'REDIS_UNAVAILABLE' });
  });

  it('fails fast while Redis is gone and works again once it is back (reconnecting by itself)', async () => {
    const own = await startRedisServer();
    const store = await createRedisStore({ url: own.url, prefix: nextPrefix() });
    let restarted: RedisServer | undefined;
    try {
      await store.ensureAccount('a', 1_000);
      await own.stop();
      // No offline queue: a command while disconnected is an error now, not a request that waits forever.
      await expect(store.reserve('a', 400)).rejects.toThrow();
      restarted = await startRedisServer({ port: own.port });
      // The client reconnects on its own schedule: ask until a command gets through.
      const account = await vi.waitFor(() => store.ensureAccount('a', 2_000), { timeout: 10_000, interval: 50 });
      // The new server kept nothing (no persistence in tests): the account starts again at its initial balance.
      expect(account?.balance).toBe(2_000);
      expect(await store.reserve('a', 400)).toEqual({ ok: true, balance: 1_600 });
    } finally {
      await store.close();
      await restarted?.stop();
    }
  });

  it('reads usage hashes written before token counting as 0 tokens', async () => {
    const prefix = nextPrefix();
    const store = await createRedisStore({ url: server.url, prefix });
    const { createClient } = await import('@redis/client');
    const admin = createClient({ url: server.url });
    await admin.connect();
    try {
      const day = new Date().toISOString().slice(0, 10);
      await admin.hSet(`${prefix}usage:${day}`, { 'books\tk_old\trequests': '2', 'books\tk_old\tmilliCredits': '800' });
      await admin.sAdd(`${prefix}usage:days`, day);
      const oldRow = { day, apiId: 'books', keyId: 'k_old', requests: 2, errors: 0, cacheHits: 0, milliCredits: 800 };
      expect(await store.usage({})).toEqual([{ ...oldRow, promptTokens: 0, completionTokens: 0 }]);
      await store.recordUsage({
        apiId: 'books',
        keyId: 'k_old',
        account: 'default',
        milliCredits: 0,
        outcome: 'MODEL',
        at: new Date(),
        promptTokens: 11,
        completionTokens: 2,
      });
      expect(await store.usage({})).toEqual([{ ...oldRow, promptTokens: 11, completionTokens: 2 }]);
    } finally {
      await admin.close();
      await store.close();
    }
  });

  it('re-sends its scripts when the server forgot them (SCRIPT FLUSH after a restart)', async () => {
    const store = await createRedisStore({ url: server.url, prefix: nextPrefix() });
    const { createClient } = await import('@redis/client');
    const admin = createClient({ url: server.url });
    await admin.connect();
    try {
      await store.ensureAccount('a', 1_000);
      await admin.sendCommand(['SCRIPT', 'FLUSH']);
      expect(await store.reserve('a', 400)).toEqual({ ok: true, balance: 600 });
      expect(await store.grant('a', 1)).toBe(601);
    } finally {
      await admin.close();
      await store.close();
    }
  });
});
