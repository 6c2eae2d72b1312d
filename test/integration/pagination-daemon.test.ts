import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { PAGINATED_BOOKS_STRUCTURE, paginationTitlesUpTo } from '../support/site-routes/pagination.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Pagination through a running daemon (issue 34, items 1 and 3): the merged list on the wire, X-Pagejson-Pages,
 * credits once per page held (the hold covers maxPages, the settle keeps the pages' price), the same price from
 * the cache (memory and the SQLite file after a restart), partial answers at the time budget, and an endpoint
 * whose only variable is the page one answering GET without variables.
 */
let site: FixtureSite;
let temp: TempProject | undefined;
let server: RunningServer | undefined;

const STRUCTURE = PAGINATED_BOOKS_STRUCTURE;
const paged = (
  apiId: string,
  url: string,
  pagination: ApiConfigInput['pagination'],
  extra: Partial<ApiConfigInput> = {},
): ApiConfigInput => ({ apiId, url: `${site.origin}${url}`, structure: STRUCTURE, pagination, ...extra });
const titlesUpTo = paginationTitlesUpTo;

async function start(configs: ApiConfigInput[], fetch: { timeoutMs?: number } = {}, credits?: { hit: number }): Promise<RunningServer> {
  temp = await makeProject(configs, { fetch, ...(credits ? { credits } : {}) });
  server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
  return server;
}

async function call(
  running: RunningServer,
  key: string,
  apiId: string,
  query = '',
): Promise<{ status: number; headers: Headers; body: { data: Record<string, unknown> | null; errors: unknown } }> {
  const response = await fetch(`${running.url}/external/${apiId}${query}`, { headers: { apikey: key } });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { data: Record<string, unknown> | null; errors: unknown },
  };
}

const titles = (data: Record<string, unknown> | null) => (data!.books as Array<{ title: string }>).map((book) => book.title);

beforeAll(async () => {
  site = await startFixtureSite();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await temp?.cleanup();
  temp = undefined;
});
afterAll(async () => {
  await site?.close();
});

