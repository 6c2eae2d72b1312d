import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKey, listKeys, revokeKey, rotateKey, verifyApiKey } from '../../src/core/access/key-service.js';
import { generateApiKey } from '../../src/core/access/keys.js';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import type { StateStore } from '../../src/core/state/types.js';

describe('API key service', () => {
  let dir: string;
  let file: string;
  let store: StateStore;
  let writes: number;
  let clock: Date;
  const now = () => clock;
  const options = () => ({ freeMilliCredits: 100_000, now });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pagejson-'));
    file = join(dir, 'state.json');
    writes = 0;
    clock = new Date('2026-03-01T12:00:00.000Z');
    store = await createLowdbStore({ file, onWrite: () => writes++, now });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the key once, stores only its digest, and creates the account with the free credits', async () => {
    const created = await createKey(store, { label: 'prod', scope: ['books', 'books', 'jobs'] }, options());
    expect(created).toEqual({
      id: expect.stringMatching(/^k_/),
      key: expect.stringMatching(/^pj_/),
      account: 'default',
      label: 'prod',
      scope: ['books', 'jobs'],
      createdAt: '2026-03-01T12:00:00.000Z',
    });
    expect((await store.getAccount('default'))?.balance).toBe(100_000);
    await store.flush();
    // Everything the state directory holds (the journal now; the snapshot after a fold).
    const onDisk = (await Promise.all((await readdir(dir)).map((name) => readFile(join(dir, name), 'utf8')))).join('\n');
    expect(onDisk).toContain('"keys"');
    expect(onDisk).not.toContain(created.key);
    expect(onDisk).not.toContain(created.key.slice(3, 30));
    const listed = await listKeys(store, { now });
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(listed[0]).not.toHaveProperty('digest');
    expect(listed[0]).toMatchObject({ id: created.id, status: 'active', usage: { requests: 0 }, endpoints: [] });
  });

  it('refuses bad account names and scopes', async () => {
    await expect(createKey(store, { account: 'no spaces' }, options())).rejects.toMatchObject({ code: 'USAGE' });
    await expect(createKey(store, { scope: ['Books!'] }, options())).rejects.toMatchObject({ code: 'USAGE' });
    expect(await store.listKeys()).toEqual([]);
  });

  it('verifies keys: missing, bad checksum, unknown, revoked, out of scope, valid', async () => {
    const all = await createKey(store, {}, options());
    const scoped = await createKey(store, { scope: ['books'] }, options());
    expect(await verifyApiKey(store, undefined, 'books', clock)).toMatchObject({
      ok: false,
      reason: 'missing',
      message: 'Path: apikey -  Message: Required',
    });
    expect(await verifyApiKey(store, '', 'books', clock)).toMatchObject({ ok: false, reason: 'missing' });
    // One changed character of the checksum (a key ending in "x" gets a "y"): never a valid key.
    const typo = `${all.key.slice(0, -1)}${all.key.endsWith('x') ? 'y' : 'x'}`;
    expect(await verifyApiKey(store, typo, 'books', clock)).toMatchObject({ ok: false, reason: 'invalid', message: 'invalid key' });
    expect(await verifyApiKey(store, generateApiKey(), 'books', clock)).toMatchObject({
      ok: false,
      reason: 'invalid',
      message: 'invalid key',
    });
    expect(await verifyApiKey(store, all.key, 'jobs', clock)).toMatchObject({ ok: true, record: { id: all.id } });
    expect(await verifyApiKey(store, scoped.key, 'books', clock)).toMatchObject({ ok: true });
    expect(await verifyApiKey(store, scoped.key, 'jobs', clock)).toMatchObject({ ok: false, reason: 'scope', record: { id: scoped.id } });
    const revoked = await revokeKey(store, all.id, { now });
    expect(revoked.status).toBe('revoked');
    expect(await verifyApiKey(store, all.key, 'jobs', clock)).toMatchObject({ ok: false, reason: 'invalid' });
    await expect(revokeKey(store, 'k_unknown0')).rejects.toMatchObject({ code: 'KEY_NOT_FOUND' });
  });

  it('rotates with a grace period: both keys work until it ends, then only the new one', async () => {
    const old = await createKey(store, { label: 'staging', scope: ['books'], account: 'acme' }, options());
    const { key: fresh, previous } = await rotateKey(store, old.id, 24 * 3_600_000, options());
    expect(fresh).toMatchObject({ account: 'acme', label: 'staging', scope: ['books'] });
    expect(fresh.id).not.toBe(old.id);
    expect(previous).toMatchObject({ id: old.id, status: 'active', expiresAt: '2026-03-02T12:00:00.000Z' });
    expect((await verifyApiKey(store, old.key, 'books', clock)).ok).toBe(true);
    expect((await verifyApiKey(store, fresh.key, 'books', clock)).ok).toBe(true);
    clock = new Date('2026-03-02T12:00:00.001Z');
    expect(await verifyApiKey(store, old.key, 'books', clock)).toMatchObject({ ok: false, reason: 'invalid' });
    expect((await verifyApiKey(store, fresh.key, 'books', clock)).ok).toBe(true);
    expect(Object.fromEntries((await listKeys(store, { now })).map((k) => [k.id, k.status]))).toEqual({
      [old.id]: 'expired',
      [fresh.id]: 'active',
    });
    await expect(rotateKey(store, old.id, 0, options())).rejects.toMatchObject({ code: 'KEY_INVALID' });
  });

  it('rotates with no grace by revoking the old key at once', async () => {
    const old = await createKey(store, {}, options());
    const { key: fresh, previous } = await rotateKey(store, old.id, 0, options());
    expect(previous.status).toBe('revoked');
    expect((await verifyApiKey(store, old.key, 'books', clock)).ok).toBe(false);
    expect((await verifyApiKey(store, fresh.key, 'books', clock)).ok).toBe(true);
  });

  it('records lastUsedAt at most once a minute per key, not on every request', async () => {
    const created = await createKey(store, {}, options());
    await store.flush();
    writes = 0;
    for (let i = 0; i < 100; i++) expect((await verifyApiKey(store, created.key, 'books', clock)).ok).toBe(true);
    await store.flush();
    expect(writes).toBe(1);
    expect((await store.getKey(created.id))?.lastUsedAt).toBe('2026-03-01T12:00:00.000Z');
    clock = new Date('2026-03-01T12:00:30.000Z');
    await verifyApiKey(store, created.key, 'books', clock);
    await store.flush();
    expect((await store.getKey(created.id))?.lastUsedAt).toBe('2026-03-01T12:00:00.000Z');
    clock = new Date('2026-03-01T12:01:01.000Z');
    await verifyApiKey(store, created.key, 'books', clock);
    await store.flush();
    expect((await store.getKey(created.id))?.lastUsedAt).toBe('2026-03-01T12:01:01.000Z');
  });

  it('lists per-key usage totals and the endpoints a key called', async () => {
    const created = await createKey(store, {}, options());
    const event = { keyId: created.id, account: 'default', milliCredits: 400, outcome: 'MISS' as const, at: clock };
    await store.recordUsage({ ...event, apiId: 'jobs' });
    await store.recordUsage({ ...event, apiId: 'books', outcome: 'HIT' });
    await store.recordUsage({ ...event, apiId: 'books', outcome: 'ERROR', milliCredits: 0 });
    await store.recordUsage({ ...event, apiId: 'other', keyId: 'k_someone' });
    const [view] = await listKeys(store, { now });
    expect(view?.usage).toEqual({ requests: 3, errors: 1, cacheHits: 1, milliCredits: 800 });
    expect(view?.endpoints).toEqual(['books', 'jobs']);
  });
});
