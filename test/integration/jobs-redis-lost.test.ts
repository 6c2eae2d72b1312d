import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * A process taking job items from Redis whose Redis goes away (issue 50): its event loop goes on (timers fire,
 * so a daemon still answers and its deadlines still end requests) and close() returns, so the daemon stops.
 * Before BullMQ had its own ioredis connection, the worker's loop retried a failed command without a pause: no
 * timer fired again and close() never returned (a CI run hung on it). A starved event loop cannot time itself
 * out, so the worker runs in a child process, bounded from here.
 */
const skip = skipRedisTests();
let redis: RedisServer;

beforeAll(async () => {
  if (skip) return;
  await ensureBuilt();
  redis = await startRedisServer();
}, 300_000);

afterAll(async () => {
  await redis?.stop().catch(() => undefined);
});

const child = (serviceModule: string) => `
  const { createRedisJobService } = await import(${JSON.stringify(serviceModule)});
  const service = await createRedisJobService({
    redisUrl: process.env.REDIS_URL, concurrency: 2, lockMs: 5000, itemTimeoutMs: 5000, now: () => new Date(),
    retrieverFor: () => async () => ({ data: {}, health: null, fetchedAt: null }),
  });
  console.log('taking items');
  // Wait for the parent to stop Redis, then ten turns of the timer queue: a loop that never yields starves them.
  await new Promise((resolve) => process.stdin.once('data', resolve));
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 50));
  console.log('timers fired');
  await service.close();
  console.log('closed');
  process.exit(0);
`;

it.skipIf(skip)(
  'keeps the event loop turning and closes after its Redis went away',
  async () => {
    const serviceModule = pathToFileURL(join(REPO_ROOT, 'dist/src/core/jobs/redis-job-service.js')).href;
    const worker = execa(process.execPath, ['--input-type=module', '-e', child(serviceModule)], {
      env: { REDIS_URL: redis.url },
      reject: false,
      timeout: 25_000,
    });
    await new Promise<void>((resolve) => worker.stdout!.on('data', (chunk: Buffer) => String(chunk).includes('taking items') && resolve()));
    await redis.stop();
    worker.stdin!.write('go\n');
    const result = await worker;
    expect(result.timedOut).toBe(false);
    expect(result.stdout.split('\n')).toEqual(['taking items', 'timers fired', 'closed']);
    expect(result.exitCode).toBe(0);
  },
  60_000,
);
