import { stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { LOGIN_PASSWORD, loginStats } from '../support/site-routes/login.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * The daemon with logins and block pages (docs/access.md, docs/block-pages.md, docs/wire.md): an endpoint behind
 * the fixture's login form answers with one login across requests and a restart; a refused login is 502
 * LOGIN_FAILED with its hint, refunded; a block page is 502 SOURCE_BLOCKED with its hint, refunded, never
 * cached, never given to the model, and the endpoint's status says "blocked" until it recovers; a 429 is 503
 * with Retry-After and the source is not asked again meanwhile. Two daemons on one real redis-server share one
 * login (the fixture counts logins: exactly one).
 */
const env = {
  SITE_USER: 'ada',
  SITE_PASSWORD: LOGIN_PASSWORD,
  WRONG_PASSWORD: 'not it',
  PAGEJSON_SECRETS: 'SITE_USER,SITE_PASSWORD,WRONG_PASSWORD',
};
const PRICES = [
  {
    name: 'prices',
    type: 'array' as const,
    selector: 'tr.row',
    fields: [
      { name: 'name', type: 'string' as const, selector: '.name' },
      { name: 'price', type: 'number' as const, selector: '.price', transform: ['number'] },
    ],
  },
];

async function get(
  server: RunningServer,
  apiId: string,
  key: string,
): Promise<{
  status: number;
  headers: Headers;
  body: { data: unknown; errors: Array<{ code: string; message: string; hint?: string }> | null };
}> {
  const response = await fetch(`${server.url}/external/${apiId}`, { headers: { apikey: key } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as never };
}

describe('the daemon with logins and block pages', () => {
  let site: FixtureSite;
  let llm: FakeLlm;
  let temp: TempProject;
  let server: RunningServer;
  let key: string;

  const login = (password: string) => ({ url: `${site.origin}/login/form`, form: { username: '${SITE_USER}', password } });
  const start = () => startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, env, app: { logger: false } });

  beforeAll(async () => {
    [site, llm] = await Promise.all([startFixtureSite(), startFakeLlm(() => ({ json: { summary: 'a summary' } }))]);
    temp = await makeProject(
      [
        { apiId: 'members', url: `${site.origin}/login/members.html`, caching: false, login: login('${SITE_PASSWORD}'), structure: PRICES },
        {
          apiId: 'members-wrong',
          url: `${site.origin}/login/members.html`,
          caching: false,
          login: login('${WRONG_PASSWORD}'),
          structure: PRICES,
        },
        {
          apiId: 'switch',
          url: `${site.origin}/blocks/switch.html`,
          model: 'fake',
          structure: [
            { name: 'title', type: 'string', selector: 'h1' },
            { name: 'summary', type: 'string' },
          ],
        },
        {
          apiId: 'watched',
          url: `${site.origin}/blocks/switch.html?watched=1`,
          monitor: { every: '1d' },
          structure: [{ name: 'title', type: 'string', selector: 'h1' }],
        },
        {
          apiId: 'limited',
          url: `${site.origin}/blocks/rate-limited.html?after=90`,
          structure: [{ name: 'title', type: 'string', selector: 'h1' }],
        },
      ],
      { models: { fake: { baseURL: llm.baseURL, model: 'fake-model' } } },
    );
    server = await start();
    key = (await issueKey(server.runtime.store, { freeCredits: 100 })).key;
  });

  afterAll(async () => {
    await server?.close();
    await Promise.all([site?.close(), llm?.close(), temp?.cleanup()]);
  });

  it('answers an endpoint behind a login with one login, kept across requests and a restart, in a private file', async () => {
    const first = await get(server, 'members', key);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      prices: [
        { name: 'Gold', price: 1900 },
        { name: 'Silver', price: 24 },
      ],
    });
    expect((await get(server, 'members', key)).status).toBe(200);
    expect(loginStats(site).logins).toBe(1);
    expect((await stat(join(temp.project.dataDir, 'logins', 'members.json'))).mode & 0o777).toBe(0o600);

    await server.close();
    server = await start();
    expect((await get(server, 'members', key)).status).toBe(200);
    expect(loginStats(site).logins).toBe(1);

    // The site ends the session: one renewal, then answers again.
    await fetch(`${site.origin}/login/expire`);
    expect((await get(server, 'members', key)).body.data).toEqual(first.body.data);
    expect(loginStats(site).logins).toBe(2);
  });

  it('a refused login is 502 LOGIN_FAILED with its hint, refunded, and the site is not asked again at once', async () => {
    const before = loginStats(site).refused;
    const answer = await get(server, 'members-wrong', key);
    expect(answer.status).toBe(502);
    expect(answer.body.errors?.[0]).toEqual({
      code: 'LOGIN_FAILED',
      message: 'source login failed: the site answered with its login form again: the credentials were not accepted',
      hint: expect.stringContaining('login.form') as unknown as string,
    });
    expect(JSON.stringify(answer.body)).not.toContain('not it');
    const balance = answer.headers.get('x-pagejson-credits-remaining');
    const again = await get(server, 'members-wrong', key);
    expect(again.body.errors?.[0]?.code).toBe('LOGIN_FAILED');
    expect(again.headers.get('x-pagejson-credits-remaining')).toBe(balance);
    expect(loginStats(site).refused).toBe(before + 1);
  });

  it('a block page is 502 SOURCE_BLOCKED with a hint, refunded, never cached or given to the model, and the status says "blocked" until it recovers', async () => {
    site.state.set('blocks', 'challenge');
    site.resetHits();
    const answer = await get(server, 'switch', key);
    expect(answer.status).toBe(502);
    expect(answer.body.errors?.[0]).toMatchObject({
      code: 'SOURCE_BLOCKED',
      message: 'the source answered with a block page, not the page: a Cloudflare challenge script',
    });
    expect(answer.body.errors?.[0]?.hint).toMatch(/scraper 3.*proxy.*login/);
    const balance = Number(answer.headers.get('x-pagejson-credits-remaining'));
    expect(balance).toBeGreaterThan(0);

    site.state.set('blocks', 'captcha');
    const captcha = await get(server, 'switch', key);
    expect(captcha.body.errors?.[0]?.message).toBe('the source answered with a block page, not the page: a captcha page (reCAPTCHA)');
    // Not cached: each request went to the source; the model saw none of it.
    expect(site.hitCount('/blocks/switch.html')).toBe(2);
    expect(llm.requests).toHaveLength(0);
    expect(Number(captcha.headers.get('x-pagejson-credits-remaining'))).toBe(balance);

    const blocked = (await server.runtime.store.listEndpointStatus()).find((status) => status.apiId === 'switch');
    expect(blocked).toMatchObject({ health: 'blocked', lastError: expect.stringMatching(/^SOURCE_BLOCKED: /) as unknown as string });

    site.state.delete('blocks');
    const recovered = await get(server, 'switch', key);
    expect(recovered.status).toBe(200);
    expect(recovered.body.data).toEqual({ title: 'Prices', summary: 'a summary' });
    expect((await server.runtime.store.listEndpointStatus()).find((status) => status.apiId === 'switch')?.health).toBe('healthy');
  });

  it('a monitor run that meets a block page records "blocked" and calls nothing a change', async () => {
    site.state.delete('blocks');
    const monitors = server.runtime.watch.monitors;
    expect((await monitors.runNow('watched'))[0]).toMatchObject({ outcome: 'ok' });
    site.state.set('blocks', 'denied');
    const blocked = (await monitors.runNow('watched'))[0];
    expect(blocked).toMatchObject({ outcome: 'blocked', changed: false });
    expect(blocked?.error).toMatch(/^SOURCE_BLOCKED: /);
    site.state.delete('blocks');
    // Back to the page: the same data as before the block, so no change either.
    expect((await monitors.runNow('watched'))[0]).toMatchObject({ outcome: 'ok', changed: false });
  });

  it('a 429 is 503 SOURCE_RATE_LIMITED with Retry-After, and the source is not asked again before then', async () => {
    site.resetHits();
    const answer = await get(server, 'limited', key);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('90');
    expect(answer.body.errors?.[0]).toMatchObject({
      code: 'SOURCE_RATE_LIMITED',
      message: 'the source asked to be left alone (HTTP 429); try again in 90 s',
    });
    const again = await get(server, 'limited', key);
    expect(again.status).toBe(503);
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(90);
    expect(site.hitCount('/blocks/rate-limited.html')).toBe(1);
  });
});

