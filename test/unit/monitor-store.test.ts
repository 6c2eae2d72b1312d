import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { createEmbeddedMonitorStore } from '../../src/core/monitor/embedded-store.js';
import { createRedisMonitorStore } from '../../src/core/monitor/redis-store.js';
import type { MonitorStore } from '../../src/core/monitor/store.js';
import { runMonitorStoreContract } from '../contract/monitor-store.contract.js';
import { elapseRedisExpiries, skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * Both MonitorStore drivers against the same contract: a real file in a temp dir, a real redis-server. Lease
 * expiry runs on a clock of the test's (embedded: an injected `now`; Redis: TTLs shortened as waiting would).
 */
runMonitorStoreContract('embedded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-monitors-'));
  const file = join(dir, 'monitors.json');
  let clock = Date.parse('2026-03-02T10:00:00.000Z');
  const now = () => clock;
  let current: MonitorStore = await createEmbeddedMonitorStore({ file, now });
  return {
    store: current,
    async reopen() {
      await current.close();
      current = await createEmbeddedMonitorStore({ file, now });
      return current;
    },
    async elapse(ms) {
      clock += ms;
    },
    async cleanup() {
      await current.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

const skip = skipRedisTests();
let server: RedisServer;
let prefixes = 0;
describe.skipIf(skip)('Redis monitor store', () => {
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  runMonitorStoreContract('redis', async () => {
    const prefix = `m${++prefixes}:`;
    const opened: MonitorStore[] = [await createRedisMonitorStore({ url: server.url, prefix })];
    return {
      store: opened[0]!,
      async reopen() {
        const next = await createRedisMonitorStore({ url: server.url, prefix });
        opened.push(next);
        return next;
      },
      elapse: (ms) => elapseRedisExpiries(server.url, `${prefix}*`, ms),
      async cleanup() {
        await Promise.all(opened.map((store) => store.close()));
      },
    };
  });
});
