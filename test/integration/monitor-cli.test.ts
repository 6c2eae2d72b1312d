import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { jobsConfig } from '../support/site-routes/watch.js';
import { startWebhookReceiver, TEST_SECRET, type WebhookReceiver } from '../support/webhook-receiver.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * `pagejson monitor`, `pagejson webhooks`, `edit` of schedules and `status` as users run them (the built CLI,
 * with and without a daemon), and the outbox across a kill -9 of the daemon: every pending delivery arrives
 * after the restart, each exactly once.
 */
let site: FixtureSite;
let receiver: WebhookReceiver;
let temp: TempProject;
let serve: ServeProcess | undefined;
const env = { HOOK_SECRET: TEST_SECRET };
const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env });

beforeAll(async () => {
  await ensureBuilt();
  [site, receiver] = await Promise.all([startFixtureSite(), startWebhookReceiver()]);
}, 300_000);
afterAll(async () => {
  await Promise.all([site?.close(), receiver?.close()]);
});
afterEach(async () => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  serve = undefined;
  await temp?.cleanup();
  site.state.delete('jobs');
  receiver.failAll(false);
  receiver.accepted.length = 0;
  receiver.attempts.length = 0;
});

async function project(withMonitor: boolean) {
  const { monitor: _monitor, ...unscheduled } = jobsConfig(site.origin);
  temp = await makeProject([withMonitor ? jobsConfig(site.origin) : unscheduled], {
    heal: 'off',
    webhooks: [{ url: receiver.url, secretEnv: 'HOOK_SECRET' }],
    webhookDelivery: { firstRetrySeconds: 0.2 },
  });
}

/** The daemon retries and polls on its own clock, in its own process: wait for what it does, within a bound. */
async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  await vi.waitFor(() => expect(check(), `waiting for ${what}`).toBe(true), { timeout: ms, interval: 50 });
}

