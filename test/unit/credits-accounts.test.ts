import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountBalance, chargeCredits, grantCredits } from '../../src/core/access/accounts.js';
import { generationCost } from '../../src/core/access/credits.js';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import type { StateStore } from '../../src/core/state/types.js';

describe('account balances', () => {
  let dir: string;
  let store: StateStore;
  const on = { enabled: true, freeCredits: 1 };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pagejson-'));
    store = await createLowdbStore({ file: join(dir, 'state.json') });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates an account on first use with the free credits of pagejson.json', async () => {
    expect(await accountBalance(store, undefined, { enabled: true, freeCredits: 100 })).toEqual({
      account: 'default',
      milliCredits: 100_000,
    });
    expect(await accountBalance(store, 'acme', { enabled: true, freeCredits: 2.5 })).toEqual({ account: 'acme', milliCredits: 2_500 });
    // The free credits are given once: a later call with other settings does not change the balance.
    expect(await accountBalance(store, 'acme', { enabled: true, freeCredits: 100 })).toEqual({ account: 'acme', milliCredits: 2_500 });
  });

  it('charges generation up front and refuses with the exact no-credits message when short', async () => {
    expect(await chargeCredits(store, undefined, generationCost(3), on)).toEqual({ account: 'default', milliCredits: 650 });
    expect(await chargeCredits(store, undefined, generationCost(1), on)).toEqual({ account: 'default', milliCredits: 400 });
    expect(await chargeCredits(store, undefined, generationCost(3), on)).toEqual({ account: 'default', milliCredits: 50 });
    const refused = chargeCredits(store, undefined, generationCost(1), on);
    await expect(refused).rejects.toMatchObject({
      code: 'NO_CREDITS',
      message: 'No credits left ⚠. Please buy more credits',
      hint: expect.stringContaining('credits grant'),
    });
    expect((await store.getAccount('default'))?.balance).toBe(50);
  });

  it('meters nothing and refuses nothing when credits are disabled', async () => {
    const off = { enabled: false, freeCredits: 0 };
    expect(await chargeCredits(store, 'free', 350, off)).toEqual({ account: 'free', milliCredits: 0 });
    expect((await store.getAccount('free'))?.balance).toBe(0);
  });

  it('grants positive whole milli-credits only', async () => {
    expect(await grantCredits(store, 'acme', 50_000, on)).toEqual({ account: 'acme', milliCredits: 51_000 });
    await expect(grantCredits(store, 'acme', 0, on)).rejects.toMatchObject({ code: 'USAGE' });
    await expect(grantCredits(store, 'acme', -5, on)).rejects.toMatchObject({ code: 'USAGE' });
    await expect(grantCredits(store, 'bad name', 5, on)).rejects.toMatchObject({ code: 'USAGE' });
  });
});
