import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { buildApp, type DaemonApp } from '../../src/daemon/app.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * The daemon over a runtime with a hand-driven clock and credits switched off: stale answers carry their age
 * and refresh in the background (docs/wire.md, caching), and `credits.enabled: false` meters usage but never refuses.
 */
let site: FixtureSite;
let temp: TempProject;
let runtime: Runtime;
let app: DaemonApp;
let clock = Date.now();

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject([pageConfig('page', `${site.origin}/daemon/echo?name=clock`)], { credits: { enabled: false } });
  runtime = await createRuntime(temp.project, { watch: false, memoryCacheOnly: true, now: () => new Date(clock) });
  app = await buildApp(runtime, { logger: false });
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  await site?.close();
  await temp?.cleanup();
});

describe('daemon with a clock and credits off', () => {
  it('serves HIT, then STALE with its Age after 15 minutes while refreshing in the background', async () => {
    const { key } = await issueKey(runtime.store, { account: 'clock' });
    const get = () => app.inject({ method: 'GET', url: '/external/page', headers: { apikey: key } });
    site.resetHits();
    expect((await get()).headers['x-pagejson-cache']).toBe('MISS');
    clock += 60_000;
    const hit = await get();
    expect([hit.headers['x-pagejson-cache'], hit.headers.age]).toEqual(['HIT', '60']);
    clock += 15 * 60_000;
    const stale = await get();
    expect([stale.headers['x-pagejson-cache'], stale.headers.age]).toEqual(['STALE', String(16 * 60)]);
    await runtime.cache.idle();
    expect(site.hitCount('/daemon/echo')).toBe(2);
    const refreshed = await get();
    expect([refreshed.headers['x-pagejson-cache'], refreshed.headers.age]).toEqual(['HIT', '0']);
  });

  it('never refuses with credits disabled, yet records what each retrieval would cost', async () => {
    const { key, account, id } = await issueKey(runtime.store, { account: 'free', freeCredits: 0 });
    for (let i = 0; i < 3; i++) {
      const response = await app.inject({ method: 'GET', url: '/external/page', headers: { apikey: key } });
      expect(response.statusCode).toBe(200);
      // Metering only: the balance is not debited, and callers still see it.
      expect(response.headers['x-pagejson-credits-remaining']).toBe('0');
    }
    expect((await runtime.store.getAccount(account))!.balance).toBe(0);
    await runtime.retrieval.flushUsage();
    const rows = await runtime.store.usage({ apiId: 'page', keyId: id });
    expect(rows.reduce((sum, row) => sum + row.requests, 0)).toBe(3);
    expect(rows.reduce((sum, row) => sum + row.milliCredits, 0)).toBe(3 * 400);
  });
});

describe('daemon with a clock and credits on', () => {
  let paid: { temp: TempProject; runtime: Runtime; app: DaemonApp } | undefined;
  afterAll(async () => {
    await paid?.app.close();
    await paid?.runtime.close();
    await paid?.temp.cleanup();
  });

  it('starts no refresh for a stale answer it refuses for want of credits: only a paid stale answer refreshes', async () => {
    const temp = await makeProject([pageConfig('paid', `${site.origin}/daemon/echo?name=paid`)], { credits: { enabled: true } });
    const runtime = await createRuntime(temp.project, { watch: false, memoryCacheOnly: true, now: () => new Date(clock) });
    const app = await buildApp(runtime, { logger: false });
    paid = { temp, runtime, app };
    const rich = await issueKey(runtime.store, { account: 'rich', freeCredits: 100 });
    const broke = await issueKey(runtime.store, { account: 'broke', freeCredits: 0 });
    const get = (key: string) => app.inject({ method: 'GET', url: '/external/paid', headers: { apikey: key } });
    site.resetHits();
    expect((await get(rich.key)).headers['x-pagejson-cache']).toBe('MISS');
    clock += 16 * 60_000;

    const refused = await get(broke.key);
    expect([refused.statusCode, refused.json().errors[0].code]).toEqual([402, 'NO_CREDITS']);
    await runtime.cache.idle();
    expect(site.hitCount('/daemon/echo')).toBe(1);

    const stale = await get(rich.key);
    expect([stale.statusCode, stale.headers['x-pagejson-cache']]).toEqual([200, 'STALE']);
    await runtime.cache.idle();
    expect(site.hitCount('/daemon/echo')).toBe(2);
  });
});
