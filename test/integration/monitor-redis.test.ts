import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSchedule } from '../../src/core/config/schedule.js';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { elapseRedisExpiries, skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { jobsConfig } from '../support/site-routes/watch.js';
import { startWebhookReceiver, TEST_SECRET, type WebhookReceiver } from '../support/webhook-receiver.js';
import { makeProject, type TempProject } from './daemon-support.js';

/**
 * Two daemon runtimes on one real redis-server, sharing a controllable clock: every slot of a monitor runs
 * once across both (one source fetch, one event), and a slot whose holder died is taken over by the other.
 */
const skip = skipRedisTests();
let redis: RedisServer;
let site: FixtureSite;
let receiver: WebhookReceiver;
let temp: TempProject;
let daemons: Runtime[] = [];
let clock = Date.parse('2026-03-02T10:00:00.000Z');

describe.skipIf(skip)('monitors across daemons on Redis', () => {
  beforeAll(async () => {
    [redis, site, receiver] = await Promise.all([startRedisServer(), startFixtureSite(), startWebhookReceiver()]);
    temp = await makeProject([jobsConfig(site.origin)], { heal: 'off', webhooks: [{ url: receiver.url, secretEnv: 'HOOK_SECRET' }] });
    const open = () =>
      createRuntime(temp.project, { watch: false, redisUrl: redis.url, now: () => new Date(clock), env: { HOOK_SECRET: TEST_SECRET } });
    daemons = [await open(), await open(), await open()];
  });
  afterAll(async () => {
    await Promise.all(daemons.map((daemon) => daemon.close()));
    await temp?.cleanup();
    await Promise.all([redis?.stop(), site?.close(), receiver?.close()]);
  });

  it('runs each slot once across three daemons, with one fetch and one data.changed per change', async () => {
    site.resetHits();
    const ranPerSlot: number[] = [];
    for (let slot = 0; slot < 4; slot += 1) {
      if (slot === 2) site.state.set('jobs', JSON.stringify([{ id: 'j9', title: 'Welder', pay: '30' }]));
      const [view] = await daemons[0]!.watch.monitors.list();
      clock = Date.parse(view!.nextRunAt);
      const outcomes = (await Promise.all(daemons.map((daemon) => daemon.watch.monitors.tick()))).flat();
      ranPerSlot.push(outcomes.length);
    }
    expect(ranPerSlot).toEqual([1, 1, 1, 1]);
    expect(site.hitCount('/watch/jobs')).toBe(4);
    await Promise.all(daemons.map((daemon) => daemon.watch.deliveries.drain()));
    expect(receiver.accepted.map((event) => event.type)).toEqual(['data.changed']);
    // Every daemon sees the same history: it is in Redis.
    expect((await daemons[2]!.watch.monitors.history('jobs', 5)).map((entry) => entry.kind)).toEqual(['data.changed']);
  });

  it('takes over a slot whose daemon died holding it, once its lease runs out', async () => {
    const [view] = await daemons[0]!.watch.monitors.list();
    clock = Date.parse(view!.nextRunAt);
    // A daemon took this slot and died before finishing it: its lease is left to run out.
    const current = parseSchedule('15m', 'jobs').current(clock)!;
    expect(await daemons[0]!.watch.store.acquireLease(`jobs@${current.id}`, 'a-daemon-that-died', 60_000)).toBe(true);
    expect(await daemons[1]!.watch.monitors.tick()).toEqual([]);
    // The lease lives in Redis, on Redis's clock: its time to live runs out as if a minute had passed.
    await elapseRedisExpiries(redis.url, `*mon:lease:jobs@${current.id}`, 60_000);
    const taken = await daemons[1]!.watch.monitors.tick();
    expect(taken).toMatchObject([{ monitorId: 'jobs', slot: current.id, outcome: 'ok' }]);
    expect(await daemons[2]!.watch.monitors.tick()).toEqual([]);
  });
});
