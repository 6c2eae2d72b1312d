import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import lockfile from 'proper-lockfile';
import type { FastifyInstance } from 'fastify';
import { execa } from 'execa';
import { projectFromSettings, type Project } from '../../src/core/config/project.js';
import { ApiConfigSchema, ProjectSettingsSchema } from '../../src/core/config/schema.js';
import { verifyApiKey } from '../../src/core/access/key-service.js';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import type { StateStore } from '../../src/core/state/types.js';
import {
  adminSocketPath,
  connectAdminSocket,
  openLocalStateClient,
  openStateClient,
  type StateClient,
} from '../../src/cli/state-client.js';
import { buildAdminApp } from '../../src/daemon/admin.js';

const configs = [
  ApiConfigSchema.parse({
    apiId: 'jobs',
    url: 'https://jobs.example/list?page={{ page }}',
    variables: { page: { example: '1' } },
    scraper: 3,
    caching: false,
    structure: [{ name: 'title', type: 'string', selector: 'h1' }],
  }),
  ApiConfigSchema.parse({
    apiId: 'books',
    url: 'https://shop.example/books',
    session: true,
    structure: [{ name: 'title', type: 'string', selector: 'h1' }],
  }),
];

describe('admin API over a unix socket', () => {
  let dir: string;
  let project: Project;
  let store: StateStore;
  let app: FastifyInstance;
  let client: StateClient;
  const changes: Array<[string, number]> = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pagejson-'));
    project = projectFromSettings(dir, ProjectSettingsSchema.parse({ credits: { freeCredits: 1 } }));
    await mkdir(project.dataDir, { recursive: true });
    store = await createLowdbStore({ file: join(project.dataDir, 'state.json') });
    app = buildAdminApp({
      store,
      listConfigs: () => configs,
      settings: project.settings,
      onCreditsChanged: (a, m) => changes.push([a, m]),
    });
    await app.listen({ path: adminSocketPath(project.dataDir) });
    const connected = await connectAdminSocket(adminSocketPath(project.dataDir), 20_000);
    if (!connected) throw new Error('admin socket did not answer');
    client = connected;
  });
  afterEach(async () => {
    await client.close();
    await app.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates, lists, rotates and revokes keys in the daemon store', async () => {
    expect(client.mode).toBe('daemon');
    const created = await client.createKey({ label: 'prod', scope: ['books'] });
    expect(created).toMatchObject({ key: expect.stringMatching(/^pj_/), account: 'default', label: 'prod', scope: ['books'] });
    // The daemon's own store sees the key at once: no restart, no second writer.
    expect((await verifyApiKey(store, created.key, 'books')).ok).toBe(true);
    const listed = await client.listKeys();
    expect(listed.map((k) => k.id)).toEqual([created.id]);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    const rotated = await client.rotateKey(created.id, 3_600_000);
    expect(rotated.previous).toMatchObject({ id: created.id, status: 'active', expiresAt: expect.any(String) });
    expect((await client.revokeKey(rotated.key.id)).status).toBe('revoked');
    expect((await verifyApiKey(store, rotated.key.key, 'books')).ok).toBe(false);
  });

  it('carries typed errors across the socket', async () => {
    await expect(client.revokeKey('k_missing0')).rejects.toMatchObject({
      code: 'KEY_NOT_FOUND',
      hint: expect.stringContaining('keys list'),
    });
    await expect(client.createKey({ account: 'bad name' })).rejects.toMatchObject({ code: 'USAGE' });
    await expect(client.grantCredits(undefined, -1)).rejects.toMatchObject({ code: 'USAGE' });
    await expect(client.charge(undefined, 5_000)).rejects.toMatchObject({
      code: 'NO_CREDITS',
      message: 'No credits left ⚠. Please buy more credits',
    });
    const raw = await app.inject({ method: 'POST', url: '/keys', payload: '[1]', headers: { 'content-type': 'application/json' } });
    expect(raw.statusCode).toBe(400);
    expect(raw.json()).toMatchObject({ error: { code: 'USAGE' } });
    expect((await app.inject({ method: 'GET', url: '/nothing' })).statusCode).toBe(404);
  });

  it('reads, grants and charges credits and reports the change', async () => {
    expect(await client.credits()).toEqual({ account: 'default', milliCredits: 1_000 });
    expect(await client.grantCredits('acme', 2_000)).toEqual({ account: 'acme', milliCredits: 3_000 });
    expect(await client.charge('acme', 350)).toEqual({ account: 'acme', milliCredits: 2_650 });
    expect(changes.slice(-2)).toEqual([
      ['acme', 3_000],
      ['acme', 2_650],
    ]);
    expect((await store.getAccount('acme'))?.balance).toBe(2_650);
  });

  it('answers usage queries and the status dashboard of every config', async () => {
    await store.recordUsage({ apiId: 'books', keyId: 'k_a', account: 'default', milliCredits: 400, outcome: 'HIT', at: new Date() });
    await store.recordUsage({ apiId: 'jobs', keyId: 'k_b', account: 'default', milliCredits: 500, outcome: 'MISS', at: new Date() });
    await store.setEndpointStatus({ apiId: 'jobs', lastFetchAt: '2026-01-01T00:00:00.000Z', lastError: null, lastErrorAt: null });
    expect((await client.usage({ apiId: 'books', days: 1 })).map((r) => [r.apiId, r.keyId, r.cacheHits])).toEqual([['books', 'k_a', 1]]);
    expect(await client.usage({ keyId: 'k_nobody00' })).toEqual([]);
    // An id that is not one is refused before any lookup.
    await expect(client.usage({ keyId: '__proto__' })).rejects.toMatchObject({ code: 'USAGE' });
    const status = await client.status();
    expect(status.map((s) => s.apiId)).toEqual(['books', 'jobs']);
    expect(status[0]).toMatchObject({
      status: 'active',
      sourceUrl: 'https://shop.example/books',
      scraper: 1,
      scraperName: 'http',
      caching: true,
      session: true,
      dynamic: false,
      lastFetchAt: null,
      usage: { requests: 1, milliCredits: 400 },
    });
    expect(status[1]).toMatchObject({
      scraper: 3,
      scraperName: 'browser',
      caching: false,
      dynamic: true,
      variables: ['page'],
      lastFetchAt: '2026-01-01T00:00:00.000Z',
      usage: { requests: 1, milliCredits: 500 },
    });
  });
});