describe('monitor and webhooks commands', () => {
  it('sets a schedule with edit, runs it, shows the change, and removes it again', async () => {
    await project(false);
    const refused = await cli('edit', 'jobs', '--set', 'monitor.every=5s');
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('more often than once a minute');
    expect(await readFile(join(temp.root, 'configs/jobs.json'), 'utf8')).not.toContain('monitor');

    const scheduled = await cli('edit', 'jobs', '--set', 'monitor.every=15m', '--json');
    expect(scheduled.exitCode).toBe(0);
    expect(JSON.parse(scheduled.stdout).changes).toContainEqual({
      kind: 'setting',
      subject: 'monitor',
      text: 'monitor changed from (none) to {"every":"15m"}',
    });
    expect(JSON.parse(await readFile(join(temp.root, 'configs/jobs.json'), 'utf8')).monitor).toEqual({ every: '15m' });
    expect((await cli('validate')).exitCode).toBe(0);

    const listed = JSON.parse((await cli('monitor', 'list', '--json')).stdout) as Array<{
      monitorId: string;
      every: string;
      nextRunAt: string;
      lastRunAt: string | null;
    }>;
    expect(listed).toMatchObject([{ monitorId: 'jobs', every: '15m', lastRunAt: null }]);
    expect(Date.parse(listed[0]!.nextRunAt)).toBeGreaterThan(Date.now());

    const first = await cli('monitor', 'run', 'jobs');
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain('jobs: ok, no change');
    site.state.set('jobs', JSON.stringify([{ id: 'j2', title: 'Baker', pay: '23' }]));
    const second = await cli('monitor', 'run', 'jobs');
    expect(second.stdout).toContain('data changed');
    expect(second.stdout).toContain('~ jobs[url=/jobs/j2].pay: 21 → 23');
    expect(second.stdout).toContain('- jobs[url=/jobs/j1]');
    // Without a daemon the command sends the deliveries it caused itself.
    expect(receiver.accepted.map((event) => event.type)).toEqual(['data.changed']);

    const history = await cli('monitor', 'history', 'jobs');
    expect(history.stdout).toContain('data.changed');
    expect(history.stdout).toContain('~ jobs[url=/jobs/j2].pay: 21 → 23');
    const status = JSON.parse((await cli('status', '--json')).stdout) as {
      endpoints: Array<{ apiId: string; monitors: Array<{ every: string; lastOutcome: string }> }>;
    };
    expect(status.endpoints[0]!.monitors).toMatchObject([{ every: '15m', lastOutcome: 'ok' }]);

    expect((await cli('edit', 'jobs', '--set', 'monitor=off')).exitCode).toBe(0);
    expect(JSON.parse(await readFile(join(temp.root, 'configs/jobs.json'), 'utf8')).monitor).toBeUndefined();
    const none = await cli('monitor', 'run', 'jobs');
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('jobs has no monitor');
  });

  it('sends a signed test event, and says why when it cannot', async () => {
    await project(true);
    const sent = await cli('webhooks', 'test', receiver.url, '--json');
    expect(sent.exitCode).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ ok: true, status: 200 });
    expect(receiver.accepted.map((event) => event.type)).toEqual(['pagejson.test']);

    const unsigned = await cli('webhooks', 'test', 'http://127.0.0.1:9/elsewhere');
    expect(unsigned.exitCode).toBe(2);
    expect(unsigned.stderr).toContain('--secret-env');
    const wrongSecret = await execa(process.execPath, [CLI_BIN, 'webhooks', 'test', receiver.url], {
      cwd: temp.root,
      reject: false,
      env: { HOOK_SECRET: 'not the signing secret of the receiver' },
    });
    expect(wrongSecret.exitCode).toBe(1);
    expect(wrongSecret.stdout).toContain('the receiver answered 401');
    const metadata = await cli('webhooks', 'test', 'http://169.254.169.254/latest', '--secret-env', 'HOOK_SECRET');
    expect(metadata.exitCode).toBe(1);
    expect(metadata.stdout).toContain('169.254.169.254 is not public');
  });

  it('refuses to sign with a secret under 16 bytes, as the daemon does, and sends nothing', async () => {
    await project(true);
    const short = await execa(process.execPath, [CLI_BIN, 'webhooks', 'test', receiver.url], {
      cwd: temp.root,
      reject: false,
      env: { HOOK_SECRET: 'fifteen bytes!!' },
    });
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toContain('the webhook signing secret in HOOK_SECRET is 15 bytes long; it needs at least 16: nothing was sent');
    expect(short.stderr).toContain('openssl rand -base64 32');
    const decoded = await execa(process.execPath, [CLI_BIN, 'webhooks', 'test', receiver.url, '--json'], {
      cwd: temp.root,
      reject: false,
      env: { HOOK_SECRET: `whsec_${Buffer.from('8 bytes!').toString('base64')}` },
    });
    expect(decoded.exitCode).toBe(2);
    expect(decoded.stderr).toContain('is 8 bytes long');
    expect(receiver.attempts).toEqual([]);
  });

  it('delivers every pending event exactly once after the daemon is killed with -9', async () => {
    await project(true);
    receiver.failAll(true);
    serve = await spawnServe(temp.root, [], env);
    expect((await cli('monitor', 'run', 'jobs')).exitCode).toBe(0);
    site.state.set('jobs', JSON.stringify([{ id: 'j5', title: 'Porter', pay: '17' }]));
    expect((await cli('monitor', 'run', 'jobs')).exitCode).toBe(0);
    site.state.set('jobs', 'maintenance');
    expect((await cli('monitor', 'run', 'jobs')).exitCode).toBe(1);
    // Both events are being retried against a receiver that refuses them.
    await until(() => new Set(receiver.attempts.map((attempt) => attempt.id)).size >= 2 && receiver.attempts.length >= 4, 'retries');
    serve.child.kill('SIGKILL');
    await serve.child;

    const file = JSON.parse(await readFile(join(temp.root, '.pagejson/monitors.json'), 'utf8')) as {
      deliveries: Record<string, { status: string; type: string }>;
    };
    const pending = Object.values(file.deliveries).filter((delivery) => delivery.status === 'pending');
    expect(pending.map((delivery) => delivery.type).sort()).toEqual(['data.changed', 'endpoint.broken']);
    const pendingIds = Object.keys(file.deliveries).filter((id) => file.deliveries[id]!.status === 'pending');

    receiver.failAll(false);
    serve = await spawnServe(temp.root, [], env);
    await until(() => pendingIds.every((id) => receiver.accepted.some((event) => event.id === id)), 'the pending deliveries');
    // Two more passes over the outbox (each new event is sent by one): nothing acknowledged is sent again.
    for (const [id, pay] of [
      ['j6', '19'],
      ['j7', '24'],
    ]) {
      const before = receiver.accepted.length;
      site.state.set('jobs', JSON.stringify([{ id, title: 'Cook', pay }]));
      expect((await cli('monitor', 'run', 'jobs')).exitCode).toBe(0);
      await until(() => receiver.accepted.length > before, `the event of job ${id}`);
    }
    for (const id of pendingIds) expect(receiver.accepted.filter((event) => event.id === id)).toHaveLength(1);
    const ids = receiver.accepted.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const listed = JSON.parse((await cli('webhooks', 'list', '--json')).stdout) as Array<{ id: string; status: string }>;
    for (const id of pendingIds) expect(listed.find((delivery) => delivery.id === id)?.status).toBe('delivered');
    serve.child.kill('SIGTERM');
    await serve.child;
  });
});