const skipRedis = skipRedisTests();

describe.skipIf(skipRedis)('two daemons on one Redis share one login', () => {
  let redis: RedisServer;
  let other: FixtureSite;
  let site: FixtureSite;
  let temp: TempProject;
  let first: RunningServer;
  let second: RunningServer;
  let key: string;

  beforeAll(async () => {
    [redis, site, other] = await Promise.all([startRedisServer(), startFixtureSite(), startFixtureSite()]);
    temp = await makeProject([
      // Another endpoint with a login of its own, on another site of the same host (cookies ignore ports).
      {
        apiId: 'guests',
        url: `${other.origin}/login/members.html`,
        caching: false,
        login: { url: `${other.origin}/login/form`, form: { username: '${SITE_USER}', password: '${SITE_PASSWORD}' } },
        structure: PRICES,
      },
      {
        apiId: 'members',
        url: `${site.origin}/login/members.html`,
        caching: false,
        login: { url: `${site.origin}/login/form`, form: { username: '${SITE_USER}', password: '${SITE_PASSWORD}' } },
        structure: PRICES,
      },
    ]);
    const options = {
      project: temp.project,
      host: '127.0.0.1',
      port: 0,
      watch: false,
      env,
      app: { logger: false as const },
      runtime: { redisUrl: redis.url },
    };
    first = await startServer(options);
    second = await startServer(options);
    key = (await issueKey(first.runtime.store, { freeCredits: 100 })).key;
  });

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await Promise.all([redis?.stop(), site?.close(), other?.close(), temp?.cleanup()]);
  });

  it('signs in once for both, even when both need the session at the same moment, and renews once when the site ends it', async () => {
    const answers = await Promise.all([
      get(first, 'members', key),
      get(second, 'members', key),
      get(first, 'members', key),
      get(second, 'members', key),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(loginStats(site).logins).toBe(1);
    // The session is in Redis, not in the shared data dir.
    await expect(stat(join(temp.project.dataDir, 'logins', 'members.json'))).rejects.toThrow();

    await fetch(`${site.origin}/login/expire`);
    expect((await get(second, 'members', key)).status).toBe(200);
    expect(loginStats(site).logins).toBe(2);
    // The first daemon meets the end of its session too, and takes the one the second made.
    expect((await get(first, 'members', key)).status).toBe(200);
    expect(loginStats(site).logins).toBe(2);
  });

  it("keeps each endpoint's session to its own site, even when Redis hands it another endpoint's session", async () => {
    const cookiesAt = (server: FixtureSite): string[] => {
      const seen: string[] = [];
      server.server.on('request', (req: IncomingMessage) => seen.push(req.headers.cookie ?? ''));
      return seen;
    };
    const [atSite, atOther] = [cookiesAt(site), cookiesAt(other)];
    const answers = await Promise.all([get(first, 'members', key), get(second, 'guests', key), get(first, 'guests', key)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const tokens = (server: FixtureSite): string[] => [...loginStats(server).members];
    expect(tokens(other)).toHaveLength(1);
    const leaked = (seen: string[], foreign: string[]): string[] =>
      seen.filter((cookie) => foreign.some((token) => cookie.includes(token)));
    expect(leaked(atOther, tokens(site))).toEqual([]);
    expect(leaked(atSite, tokens(other))).toEqual([]);

    // The attack: one endpoint's stored session copied under the other's key (a shared Redis, a bad restore).
    const { createClient } = await import('@redis/client');
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const members = await client.get('pagejson:login:members');
      expect(members).toContain(tokens(site).at(-1));
      await client.set('pagejson:login:guests', members!);
    } finally {
      await client.close();
    }
    await fetch(`${other.origin}/login/expire`);
    // A fresh daemon has nothing in memory: it reads the planted session, refuses it and signs in on its own.
    const third = await startServer({
      project: temp.project,
      host: '127.0.0.1',
      port: 0,
      watch: false,
      env,
      app: { logger: false },
      runtime: { redisUrl: redis.url },
    });
    try {
      expect((await get(third, 'guests', key)).status).toBe(200);
    } finally {
      await third.close();
    }
    expect(leaked(atOther, tokens(site))).toEqual([]);
    expect(leaked(atSite, tokens(other))).toEqual([]);
  });
});