describe('a paginated endpoint on the wire', () => {
  it('answers the merged list with X-Pagejson-Pages and costs the price once per page, from the source and from the cache', async () => {
    const running = await start([paged('shelf', '/pages/next.html?page=1', { next: 'a[rel=next]' })]);
    const { key, account } = await issueKey(running.runtime.store, { freeCredits: 10, account: 'paged' });
    site.resetHits();
    const miss = await call(running, key, 'shelf');
    expect(miss.status).toBe(200);
    expect(titles(miss.body.data)).toEqual(titlesUpTo(9));
    expect(miss.headers.get('x-pagejson-cache')).toBe('MISS');
    expect(miss.headers.get('x-pagejson-pages')).toBe('3');
    expect(miss.headers.get('x-pagejson-partial')).toBeNull();
    // Held for ten pages (4 credits), settled at three (1.2).
    expect(miss.headers.get('x-pagejson-credits-remaining')).toBe('8.8');
    expect((await running.runtime.store.getAccount(account))!.balance).toBe(8_800);

    const hit = await call(running, key, 'shelf');
    expect(hit.headers.get('x-pagejson-cache')).toBe('HIT');
    expect(hit.headers.get('x-pagejson-pages')).toBe('3');
    expect(hit.headers.get('x-pagejson-credits-remaining')).toBe('7.6');
    expect(site.hitCount('/pages/next.html')).toBe(3);

    await running.runtime.retrieval.flushUsage();
    const usage = await running.runtime.store.usage({ apiId: 'shelf' });
    expect(usage.reduce((sum, row) => sum + row.milliCredits, 0)).toBe(2_400);
  });

  it('prices a cache hit apart with credits.hit (issue 52 item 9), and the listing and the dashboard say what a hit and a miss cost', async () => {
    const running = await start([paged('shelf', '/pages/next.html?page=1', { next: 'a[rel=next]', maxPages: 5 })], {}, { hit: 0.1 });
    const { key, account } = await issueKey(running.runtime.store, { freeCredits: 10, account: 'hits' });
    const miss = await call(running, key, 'shelf');
    expect(miss.headers.get('x-pagejson-pages')).toBe('3');
    expect(miss.headers.get('x-pagejson-credits-remaining')).toBe('8.8');
    const hit = await call(running, key, 'shelf');
    expect(hit.headers.get('x-pagejson-cache')).toBe('HIT');
    expect(hit.headers.get('x-pagejson-credits-remaining')).toBe('8.7');
    expect((await running.runtime.store.getAccount(account))!.balance).toBe(8_700);
    await running.runtime.retrieval.flushUsage();
    const usage = await running.runtime.store.usage({ apiId: 'shelf' });
    expect(usage.reduce((sum, row) => sum + row.milliCredits, 0)).toBe(1_300);

    const price = '0.4 credits a page the answer holds (at most 5 pages: 2) from the source; 0.1 credits a call from the cache';
    const listed = (await (await fetch(`${running.url}/external`, { headers: { apikey: key } })).json()) as {
      data: { endpoints: Array<Record<string, unknown>> };
    };
    expect(listed.data.endpoints[0]).toMatchObject({ credits: '0.4', hitCredits: '0.1', maxPages: 5, price });
    // The dashboard's endpoint page shows the same line.
    const link = running.app.dashboardLoginLink()!;
    const signIn = await fetch(link.url.replace(/^http:\/\/[^/]+/, running.url), { redirect: 'manual' });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const detail = (await (await fetch(`${running.url}/ui/api/endpoints/shelf`, { headers: { cookie } })).json()) as { price: string };
    expect(detail.price).toBe(price);
  });

  it('keeps the page count with the cached answer across a restart (the SQLite file), so the hit costs the same', async () => {
    const configs = [paged('shelf', '/pages/next.html?page=1', { next: 'a[rel=next]' })];
    temp = await makeProject(configs);
    site.resetHits();
    server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    const { key, account } = await issueKey(server.runtime.store, { freeCredits: 10, account: 'restart' });
    expect((await call(server, key, 'shelf')).headers.get('x-pagejson-pages')).toBe('3');
    await server.close();
    server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    const again = await call(server, key, 'shelf');
    expect(again.headers.get('x-pagejson-cache')).toBe('HIT');
    expect(again.headers.get('x-pagejson-pages')).toBe('3');
    expect((await server.runtime.store.getAccount(account))!.balance).toBe(7_600);
    expect(site.hitCount('/pages/next.html')).toBe(3);
  });

  it('refuses a balance that cannot cover maxPages pages, even when fewer would do (402, nothing fetched)', async () => {
    const running = await start([paged('shelf', '/pages/next.html?page=1', { next: 'a[rel=next]', maxPages: 5 })]);
    const { key } = await issueKey(running.runtime.store, { freeCredits: 1.9, account: 'short' });
    site.resetHits();
    const answer = await call(running, key, 'shelf');
    expect(answer.status).toBe(402);
    expect(answer.headers.get('x-pagejson-credits-remaining')).toBe('1.9');
    expect(site.hitCount('/pages/next.html')).toBe(0);
  });

  it('answers the pages read when the time budget ends, says so, refunds the rest and keeps nothing in the cache', async () => {
    const running = await start([paged('slowshelf', '/pages/next.html?page=1&hang=3', { next: 'a[rel=next]' })], { timeoutMs: 1_500 });
    const { key, account } = await issueKey(running.runtime.store, { freeCredits: 10, account: 'partial' });
    const first = await call(running, key, 'slowshelf');
    expect(first.status).toBe(200);
    expect(titles(first.body.data)).toEqual(titlesUpTo(6));
    expect(first.headers.get('x-pagejson-partial')).toBe('time');
    expect(first.headers.get('x-pagejson-pages')).toBe('2');
    expect((await running.runtime.store.getAccount(account))!.balance).toBe(9_200);
    const second = await call(running, key, 'slowshelf');
    expect(second.headers.get('x-pagejson-cache')).toBe('MISS');
    expect(second.headers.get('x-pagejson-partial')).toBe('time');
  });

  it('answers the pages before a failed one as partial (error), at their price', async () => {
    const running = await start([paged('broken', '/pages/numbered?fail=3&page={{ page }}', { variable: 'page' })]);
    const { key, account } = await issueKey(running.runtime.store, { freeCredits: 10, account: 'failing' });
    const answer = await call(running, key, 'broken');
    expect(answer.status).toBe(200);
    expect(titles(answer.body.data)).toEqual(titlesUpTo(6));
    expect(answer.headers.get('x-pagejson-partial')).toBe('error');
    expect((await running.runtime.store.getAccount(account))!.balance).toBe(9_200);
  });

  it('serves an endpoint whose only variable is the page one as static: GET without variables, a query string ignored, a page sent refused', async () => {
    const running = await start([paged('numbered', '/pages/numbered?page={{ page }}', { variable: 'page' })]);
    const { key } = await issueKey(running.runtime.store, { freeCredits: 10 });
    const get = await call(running, key, 'numbered', '?page=7&utm=x');
    expect(get.status).toBe(200);
    expect(titles(get.body.data)).toEqual(titlesUpTo(9));
    expect(get.headers.get('x-pagejson-pages')).toBe('3');
    const posted = await fetch(`${running.url}/external/numbered`, {
      method: 'POST',
      headers: { apikey: key, 'content-type': 'application/json' },
      body: JSON.stringify({ page: '2' }),
    });
    expect(posted.status).toBe(400);
    expect(await posted.json()).toEqual({ data: null, errors: [{ message: 'unknown variable: page', code: 'VARIABLE_UNKNOWN' }] });
  });

  it('lists a paginated endpoint with its price per page and its maxPages', async () => {
    const running = await start([
      paged('shelf', '/pages/next.html?page=1', { next: 'a[rel=next]', maxPages: 4 }),
      { apiId: 'plain', url: `${site.origin}/pages/next.html?page=1`, structure: STRUCTURE },
    ]);
    const { key } = await issueKey(running.runtime.store, { freeCredits: 10 });
    const listed = (await (await fetch(`${running.url}/external`, { headers: { apikey: key } })).json()) as {
      data: { endpoints: Array<{ apiId: string; credits: string; maxPages?: number }> };
    };
    // Without credits.hit a hit costs what the miss did, and the listing says so.
    expect(listed.data.endpoints.find((entry) => entry.apiId === 'shelf')).toMatchObject({
      credits: '0.4',
      hitCredits: '0.4',
      maxPages: 4,
      price: '0.4 credits a page the answer holds (at most 4 pages: 1.6), from the source or the cache alike',
    });
    expect(listed.data.endpoints.find((entry) => entry.apiId === 'plain')?.maxPages).toBeUndefined();
  });

  it('sends no pages header for an endpoint without pagination', async () => {
    const running = await start([{ apiId: 'plain', url: `${site.origin}/pages/next.html?page=1`, structure: STRUCTURE }]);
    const { key } = await issueKey(running.runtime.store, { freeCredits: 10 });
    const answer = await call(running, key, 'plain');
    expect(titles(answer.body.data)).toEqual(titlesUpTo(3));
    expect(answer.headers.get('x-pagejson-pages')).toBeNull();
    expect(answer.headers.get('x-pagejson-credits-remaining')).toBe('9.6');
  });
});
