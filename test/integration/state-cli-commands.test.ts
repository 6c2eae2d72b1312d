import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigDir } from '../../src/core/registry/load.js';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import type { StateStore } from '../../src/core/state/types.js';
import { buildAdminApp } from '../../src/daemon/admin.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';

/**
 * The state commands run as the built CLI, once with no daemon (the CLI opens state.json itself) and once
 * against the admin API listening on `<dataDir>/admin.sock` (the daemon's mode): the same assertions hold.
 */
const BOOKS_CONFIG = {
  apiId: 'books',
  url: 'https://shop.example/catalogue/{{ category }}/index.html',
  variables: { category: { example: 'travel' } },
  scraper: 1,
  session: true,
  structure: [{ name: 'title', type: 'string', selector: 'h1' }],
};

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

describe.each(['local', 'daemon'] as const)('state commands (%s mode)', (mode) => {
  let root: string;
  let dataDir: string;
  let store: StateStore | undefined;
  let admin: FastifyInstance | undefined;
  const printedKeys: string[] = [];

  const cli = (...args: string[]) =>
    execa(process.execPath, [CLI_BIN, '--project', root, ...args], {
      cwd: root,
      reject: false,
      env: { NO_COLOR: '1', PAGEJSON_DATA_DIR: '' },
    });
  const json = async (...args: string[]) => {
    const result = await cli(...args, '--json');
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    return JSON.parse(result.stdout);
  };

  beforeAll(async () => {
    await ensureBuilt();
    root = await mkdtemp(join(tmpdir(), 'pagejson-'));
    dataDir = join(root, '.pagejson');
    await writeFile(join(root, 'pagejson.json'), `${JSON.stringify({ credits: { enabled: true, freeCredits: 10 } }, null, 2)}\n`);
    await mkdir(join(root, 'configs'));
    await writeFile(join(root, 'configs/books.json'), `${JSON.stringify(BOOKS_CONFIG, null, 2)}\n`);
    // Usage and runtime status as a daemon would have left them.
    const seed = await createLowdbStore({ file: join(dataDir, 'state.json') });
    const at = new Date();
    await seed.recordUsage({ apiId: 'books', keyId: 'k_seeded00', account: 'default', milliCredits: 400, outcome: 'MISS', at });
    await seed.recordUsage({ apiId: 'books', keyId: 'k_seeded00', account: 'default', milliCredits: 400, outcome: 'HIT', at });
    await seed.setEndpointStatus({ apiId: 'books', lastFetchAt: '2026-01-02T03:04:05.000Z', lastError: null, lastErrorAt: null });
    await seed.close();
    if (mode === 'daemon') {
      store = await createLowdbStore({ file: join(dataDir, 'state.json') });
      const configs = [...(await loadConfigDir(join(root, 'configs'))).configs.values()];
      admin = buildAdminApp({ store, listConfigs: () => configs, settings: { credits: { enabled: true, freeCredits: 10 } } });
      await admin.listen({ path: join(dataDir, 'admin.sock') });
      // As `serve` does: with the lock held by a live process, a CLI that missed the socket fails loudly
      // instead of quietly writing state.json beside us.
      await writeFile(join(dataDir, 'daemon.lock'), `${process.pid}\n`);
    }
    // The first test file to need dist/ builds it, and may wait for another worker's build: minutes on a busy machine.
  }, 300_000);

  afterAll(async () => {
    await admin?.close();
    await store?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('creates keys: --json prints the six fields, human output prints the key alone with a warning', async () => {
    const created = await json('keys', 'create', '--label', 'prod');
    expect(Object.keys(created)).toEqual(['id', 'key', 'account', 'label', 'scope', 'createdAt']);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^k_/),
      key: expect.stringMatching(/^pj_/),
      account: 'default',
      label: 'prod',
      scope: null,
    });
    printedKeys.push(created.key);

    const human = await cli('keys', 'create', '--scope', 'books', '--account', 'acme');
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/^pj_[0-9A-Za-z]+$/);
    expect(human.stderr).toContain('shown only once');
    printedKeys.push(human.stdout);

    if (store) expect((await store.listKeys()).length).toBe(2);
  });

  it('lists keys without the key, with status, scope and usage columns', async () => {
    const list = await json('keys', 'list');
    expect(list).toHaveLength(2);
    expect(JSON.stringify(list)).not.toMatch(/pj_/);
    expect(list.map((k: { account: string; scope: string[] | null; status: string }) => [k.account, k.scope, k.status])).toEqual([
      ['default', null, 'active'],
      ['acme', ['books'], 'active'],
    ]);
    const human = await cli('keys', 'list');
    expect(human.stdout).toContain('last used');
    expect(human.stdout).toContain('acme');
  });

  it('rotates with a grace period and revokes', async () => {
    const [first, second] = await json('keys', 'list');
    const rotated = await json('keys', 'rotate', first.id, '--grace', '24h');
    expect(rotated).toMatchObject({
      key: expect.stringMatching(/^pj_/),
      account: 'default',
      label: 'prod',
      rotated: { id: first.id, status: 'active', expiresAt: expect.any(String) },
    });
    printedKeys.push(rotated.key);
    const hours = (Date.parse(rotated.rotated.expiresAt) - Date.parse(rotated.createdAt)) / 3_600_000;
    expect(Math.round(hours)).toBe(24);

    const revoked = await cli('keys', 'revoke', second.id);
    expect(revoked.exitCode).toBe(0);
    expect(revoked.stdout.trim()).toBe(`revoked key ${second.id}`);
    const statuses = Object.fromEntries((await json('keys', 'list')).map((k: { id: string; status: string }) => [k.id, k.status]));
    expect(statuses).toEqual({ [first.id]: 'active', [second.id]: 'revoked', [rotated.id]: 'active' });

    const missing = await cli('keys', 'revoke', 'k_nothing0');
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no key with id k_nothing0');
    const badGrace = await cli('keys', 'rotate', first.id, '--grace', 'soon');
    expect(badGrace.exitCode).toBe(2);
    expect(badGrace.stderr).toContain('--grace');
  });

  it('shows and grants credits in decimal credits', async () => {
    expect(await json('credits')).toEqual({ account: 'default', balance: 10 });
    const granted = await cli('credits', 'grant', '2.5');
    expect(granted.exitCode).toBe(0);
    expect(granted.stdout).toContain('balance 12.5 credits');
    expect(await json('credits')).toEqual({ account: 'default', balance: 12.5 });
    expect(await json('credits', '--account', 'acme')).toEqual({ account: 'acme', balance: 10 });
    await cli('credits', 'grant', '0.35', '--account', 'acme');
    expect((await cli('credits', '--account', 'acme')).stdout.trim()).toBe('acme: 10.35 credits');
    const bad = await cli('credits', 'grant', 'lots');
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('credits must be a positive number');
  });

  it('loses no grant when commands run side by side', async () => {
    const runs = await Promise.all(Array.from({ length: 4 }, () => cli('credits', 'grant', '1', '--account', 'parallel')));
    expect(runs.map((r) => r.exitCode)).toEqual([0, 0, 0, 0]);
    expect(await json('credits', '--account', 'parallel')).toEqual({ account: 'parallel', balance: 14 });
  });

  it('reports usage aggregates, filtered by endpoint, key and days', async () => {
    const rows = await json('usage', '--api', 'books');
    expect(rows).toEqual([
      {
        day: expect.any(String),
        apiId: 'books',
        keyId: 'k_seeded00',
        keyLabel: null,
        requests: 2,
        errors: 0,
        cacheHits: 1,
        milliCredits: 800,
        promptTokens: 0,
        completionTokens: 0,
        credits: 0.8,
      },
    ]);
    // A key id that names no key is an argument naming nothing (exit 2, README), not an empty result.
    const unknownKey = await cli('usage', '--key', 'k_other000', '--json');
    expect(unknownKey.exitCode).toBe(2);
    expect(unknownKey.stderr).toContain('no key with id "k_other000"');
    const human = await cli('usage', '--days', '1');
    expect(human.stdout).toContain('total');
    expect((await cli('usage', '--days', 'zero')).exitCode).toBe(2);
  });

  it('shows the status dashboard of every endpoint', async () => {
    const status = await json('status');
    expect(status.daemon).toBe(mode === 'daemon');
    expect(status.endpoints).toEqual([
      {
        apiId: 'books',
        status: 'active',
        sourceUrl: BOOKS_CONFIG.url,
        scraper: 1,
        scraperName: 'http',
        caching: true,
        session: true,
        dynamic: true,
        variables: ['category'],
        lastFetchAt: '2026-01-02T03:04:05.000Z',
        lastError: null,
        lastErrorAt: null,
        // No extraction has run in this test: no health yet, no repair.
        health: null,
        failingFields: [],
        healthSince: null,
        findings: [],
        repair: null,
        // No schedule in this config: no monitors.
        monitors: [],
        usage: { requests: 2, errors: 0, cacheHits: 1, milliCredits: 800, promptTokens: 0, completionTokens: 0, credits: 0.8 },
      },
    ]);
    const human = await cli('status');
    expect(human.stdout).toContain(mode === 'daemon' ? 'daemon: running' : 'daemon: not running');
    expect(human.stdout).toContain('use session');
  });

  it('never writes a plaintext key into the data dir', async () => {
    await store?.flush();
    expect(printedKeys).toHaveLength(3);
    const files = await filesUnder(dataDir);
    expect(files.some((f) => f.endsWith('state.json'))).toBe(true);
    for (const file of files) {
      if (file.endsWith('.sock') || file.endsWith('daemon.lock')) continue;
      const text = await readFile(file, 'utf8');
      for (const key of printedKeys) expect(text.includes(key), `${file} holds a key`).toBe(false);
    }
  });
});
