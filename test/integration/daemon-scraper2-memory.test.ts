import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heapAfterGc } from '../support/heap.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * The daemon's own memory over 1,000 scraper-2 retrievals (issue: "a test holds the daemon's memory flat"):
 * the real daemon (startServer, HTTP on port 0, lowdb state, SQLite cache, caching off so every request
 * fetches through the long-lived Crawlee crawler) runs in this process so its heap can be read after a full
 * GC. A crawler with default storage grows ~1.5 MB per request; the bound below is far under that.
 */

const TOTAL = 1_000;
const BASELINE_AT = 200;
const CONCURRENCY = 8;
const MAX_GROWTH_BYTES = 30 * 1024 * 1024;

let site: FixtureSite;
let temp: TempProject;
let server: RunningServer;
let key: string;

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject(
    [
      pageConfig('guarded', `${site.origin}/fingerprint/guarded.html`, {
        scraper: 2,
        caching: false,
        structure: [{ name: 'title', type: 'string', selector: 'h1' }],
      }),
    ],
    {
      credits: { enabled: true, freeCredits: 1_000_000 },
    },
  );
  server = await startServer({ project: temp.project, port: 0, watch: false, env: {}, app: { logger: false } });
  key = (await issueKey(server.runtime.store, { freeCredits: 1_000_000 })).key;
}, 120_000);

afterAll(async () => {
  await server?.close();
  await site?.close();
  await temp?.cleanup();
});

describe('daemon memory with scraper 2', () => {
  it('stays flat over 1,000 uncached retrievals, each a real fetch', async () => {
    const agent = new Agent({ connections: CONCURRENCY });
    let sent = 0;
    let ok = 0;
    let baseline = 0;
    const worker = async (): Promise<void> => {
      while (sent < TOTAL) {
        sent += 1;
        if (sent === BASELINE_AT) baseline = heapAfterGc();
        const response = await request(`${server.url}/external/guarded`, { headers: { apikey: key }, dispatcher: agent });
        const body = (await response.body.json()) as { data: { title: string } | null };
        if (response.statusCode === 200 && body.data?.title) ok += 1;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await agent.close();
    const growth = heapAfterGc() - baseline;
    expect(ok).toBe(TOTAL);
    // The guarded page refuses clients without browser headers: every one of these went through Crawlee.
    expect(site.hitCount('/fingerprint/guarded.html')).toBeGreaterThanOrEqual(TOTAL);
    expect(growth).toBeLessThan(MAX_GROWTH_BYTES);
  }, 300_000);
});
