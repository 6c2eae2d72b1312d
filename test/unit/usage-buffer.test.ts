import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import type { StateStore, UsageEvent } from '../../src/core/state/types.js';
import { createUsageBuffer } from '../../src/core/access/usage-buffer.js';

/** The usage buffer over a real lowdb store: what reaches the store, and how many events carry it there. */
describe('usage buffer', () => {
  let dir: string;
  let store: StateStore;
  let handed: UsageEvent[];
  let counted: StateStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pagejson-usage-'));
    store = await createLowdbStore({ file: join(dir, 'state.json') });
    handed = [];
    // The same store, with every event it is handed written down.
    counted = Object.create(store, {
      recordUsage: {
        value: (event: UsageEvent) => {
          handed.push(event);
          return store.recordUsage(event);
        },
      },
    }) as StateStore;
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const rows = async (unit: 'day' | 'hour') =>
    (await store.usage({ unit })).map((row) => [
      row.hour ?? row.day,
      row.apiId,
      row.keyId,
      row.requests,
      row.errors,
      row.cacheHits,
      row.milliCredits,
    ]);

  it('sums alike requests into one event per hour, endpoint, key and outcome, with the same totals', async () => {
    const buffer = createUsageBuffer(counted, 60_000);
    const at = Date.parse('2026-11-23T10:15:00Z');
    for (let i = 0; i < 5_000; i += 1) buffer.add('books', 'k_aaaaaaaa', 'default', 'HIT', 1_000, at + i);
    for (let i = 0; i < 7; i += 1) buffer.add('books', 'k_aaaaaaaa', 'default', 'ERROR', 0, at);
    buffer.add('books', 'k_bbbbbbbb', 'default', 'MISS', 1_000, at);
    buffer.add('jobs', null, 'default', 'BYPASS', 1_000, at);
    await buffer.flush();

    expect(handed).toHaveLength(4);
    expect(await rows('hour')).toEqual([
      ['2026-11-23T10:00Z', 'books', 'k_aaaaaaaa', 5_007, 7, 5_000, 5_000_000],
      ['2026-11-23T10:00Z', 'books', 'k_bbbbbbbb', 1, 0, 0, 1_000],
      ['2026-11-23T10:00Z', 'jobs', null, 1, 0, 0, 1_000],
    ]);
  });

  it('keeps the hours apart: a request in a new hour hands over what the old hour summed', async () => {
    const buffer = createUsageBuffer(counted, 60_000);
    const before = Date.parse('2026-11-23T10:59:59Z');
    buffer.add('books', 'k_aaaaaaaa', 'default', 'HIT', 1_000, before);
    buffer.add('books', 'k_aaaaaaaa', 'default', 'HIT', 1_000, before);
    buffer.add('books', 'k_aaaaaaaa', 'default', 'HIT', 1_000, before + 1_000);
    await buffer.flush();
    expect(await rows('hour')).toEqual([
      ['2026-11-23T11:00Z', 'books', 'k_aaaaaaaa', 1, 0, 1, 1_000],
      ['2026-11-23T10:00Z', 'books', 'k_aaaaaaaa', 2, 0, 2, 2_000],
    ]);
  });

  it('hands over events with model tokens as they are, and flushes on its own after flushMs', async () => {
    const buffer = createUsageBuffer(counted, 20);
    const at = new Date();
    buffer.record({
      apiId: 'books',
      keyId: null,
      account: 'default',
      milliCredits: 0,
      outcome: 'MODEL',
      at,
      promptTokens: 30,
      completionTokens: 4,
    });
    buffer.record({
      apiId: 'books',
      keyId: null,
      account: 'default',
      milliCredits: 0,
      outcome: 'MODEL',
      at,
      promptTokens: 5,
      completionTokens: 1,
    });
    buffer.add('books', 'k_aaaaaaaa', 'default', 'MISS', 1_000, at.getTime());
    await expect.poll(() => handed.length, { timeout: 2_000 }).toBe(3);
    const row = (await store.usage({ apiId: 'books' })).find((r) => r.keyId === null);
    expect([row?.requests, row?.promptTokens, row?.completionTokens]).toEqual([0, 35, 5]);
  });
});
