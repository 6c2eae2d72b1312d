import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { buildApp, type DaemonApp } from '../../src/daemon/app.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { startWebhookReceiver, TEST_SECRET, type WebhookReceiver } from '../support/webhook-receiver.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Jobs tell the monitors' webhook subscribers how they ended (issue 50, docs/jobs.md): a job started with
 * `"webhook": true` sends `job.completed` or `job.failed` with its counts, signed the Standard Webhooks way
 * (the receiver verifies every request with the reference implementation and keeps only what passed). The
 * outbox is drained by hand, as the daemon's poll would, so nothing waits on the clock.
 */
let site: FixtureSite;
let receiver: WebhookReceiver;
let temp: TempProject;
let runtime: Runtime;
let app: DaemonApp;

beforeAll(async () => {
  site = await startFixtureSite();
  receiver = await startWebhookReceiver();
  const item = {
    apiId: 'item',
    url: `${site.origin}/jobs/item?id={{id}}`,
    caching: false,
    variables: { id: { example: '1' } },
    structure: [{ name: 'title', type: 'string' as const, selector: 'h1' }],
  };
  temp = await makeProject([item], {
    heal: 'off',
    jobs: { minDelayMs: 0 },
    webhooks: [{ url: receiver.url, secretEnv: 'HOOK_SECRET' }],
  });
  runtime = await createRuntime(temp.project, { watch: false, memoryCacheOnly: true, env: { HOOK_SECRET: TEST_SECRET } });
  app = await buildApp(runtime, { logger: false, mcp: false });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  await temp?.cleanup();
  await receiver?.close();
  await site?.close();
});

async function startJob(key: string, body: Record<string, unknown>): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/jobs', headers: { apikey: key }, payload: body });
  expect(response.statusCode, response.body).toBe(202);
  return (response.json() as { data: { id: string } }).data.id;
}

async function finished(id: string) {
  return vi.waitFor(
    async () => {
      const job = await runtime.jobs.get(id);
      if (!job?.finishedAt) throw new Error(`still ${job?.state}`);
      return job;
    },
    { timeout: 30_000, interval: 50 },
  );
}

/** Sends what the outbox holds until the receiver has accepted `count` events. */
async function delivered(count: number) {
  await vi.waitFor(
    async () => {
      await runtime.watch.deliveries.drain();
      expect(receiver.accepted.length).toBe(count);
    },
    { timeout: 10_000, interval: 20 },
  );
  return receiver.accepted;
}

describe('job webhooks', () => {
  it('a job that ran to its end sends one signed job.completed with its counts; one without "webhook" sends none', async () => {
    const { key } = await issueKey(runtime.store, { freeCredits: 10, account: 'hooked' });
    const quiet = await startJob(key, { apiId: 'item', inputs: [{ id: 'q' }] });
    expect((await finished(quiet)).state).toBe('done');

    const id = await startJob(key, { apiId: 'item', inputs: [{ id: 'a' }, { id: '404' }, { nope: 'x' }], webhook: true });
    await finished(id);
    const [event] = await delivered(1);
    expect(receiver.attempts.every((attempt) => attempt.status === 200)).toBe(true);
    expect(event!.id).toMatch(/^msg_/);
    expect(event).toMatchObject({
      type: 'job.completed',
      data: { id, apiId: 'item', state: 'done', total: 3, done: 1, failed: 1, skipped: 1, credits: 0.4, source: 'inputs' },
    });
    expect(event!.data.finishedAt).toEqual(expect.any(String));
    // The key acting for the job is the daemon's to know, not the subscriber's.
    expect(event!.data).not.toHaveProperty('keyId');
    expect(event!.data).not.toHaveProperty('heartbeatAt');
  });

  it('a job that ran out of credits sends job.failed with the reason and counts that add up', async () => {
    receiver.accepted.length = 0;
    // Two items' worth (0.4 each): the third finds no credits and the job stops.
    const { key } = await issueKey(runtime.store, { freeCredits: 0.8, account: 'short' });
    const id = await startJob(key, {
      apiId: 'item',
      inputs: [{ id: '1' }, { id: '2' }, { id: '3' }, { id: '4' }, { id: '5' }],
      concurrency: 1,
      webhook: true,
    });
    await finished(id);
    const [event] = await delivered(1);
    expect(event).toMatchObject({
      type: 'job.failed',
      data: { id, apiId: 'item', state: 'failed', total: 5, done: 2, failed: 3, skipped: 0, credits: 0.8 },
    });
    expect(event!.data.reason).toMatch(/credit/i);
  });
});
