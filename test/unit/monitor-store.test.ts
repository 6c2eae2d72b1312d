import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { createEmbeddedMonitorStore } from '../../src/core/monitor/embedded-store.js';
import { createRedisMonitorStore } from '../../src/core/monitor/redis-store.js';
import type { MonitorStore } from '../../src/core/monitor/store.js';
import { runMonitorStoreContract } from '../contract/monitor-store.contract.js';
import { skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';

/** Both MonitorStore drivers against the same contract: a real file in a temp dir, a real redis-server. */
runMonitorStoreContract('embedded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-monitors-'));
  const file = join(dir, 'monitors.json');
  let current: MonitorStore = await createEmbeddedMonitorStore({ file });
  return {
    store: current,
    async reopen() {
      await current.close();
      current = await createEmbeddedMonitorStore({ file });
      return current;
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
      async cleanup() {
        await Promise.all(opened.map((store) => store.close()));
      },
    };
  });
});