describe('state client fallback', () => {
  let dir: string;
  let project: Project;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pagejson-'));
    project = projectFromSettings(dir, ProjectSettingsSchema.parse({}));
    await mkdir(project.dataDir, { recursive: true });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens the store itself when no socket exists, and when the socket is stale', async () => {
    const local = await openStateClient(project);
    expect(local.mode).toBe('local');
    await local.grantCredits(undefined, 1_000);
    await local.close();

    // A socket file left behind by a killed daemon: a process listened on it and died by SIGKILL.
    const stalePath = adminSocketPath(project.dataDir);
    const listener = execa(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(stalePath)}, () => console.log('up'))`,
    ]);
    await new Promise<void>((resolve) => listener.stdout?.once('data', () => resolve()));
    listener.kill('SIGKILL');
    await listener.catch(() => undefined);
    expect(existsSync(stalePath)).toBe(true);
    const fallback = await openStateClient(project, { probeTimeoutMs: 500 });
    expect(fallback.mode).toBe('local');
    expect(await fallback.credits()).toEqual({ account: 'default', milliCredits: 101_000 });
    await fallback.close();
  });

  it('serialises local clients: a second one waits for the first to close and then sees its changes', async () => {
    const first = await openLocalStateClient(project);
    // Every try at state.lock, settled or not: the second's refused tries are what the test waits for.
    const tries = vi.spyOn(lockfile, 'lock');
    let secondOpened = false;
    const second = openLocalStateClient(project).then((client) => {
      secondOpened = true;
      return client;
    });
    await first.grantCredits(undefined, 5_000);
    const refused = () => tries.mock.settledResults.filter((result) => result.type === 'rejected').length;
    await vi.waitFor(() => expect(refused()).toBeGreaterThanOrEqual(5), { timeout: 15_000, interval: 10 });
    // However long we wait, the second cannot open while the first holds state.lock.
    expect(secondOpened).toBe(false);
    await first.close();
    const client = await second;
    tries.mockRestore();
    expect(await client.credits()).toEqual({ account: 'default', milliCredits: 105_000 });
    await client.close();
    await expect(openLocalStateClient(project).then((c) => c.close())).resolves.toBeUndefined();
  });

  it('gives up with STATE_LOCKED when another command holds the state too long', async () => {
    const holder = await openLocalStateClient(project);
    await expect(openLocalStateClient(project, { lockWaitMs: 100 })).rejects.toMatchObject({ code: 'STATE_LOCKED' });
    await holder.close();
  });

  it('refuses to open the store beside a live daemon whose socket does not answer', async () => {
    await writeFile(join(project.dataDir, 'daemon.lock'), `${process.ppid}\n`);
    await expect(openStateClient(project, { probeTimeoutMs: 200 })).rejects.toMatchObject({ code: 'DAEMON_UNREACHABLE' });
  });
});
