import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../../src/core/access/key-service.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { connectAdminSocket } from '../../src/cli/state-client.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, pageConfig, spawnServe, type TempProject } from './daemon-support.js';

/**
 * Several daemons sharing one real redis-server (docs/redis.md): one balance that a burst split
 * across them spends exactly, keys valid everywhere at once, no daemon.lock single-writer rule, and the CLI
 * (`serve --redis`, state commands with PAGEJSON_REDIS_URL) on the same shared state.
 */
const skip = skipRedisTests();
const COST = 400;
const PAID = 20;
let redis: RedisServer;
let site: FixtureSite;
let temp: TempProject;
let first: RunningServer;
let second: RunningServer;

async function get(server: { url: string }, apiId: string, key: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${server.url}/external/${apiId}`, { headers: { apikey: key } });
  return { status: response.status, body: await response.text() };
}

describe.skipIf(skip)('daemons sharing Redis', () => {
  beforeAll(async () => {
    [redis, site] = await Promise.all([startRedisServer(), startFixtureSite()]);
    temp = await makeProject(
      [
        pageConfig('slow', `${site.origin}/daemon/slow?ms=20`, { caching: false }),
        pageConfig('echo', `${site.origin}/daemon/echo?name=shared`),
      ],
      { credits: { freeCredits: (PAID * COST) / 1000 } },
    );
    // Both on the same data dir: with Redis the second one starts instead of failing on daemon.lock.
    const options = {
      project: temp.project,
      host: '127.0.0.1',
      port: 0,
      watch: false,
      app: { logger: false as const },
      runtime: { redisUrl: redis.url },
    };
    first = await startServer(options);
    second = await startServer(options);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await Promise.all([redis?.stop(), site?.close(), temp?.cleanup()]);
  });

  it('runs both on one data dir: the first holds the lock and admin socket, both keep state in Redis', () => {
    expect(first.runtime.store.name).toBe('redis');
    expect(second.runtime.store.name).toBe('redis');
    expect(first.admin).toBeDefined();
    expect(second.admin).toBeUndefined();
    expect(existsSync(first.socketPath)).toBe(true);
    expect(existsSync(`${temp.project.dataDir}/state.json`)).toBe(false);
    expect(existsSync(`${temp.project.dataDir}/cache.sqlite`)).toBe(false);
  });

  it('spends one shared balance exactly: a burst split across both daemons gets exactly the paid number of 200s', async () => {
    const admin = (await connectAdminSocket(first.socketPath))!;
    try {
      const created = await admin.createKey({ account: 'burst', label: 'load', scope: null });
      const answers = await Promise.all(Array.from({ length: PAID * 3 }, (_, i) => get(i % 2 === 0 ? first : second, 'slow', created.key)));
      const counts: Record<number, number> = {};
      for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
      expect(counts).toEqual({ 200: PAID, 402: PAID * 2 });
      expect(
        answers.filter((a) => a.status === 200).every((a) => a.body === '{"data":{"title":"Slow page","kind":"slow"},"errors":null}'),
      ).toBe(true);
      // Each daemon alone got 30 requests: with a balance of its own each would have paid 20 (40 in all).
      // The one balance is exactly zero, seen from either daemon and from the admin socket.
      expect((await first.runtime.store.getAccount('burst'))?.balance).toBe(0);
      expect((await second.runtime.store.getAccount('burst'))?.balance).toBe(0);
      expect((await admin.credits('burst')).milliCredits).toBe(0);
      // Usage counters are buffered for a second in each daemon: hand them over before reading.
      await Promise.all([first.runtime.retrieval.flushUsage(), second.runtime.retrieval.flushUsage()]);
      const usage = await second.runtime.store.usage({ keyId: created.id });
      expect(usage.reduce((sum, row) => sum + row.milliCredits, 0)).toBe(PAID * COST);
    } finally {
      await admin.close();
    }
  });

  it('accepts a key created through one daemon at the other, and refuses it at both once revoked through the other', async () => {
    const admin = (await connectAdminSocket(first.socketPath))!;
    try {
      const created = await admin.createKey({ account: 'keys', label: null, scope: ['echo'] });
      expect(await get(second, 'echo', created.key)).toEqual({
        status: 200,
        body: '{"data":{"title":"shared","kind":"echo"},"errors":null}',
      });
      expect((await get(second, 'slow', created.key)).status).toBe(404);
      await revokeKey(second.runtime.store, created.id);
      for (const server of [first, second]) {
        expect(await get(server, 'echo', created.key)).toEqual({
          status: 401,
          body: '{"data":null,"errors":[{"message":"invalid key","code":"KEY_INVALID"}]}',
        });
      }
    } finally {
      await admin.close();
    }
  });
});

describe.skipIf(skip)('the CLI with Redis', () => {
  beforeAll(async () => {
    await ensureBuilt();
    [redis, site] = await Promise.all([startRedisServer(), startFixtureSite()]);
    temp = await makeProject([pageConfig('echo', `${site.origin}/daemon/echo?name=cli`)]);
  });
  afterAll(async () => {
    await Promise.all([redis?.stop(), site?.close(), temp?.cleanup()]);
  });

  it('creates a key with PAGEJSON_REDIS_URL that `serve --redis` accepts, and reports Redis in status', async () => {
    const env = { PAGEJSON_REDIS_URL: redis.url, NO_COLOR: '1' };
    const run = (args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, env, reject: false });
    const created = await run(['keys', 'create', '--json', '--label', 'shared']);
    expect(created.exitCode).toBe(0);
    const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };

    const serve = await spawnServe(temp.root, ['--redis', redis.url]);
    try {
      expect(await get(serve, 'echo', key)).toEqual({ status: 200, body: '{"data":{"title":"cli","kind":"echo"},"errors":null}' });
      // The CLI reads the daemon's debit straight from Redis, without going through the daemon.
      const credits = await run(['credits', '--json']);
      expect(JSON.parse(credits.stdout)).toMatchObject({ account: 'default', balance: 99.6 });
      const keys = await run(['keys', 'list', '--json']);
      expect(JSON.parse(keys.stdout)).toMatchObject([{ id, label: 'shared' }]);
    } finally {
      serve.child.kill('SIGTERM');
      expect((await serve.child).exitCode).toBe(0);
    }
    // The daemon handed its buffered usage counters to Redis when it stopped.
    const status = await run(['status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      state: 'redis',
      endpoints: [{ apiId: 'echo', usage: { requests: 1, milliCredits: 400 } }],
    });
    const human = await run(['status']);
    expect(human.stdout).toContain(`state: Redis at ${redis.url}`);
    // Nothing was written to the embedded store: the state lives in Redis only.
    expect(existsSync(`${temp.project.dataDir}/state.json`)).toBe(false);
  });
});
