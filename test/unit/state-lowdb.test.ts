import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import { journalFileOf } from '../../src/core/state/state-journal.js';
import type { StateStore } from '../../src/core/state/types.js';
import { runStateStoreContract, sampleKey } from '../contract/state-store.contract.js';

runStateStoreContract('lowdb', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-'));
  const file = join(dir, 'state.json');
  let current: StateStore = await createLowdbStore({ file });
  return {
    store: current,
    reopen: async () => {
      await current.close();
      current = await createLowdbStore({ file });
      return current;
    },
    cleanup: async () => {
      await current.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('lowdb store durability', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pagejson-'));
    file = join(dir, 'state.json');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const readState = async () => JSON.parse(await readFile(file, 'utf8')) as { accounts: Record<string, { balance: number }> };
  /** What a process starting now would see: the snapshot with the journal replayed over it. */
  const balanceOnDisk = async (): Promise<number | undefined> => {
    const reader = await createLowdbStore({ file });
    const balance = (await reader.getAccount('default'))?.balance;
    await reader.close();
    return balance;
  };

  it('starts empty from a missing file, creates nothing until a change, then only 0600 files', async () => {
    const store = await createLowdbStore({ file });
    expect(await store.listKeys()).toEqual([]);
    await store.flush();
    expect(await readdir(dir)).toEqual([]);
    await store.ensureAccount('default', 100_000);
    expect(await readdir(dir)).toEqual(['state.json.journal']);
    expect((await stat(journalFileOf(file))).mode & 0o777).toBe(0o600);
    expect(await balanceOnDisk()).toBe(100_000);
    await store.close();
    // A clean close folds the journal into the snapshot.
    expect(await readdir(dir)).toEqual(['state.json']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readState()).accounts.default?.balance).toBe(100_000);
  });

  it('resolves a balance change only once the journal on disk holds it', async () => {
    const store = await createLowdbStore({ file });
    await store.ensureAccount('default', 1_000);
    await store.reserve('default', 400);
    expect(await balanceOnDisk()).toBe(600);
    await store.grant('default', 50);
    expect(await balanceOnDisk()).toBe(650);
    // A store opened only to read changed no file.
    expect(await readdir(dir)).toEqual(['state.json.journal']);
    await store.close();
  });

  it('lets a fresh store over the same file see every change after flush, without closing the first', async () => {
    const store = await createLowdbStore({ file });
    await store.ensureAccount('default', 5_000);
    for (let i = 0; i < 10; i++) void store.reserve('default', 100);
    void store.addKey(sampleKey({ id: 'k_fresh001' }));
    await store.flush();
    const fresh = await createLowdbStore({ file });
    expect((await fresh.getAccount('default'))?.balance).toBe(4_000);
    expect((await fresh.getKey('k_fresh001'))?.id).toBe('k_fresh001');
    await fresh.close();
    await store.close();
  });

  it('group-commits: a burst of changes takes fewer appends than changes, each entry written once per append', async () => {
    let writes = 0;
    let bytes = 0;
    const store = await createLowdbStore({
      file,
      onWrite: (size) => {
        writes++;
        bytes += size;
      },
    });
    await store.ensureAccount('default', 1_000_000);
    writes = 0;
    bytes = 0;
    // Same turn of the event loop: one append of one record (the account), not 200.
    await Promise.all(Array.from({ length: 200 }, () => store.reserve('default', 400)));
    expect(writes).toBe(1);
    expect(bytes).toBe(
      `${JSON.stringify(['accounts', 'default', { id: 'default', balance: 1_000_000 - 200 * 400, createdAt: (await store.getAccount('default'))!.createdAt }])}\n`
        .length,
    );
    // Spread over turns: one append per turn that changed something, never one per change.
    writes = 0;
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < 12; i++) {
      for (let j = 0; j < 5; j++) pending.push(store.reserve('default', 400));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(pending);
    expect(writes).toBe(12);
    await store.close();
    expect((await readState()).accounts.default?.balance).toBe(1_000_000 - 260 * 400);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('refuses a corrupt or foreign state file with STATE_CORRUPT and leaves it as it was', async () => {
    await writeFile(file, '{"version":1,"accounts":{');
    await expect(createLowdbStore({ file })).rejects.toMatchObject({ code: 'STATE_CORRUPT', hint: expect.stringContaining('backup') });
    expect(await readFile(file, 'utf8')).toBe('{"version":1,"accounts":{');

    await writeFile(file, '{"version":1,"accounts":[]}');
    await expect(createLowdbStore({ file })).rejects.toMatchObject({ code: 'STATE_CORRUPT', message: expect.stringContaining('accounts') });

    await writeFile(file, '[]');
    await expect(createLowdbStore({ file })).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
  });

  it('drops usage days older than the retention period when it opens', async () => {
    const store = await createLowdbStore({ file });
    const today = new Date();
    const event = { apiId: 'books', keyId: 'k_a', account: 'default', milliCredits: 400, outcome: 'MISS' as const };
    await store.recordUsage({ ...event, at: today });
    await store.recordUsage({ ...event, at: new Date(today.getTime() - 10 * 86_400_000) });
    await store.close();
    const reopened = await createLowdbStore({ file, usageRetentionDays: 5 });
    expect((await reopened.usage({})).map((r) => r.day)).toEqual([today.toISOString().slice(0, 10)]);
    await reopened.close();
  });

  it('reads usage rows written before token counting as 0 tokens and keeps adding to them', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const oldRow = { day, apiId: 'books', keyId: 'k_old', requests: 2, errors: 0, cacheHits: 1, milliCredits: 800 };
    await writeFile(
      file,
      JSON.stringify({ version: 1, accounts: {}, keys: {}, usage: { [`${day}\tbooks\tk_old`]: oldRow }, endpoints: {} }),
    );
    const store = await createLowdbStore({ file });
    expect(await store.usage({})).toEqual([{ ...oldRow, promptTokens: 0, completionTokens: 0 }]);
    await store.recordUsage({
      apiId: 'books',
      keyId: 'k_old',
      account: 'default',
      milliCredits: 400,
      outcome: 'MISS',
      at: new Date(),
      promptTokens: 11,
      completionTokens: 2,
    });
    expect(await store.usage({})).toEqual([{ ...oldRow, requests: 3, milliCredits: 1_200, promptTokens: 11, completionTokens: 2 }]);
    await store.close();
  });

  it('refuses changes after close', async () => {
    const store = await createLowdbStore({ file });
    await store.ensureAccount('default', 1_000);
    await store.close();
    await expect(store.reserve('default', 400)).rejects.toThrow(/closed/);
  });
});
