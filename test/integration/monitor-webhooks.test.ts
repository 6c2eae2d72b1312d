import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { DEFAULT_JOBS, jobsConfig } from '../support/site-routes/watch.js';
import { startWebhookReceiver, TEST_SECRET, type WebhookReceiver } from '../support/webhook-receiver.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Monitors and webhooks in one daemon runtime, on a controllable clock: the test sets the time and calls
 * tick() (what the daemon's timer calls) and drain() (what its outbox poll calls), so schedules and retries
 * are tested without waiting. The fixture page changes between runs; a receiver on 127.0.0.1 verifies every
 * signature with the Standard Webhooks reference implementation.
 */
let site: FixtureSite;
let receiver: WebhookReceiver;
let temp: TempProject | undefined;
let runtime: Runtime | undefined;
let clock = Date.parse('2026-03-02T10:00:00.000Z');

beforeAll(async () => {
  site = await startFixtureSite();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await site.close();
});
afterEach(async () => {
  await runtime?.close();
  await temp?.cleanup();
  runtime = undefined;
  temp = undefined;
  site.state.delete('jobs');
  receiver.accepted.length = 0;
  receiver.attempts.length = 0;
  receiver.failNext(0);
});

async function start(): Promise<Runtime> {
  temp = await makeProject([jobsConfig(site.origin)], {
    heal: 'off',
    webhooks: [{ url: receiver.url, secretEnv: 'HOOK_SECRET' }],
    webhookDelivery: { firstRetrySeconds: 1 },
  });
  runtime = await createRuntime(temp.project, {
    watch: false,
    memoryCacheOnly: true,
    now: () => new Date(clock),
    env: { HOOK_SECRET: TEST_SECRET },
  });
  return runtime;
}

/** Moves the clock to the monitor's next slot and runs what is due there. */
async function nextSlot(rt: Runtime) {
  const [view] = await rt.watch.monitors.list();
  clock = Date.parse(view!.nextRunAt);
  return rt.watch.monitors.tick();
}

const setJobs = (jobs: typeof DEFAULT_JOBS) => site.state.set('jobs', JSON.stringify(jobs));

describe('monitors', () => {
  it('runs each slot once, keeps the cache warm, and sends exactly one data.changed with the diff', async () => {
    const rt = await start();
    site.resetHits();
    const first = await nextSlot(rt);
    expect(first).toMatchObject([{ monitorId: 'jobs', outcome: 'ok', changed: false }]);
    // The same slot again, in this daemon: nothing runs.
    expect(await rt.watch.monitors.tick()).toEqual([]);
    expect(site.hitCount('/watch/jobs')).toBe(1);

    setJobs([
      { id: 'j2', title: 'Baker', pay: '23' },
      { id: 'j3', title: 'Driver', pay: '19' },
    ]);
    const second = await nextSlot(rt);
    expect(second[0]).toMatchObject({ outcome: 'ok', changed: true });
    const third = await nextSlot(rt);
    expect(third[0]).toMatchObject({ outcome: 'ok', changed: false });
    await rt.watch.deliveries.drain();

    const changed = receiver.accepted.filter((event) => event.type === 'data.changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]!.data).toMatchObject({
      apiId: 'jobs',
      changes: {
        added: [{ path: 'jobs', key: 'url=/jobs/j3', item: { url: '/jobs/j3', title: 'Driver', pay: 19 } }],
        removed: [{ path: 'jobs', key: 'url=/jobs/j1', item: { url: '/jobs/j1', title: 'Line cook', pay: 18 } }],
        changed: [{ path: 'jobs[url=/jobs/j2].pay', from: 21, to: 23 }],
      },
      data: {
        jobs: [
          { url: '/jobs/j2', title: 'Baker', pay: 23 },
          { url: '/jobs/j3', title: 'Driver', pay: 19 },
        ],
      },
    });
    // The history keeps the diff; the scheduled run filled the cache a request would read.
    const history = await rt.watch.monitors.history('jobs', 10);
    expect(history.map((entry) => entry.kind)).toEqual(['data.changed']);
    expect(history[0]!.diff!.changed).toEqual([{ path: 'jobs[url=/jobs/j2].pay', from: 21, to: 23 }]);
    expect(site.hitCount('/watch/jobs')).toBe(3);
    const { key } = await issueKey(rt.store);
    const answer = await rt.retrieval.retrieve({ apiId: 'jobs', apikey: key, method: 'GET', body: undefined, query: {} });
    expect(answer.cache).toBe('HIT');
    expect(JSON.parse(answer.body).data.jobs).toHaveLength(2);
    expect(site.hitCount('/watch/jobs')).toBe(3);
  });

  it('sends endpoint.broken when the page breaks and endpoint.recovered when it comes back', async () => {
    const rt = await start();
    await nextSlot(rt);
    site.state.set('jobs', 'maintenance');
    expect((await nextSlot(rt))[0]).toMatchObject({ outcome: 'broken' });
    expect((await nextSlot(rt))[0]).toMatchObject({ outcome: 'broken' });
    site.state.delete('jobs');
    expect((await nextSlot(rt))[0]).toMatchObject({ outcome: 'ok', changed: false });
    await rt.watch.deliveries.drain();
    expect(receiver.accepted.map((event) => event.type)).toEqual(['endpoint.broken', 'endpoint.recovered']);
    expect(receiver.accepted[0]!.data).toMatchObject({ apiId: 'jobs', health: 'broken', previous: 'healthy' });
    expect((await rt.watch.monitors.list())[0]).toMatchObject({ lastOutcome: 'ok', every: '15m' });
  });

  it('retries a failing receiver with backoff and delivers the event once', async () => {
    const rt = await start();
    await nextSlot(rt);
    setJobs([DEFAULT_JOBS[0]!]);
    receiver.failNext(5);
    await nextSlot(rt);
    await rt.watch.deliveries.drain();
    // Each retry waits twice as long as the one before (1 s first): nothing is attempted before it is due.
    for (const wait of [1, 2, 4, 8, 16]) {
      clock += wait * 1000 - 1;
      await rt.watch.deliveries.drain();
      clock += 1;
      await rt.watch.deliveries.drain();
    }
    await rt.watch.deliveries.drain();
    const id = receiver.attempts[0]!.id;
    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503, 503, 503, 200]);
    expect(receiver.attempts.every((attempt) => attempt.id === id)).toBe(true);
    expect(receiver.accepted).toHaveLength(1);
    const [delivery] = await rt.watch.store.deliveries(10);
    expect(delivery).toMatchObject({ id, status: 'delivered', attempts: 6 });
  });

  it("tells subscribers when the daemon's repair proposes a fix for a redesigned page", async () => {
    const url = `${site.origin}/drift/shop`;
    temp = await makeProject(
      [
        {
          apiId: 'shop',
          url,
          structure: [
            { name: 'title', type: 'string', selector: 'h1.shop-title' },
            {
              name: 'books',
              type: 'array',
              selector: 'article.book',
              fields: [
                { name: 'title', type: 'string', selector: '.book-title a' },
                { name: 'price', type: 'number', selector: '.book-price', transform: ['number'] },
              ],
            },
          ],
          generated: {
            at: '2026-11-01T00:00:00Z',
            model: 'heuristic',
            scraper: 1,
            sample: {
              title: 'Books',
              books: [
                { title: 'A Light in the Attic', price: 51.77 },
                { title: 'Tipping the Velvet', price: 53.74 },
              ],
            },
          },
        },
      ],
      { heal: 'propose', webhooks: [{ url: receiver.url, secretEnv: 'HOOK_SECRET', events: ['heal.proposed', 'endpoint.broken'] }] },
    );
    const running = await createRuntime(temp.project, {
      watch: false,
      memoryCacheOnly: true,
      now: () => new Date(clock),
      env: { HOOK_SECRET: TEST_SECRET },
    });
    runtime = running;
    site.state.set('drift', '2');
    try {
      const refreshed = await running.retrieval.refresh(running.configs.get('shop')!, {});
      expect(refreshed).toMatchObject({ ok: false, health: 'broken' });
      await running.repairs.idle();
      // Both events are published by work the refresh left running (health seen, repair proposed): send what is
      // in the outbox until both have arrived.
      await vi.waitFor(
        async () => {
          await running.watch.deliveries.drain();
          expect(receiver.accepted.length).toBeGreaterThanOrEqual(2);
        },
        { timeout: 10_000, interval: 20 },
      );
    } finally {
      site.state.delete('drift');
    }
    expect(receiver.accepted.map((event) => event.type).sort()).toEqual(['endpoint.broken', 'heal.proposed']);
    expect(receiver.accepted.find((event) => event.type === 'heal.proposed')!.data).toMatchObject({
      apiId: 'shop',
      revision: 2,
      recovery: { found: expect.any(Number) },
    });
    expect((await runtime.watch.monitors.history('shop', 5)).map((entry) => entry.kind).sort()).toEqual([
      'endpoint.broken',
      'heal.proposed',
    ]);
  });

  it('gives a delivery up once its retries pass the retry window, and refuses private targets unless allowed', async () => {
    temp = await makeProject([jobsConfig(site.origin)], {
      heal: 'off',
      fetch: { allowPrivateNetworks: false },
      webhooks: [{ url: receiver.url, secretEnv: 'HOOK_SECRET' }],
      webhookDelivery: { firstRetrySeconds: 600, retryForHours: 0.5 },
    });
    runtime = await createRuntime(temp.project, {
      watch: false,
      memoryCacheOnly: true,
      now: () => new Date(clock),
      env: { HOOK_SECRET: TEST_SECRET },
    });
    await runtime.watch.publisher.publish('endpoint.broken', { apiId: 'jobs' });
    await runtime.watch.deliveries.drain();
    clock += 600_000;
    await runtime.watch.deliveries.drain();
    clock += 1_200_000;
    await runtime.watch.deliveries.drain();
    const [delivery] = await runtime.watch.store.deliveries(10);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 3 });
    expect(delivery!.lastError).toMatch(/127\.0\.0\.1 is not public/);
    expect(receiver.attempts).toHaveLength(0);
  });
});
