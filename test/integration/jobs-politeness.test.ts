import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Job traffic is polite by default (issue 50, part 6), through the daemon on port 0 and the fixture site:
 * two jobs at once never have more than `jobs.perOriginConcurrency` requests at the source (the fetch layer
 * would allow 50), robots.txt turns the inputs it disallows into ROBOTS_DISALLOWED lines without asking the
 * page, and a 429 ends in data (the origin paused, the item run again), not an empty record. The timing of the
 * delay and the pause is the unit test's (test/unit/jobs-politeness.test.ts, fake timers).
 */
let site: FixtureSite;
let temp: TempProject;
let server: RunningServer;
let key = '';

interface JobView {
  id: string;
  state: string;
  total: number;
  done: number;
  failed: number;
  skipped: number;
}
interface Line {
  index: number;
  input: { id: string };
  outcome: string;
  data: { title: string } | null;
  errors: Array<{ code: string; message: string }> | null;
}

beforeAll(async () => {
  site = await startFixtureSite();
  site.state.set('robots', 'User-agent: *\nDisallow: /\n\nUser-agent: pagejson\nDisallow: /jobs/polite?id=secret\n');
  const polite = {
    apiId: 'polite',
    url: `${site.origin}/jobs/polite?id={{id}}`,
    caching: false,
    variables: { id: { example: '1' } },
    structure: [{ name: 'title', type: 'string' as const, selector: 'h1' }],
  };
  temp = await makeProject([polite], {
    extraction: { timeoutMs: 60_000 },
    fetch: { timeoutMs: 60_000 },
    jobs: { perOriginConcurrency: 2, minDelayMs: 0 },
  });
  server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
  key = (await issueKey(server.runtime.store, { freeCredits: 100 })).key;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await temp?.cleanup();
  await site?.close();
});

async function startJob(inputs: Array<{ id: string }>): Promise<string> {
  const response = await fetch(`${server.url}/jobs`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ apiId: 'polite', inputs, concurrency: 6 }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

async function finished(id: string): Promise<JobView> {
  return vi.waitFor(
    async () => {
      const job = ((await (await fetch(`${server.url}/jobs/${id}`, { headers: { apikey: key } })).json()) as { data: JobView }).data;
      if (!['done', 'failed', 'cancelled'].includes(job.state)) throw new Error(`still ${job.state}`);
      return job;
    },
    { timeout: 60_000, interval: 100 },
  );
}

async function lines(id: string): Promise<Map<string, Line>> {
  const text = await (await fetch(`${server.url}/jobs/${id}/results`, { headers: { apikey: key } })).text();
  const all = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
  return new Map(all.map((line) => [line.input.id, line]));
}

describe('polite job traffic', () => {
  it('keeps two jobs under the per-origin limit together, follows robots.txt, and turns a 429 into data after a pause', async () => {
    site.resetHits();
    const first = await startJob(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'secret-a', 'busy-a'].map((id) => ({ id })));
    const second = await startJob(['b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'secret-b'].map((id) => ({ id })));
    const [one, two] = await Promise.all([finished(first), finished(second)]);
    expect(one).toMatchObject({ state: 'done', total: 8, done: 7, failed: 1, skipped: 0 });
    expect(two).toMatchObject({ state: 'done', total: 7, done: 6, failed: 1, skipped: 0 });

    // Both jobs' items shared the origin's two turns (each job asked for 6 at once).
    expect(Number(site.state.get('polite-max'))).toBe(2);
    const asked = (site.state.get('polite-ids') ?? '').trim().split(' ');
    expect(asked.filter((id) => id.startsWith('secret'))).toEqual([]);
    // robots.txt was read once for the origin, for both jobs.
    expect(site.hitCount('/robots.txt')).toBe(1);

    const firstLines = await lines(first);
    expect(firstLines.get('secret-a')).toMatchObject({
      outcome: 'error',
      data: null,
      errors: [
        { code: 'ROBOTS_DISALLOWED', message: `${site.origin}/robots.txt disallows ${site.origin}/jobs/polite?id=secret-a for pagejson` },
      ],
    });
    // The 429 was asked again after its Retry-After, and ended in data.
    expect(asked.filter((id) => id === 'busy-a')).toEqual(['busy-a', 'busy-a']);
    expect(firstLines.get('busy-a')).toMatchObject({ outcome: 'data', data: { title: 'Item busy-a' }, errors: null });
    expect((await lines(second)).get('b6')).toMatchObject({ outcome: 'data', data: { title: 'Item b6' } });
  });
});
