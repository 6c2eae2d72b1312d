import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import { ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, spawnServe, type TempProject } from './daemon-support.js';

/**
 * `kill -9` of the daemon in the middle of a job, then a restart (issue 50, "nothing lost, nothing charged
 * twice"): the job resumes from its results, items done are not done again, items in flight are retried, every
 * input ends in exactly one line, and the balance is exactly the price of the items once.
 */
const INPUTS = 12;
let site: FixtureSite;
let temp: TempProject;
let key = '';

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  temp = await makeProject(
    [
      {
        apiId: 'item',
        url: `${site.origin}/jobs/item?id={{id}}&ms=300`,
        caching: false,
        variables: { id: { example: 'slow1' } },
        structure: [{ name: 'title', type: 'string', selector: 'h1' }],
      },
    ],
    // No minimum delay between job requests: politeness has its own tests (jobs-politeness), this one is about resuming.
    { extraction: { timeoutMs: 60_000 }, fetch: { timeoutMs: 60_000 }, jobs: { minDelayMs: 0 } },
  );
  const store = await createLowdbStore({ file: join(temp.project.dataDir, 'state.json') });
  key = (await issueKey(store, { freeCredits: 100 })).key;
  await store.close();
}, 300_000);

afterAll(async () => {
  await site?.close();
  await temp?.cleanup();
});

const status = async (url: string, id: string) =>
  (
    (await (await fetch(`${url}/jobs/${id}`, { headers: { apikey: key } })).json()) as {
      data: { state: string; done: number; total: number; credits: number };
    }
  ).data;

describe('a job across kill -9', () => {
  it('resumes, runs each input once more at most, and charges each exactly once', async () => {
    const first = await spawnServe(temp.root);
    const started = await fetch(`${first.url}/jobs`, {
      method: 'POST',
      headers: { apikey: key, 'content-type': 'application/json' },
      body: JSON.stringify({ apiId: 'item', inputs: Array.from({ length: INPUTS }, (_, n) => ({ id: `slow${n}` })), concurrency: 2 }),
    });
    expect(started.status).toBe(202);
    const { id } = ((await started.json()) as { data: { id: string } }).data;
    await vi.waitFor(
      async () => {
        if ((await status(first.url, id)).done < 3) throw new Error('not yet');
      },
      { timeout: 120_000, interval: 50 },
    );
    first.child.kill('SIGKILL');
    expect((await first.child).signal).toBe('SIGKILL');
    const hitsAtKill = site.hitCount('/jobs/item');

    const second = await spawnServe(temp.root);
    const job = await vi.waitFor(
      async () => {
        const now = await status(second.url, id);
        if (now.state !== 'done') throw new Error(now.state);
        return now;
      },
      { timeout: 180_000, interval: 100 },
    );
    expect(job).toMatchObject({ total: INPUTS, done: INPUTS, credits: (INPUTS * 400) / 1000 });
    const lines = (await readFile(join(temp.project.dataDir, 'jobs', id, 'results.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { index: number; outcome: string });
    expect(lines.map((line) => line.index).sort((a, b) => a - b)).toEqual(Array.from({ length: INPUTS }, (_, n) => n));
    expect(lines.every((line) => line.outcome === 'data')).toBe(true);
    // Only the items in flight at the kill (2 at most) were fetched twice.
    expect(site.hitCount('/jobs/item') - INPUTS).toBeLessThanOrEqual(2);
    expect(site.hitCount('/jobs/item')).toBeGreaterThan(hitsAtKill);
    second.child.kill('SIGTERM');
    await second.child;
    const store = await createLowdbStore({ file: join(temp.project.dataDir, 'state.json') });
    expect((await store.getAccount('default'))!.balance).toBe(100_000 - INPUTS * 400);
    await store.close();
  }, 400_000);
});
