import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoginSettings } from '../../src/core/config/login.js';
import { createInProcessExtractor, DEFAULT_DOCUMENT_LIMITS } from '../../src/core/extract/index.js';
import { createFileSessionStore } from '../../src/core/fetch/login/session-stores.js';
import { createScraperPool, type ScraperPool } from '../../src/core/fetch/scrapers/index.js';
import { loggedInProbe } from '../../src/core/retrieval/login-probe.js';
import { isPagejsonError, type PagejsonError } from '../../src/core/shared/errors.js';
import { CHROMIUM_PATH, chromiumAvailable } from '../support/chromium.js';
import { LOGIN_PASSWORD, loginStats } from '../support/site-routes/login.js';
import { startForwardProxy } from '../support/forward-proxy.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { browserFor, closeSharedPlaywrightServer, SCRAPER3_MODES } from '../support/remote-browser.js';
import type { ScraperBrowser } from '../../src/core/fetch/scrapers/types.js';

/**
 * Logins through the scraper pool on the fixture site's login form (test/support/site-routes/login.ts: a CSRF
 * token bound to a pre-session cookie, a session the site can end): signed in once and kept in a private file,
 * reused across fetches and a new pool on the same data dir, renewed only when the site ends the session (a
 * redirect to the login page, a 401, `loggedIn` missing), one login for concurrent fetches, a refused login
 * remembered on an injected clock and not retried before its time. Scraper 3 on the real Chromium, both ways
 * (issue 51): launched here and through a Playwright server (one for the file).
 */
const env = { SITE_USER: 'ada', SITE_PASSWORD: LOGIN_PASSWORD, PAGEJSON_SECRETS: 'SITE_USER,SITE_PASSWORD,PROXY_PASS' };
const extractor = createInProcessExtractor({ limits: DEFAULT_DOCUMENT_LIMITS });

async function failure(promise: Promise<unknown>): Promise<PagejsonError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isPagejsonError(error)) throw new Error(`expected a PagejsonError, got ${String(error)}`);
  return error;
}

afterAll(closeSharedPlaywrightServer);

/** The sticky-proxy login case: scraper 1, and scraper 3 both ways where Chromium is. */
const PROXY_LOGIN_CASES: Array<[string, 1 | 3, 'local' | 'playwright']> = [
  ['scraper 1', 1, 'local'],
  ...(chromiumAvailable ? SCRAPER3_MODES.map((mode): [string, 1 | 3, 'local' | 'playwright'] => [`scraper 3 (${mode})`, 3, mode]) : []),
];

describe('logins through the scraper pool', () => {
  let site: FixtureSite;
  let dataDir: string;
  let now = Date.parse('2026-03-01T12:00:00Z');
  const pools: ScraperPool[] = [];

  const form = (extra: Partial<LoginSettings> = {}): LoginSettings => ({
    url: `${site.origin}/login/form`,
    form: { username: '${SITE_USER}', password: '${SITE_PASSWORD}' },
    ...extra,
  });
  const pool = (overrides: { env?: Record<string, string>; browser?: ScraperBrowser } = {}): ScraperPool => {
    const made = createScraperPool({
      ...(overrides.browser ? { browser: overrides.browser } : {}),
      timeoutMs: 30_000,
      maxBytes: 1024 * 1024,
      allowPrivateNetworks: true,
      perOriginConcurrency: 4,
      chromiumPath: CHROMIUM_PATH,
      actionsTimeoutMs: 3_000,
      env: overrides.env ?? env,
      logins: { store: createFileSessionStore(dataDir), env: overrides.env ?? env, probe: loggedInProbe(extractor), now: () => now },
    });
    pools.push(made);
    return made;
  };
  const fetchAs = (scrapers: ScraperPool, path: string, login: LoginSettings, endpoint = 'members', scraper: 1 | 2 | 3 = 1) =>
    scrapers.get(scraper).fetch({ url: `${site.origin}${path}`, login: { endpoint, settings: login } });

  beforeAll(async () => {
    site = await startFixtureSite();
  });

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((made) => made.close()));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    const stats = loginStats(site);
    stats.logins = 0;
    stats.refused = 0;
    stats.members.clear();
    site.state.delete('loginPassword');
  });

  afterAll(async () => {
    await site.close();
  });

  const freshDir = async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pagejson-login-'));
  };

  it('signs in once with the form and its CSRF token, keeps the session in a private file, and reuses it after a restart', async () => {
    await freshDir();
    const first = pool();
    const page = await fetchAs(first, '/login/members.html', form());
    expect(page.html).toContain('Gold');
    expect(await fetchAs(first, '/login/members.html', form()).then((p) => p.html)).toContain('Silver');
    expect(loginStats(site)).toMatchObject({ logins: 1, refused: 0 });

    const dir = join(dataDir, 'logins');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await readdir(dir)).toEqual(['members.json']);
    const file = join(dir, 'members.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const kept = await readFile(file, 'utf8');
    expect(kept).toContain('"member"');
    // The session is kept, never the credentials or the templates' values.
    expect(kept).not.toContain(LOGIN_PASSWORD);
    expect(kept).not.toContain('SITE_PASSWORD');

    // A new pool on the same data dir (a restart) signs in no more.
    expect((await fetchAs(pool(), '/login/members.html', form())).html).toContain('Gold');
    expect(loginStats(site).logins).toBe(1);
  });

  it.each([
    ['a redirect to the login page', '/login/members.html', {}],
    ['a 401', '/login/members-401.html', {}],
    ['the loggedIn element missing from a 200 page', '/login/members-soft.html', { loggedIn: 'a.logout' }],
  ])('renews the session once when the site ends it: %s', async (_how, path, extra) => {
    await freshDir();
    const scrapers = pool();
    expect((await fetchAs(scrapers, path, form(extra))).html).toContain('Gold');
    await fetch(`${site.origin}/login/expire`);
    expect((await fetchAs(scrapers, path, form(extra))).html).toContain('Gold');
    expect(loginStats(site).logins).toBe(2);
  });

  it('without loggedIn, a 200 page that asks to sign in is taken as it is (the site did not say the session ended)', async () => {
    await freshDir();
    const scrapers = pool();
    await fetchAs(scrapers, '/login/members-soft.html', form());
    await fetch(`${site.origin}/login/expire`);
    expect((await fetchAs(scrapers, '/login/members-soft.html', form())).html).toContain('Please');
    expect(loginStats(site).logins).toBe(1);
  });

  it('signs in once for concurrent fetches of an endpoint', async () => {
    await freshDir();
    const scrapers = pool();
    const pages = await Promise.all(Array.from({ length: 6 }, () => fetchAs(scrapers, '/login/members.html', form())));
    expect(pages.every((page) => page.html.includes('Gold'))).toBe(true);
    expect(loginStats(site).logins).toBe(1);
  });

  it('a refused login is LOGIN_FAILED, said in words, and not tried again before its wait has passed', async () => {
    await freshDir();
    site.state.set('loginPassword', 'another one');
    const scrapers = pool();
    const error = await failure(fetchAs(scrapers, '/login/members.html', form()));
    expect(error.code).toBe('LOGIN_FAILED');
    expect(error.message).toBe('the site answered with its login form again: the credentials were not accepted');
    expect(error.hint).toContain('login.form');
    expect(JSON.stringify(error.context)).not.toContain(LOGIN_PASSWORD);
    expect(loginStats(site).refused).toBe(1);

    const again = await failure(fetchAs(scrapers, '/login/members.html', form()));
    expect(again.code).toBe('LOGIN_FAILED');
    expect(again.message).toContain('not tried again before 12:01:00 UTC');
    expect(loginStats(site).refused).toBe(1);

    now += 61_000;
    site.state.delete('loginPassword');
    expect((await fetchAs(scrapers, '/login/members.html', form())).html).toContain('Gold');
    expect(loginStats(site)).toMatchObject({ logins: 1, refused: 1 });
  });

  it('a session that is refused right after signing in is a failed login, not a loop of logins', async () => {
    await freshDir();
    const scrapers = pool();
    // The page needs loggedIn "#never": no session can satisfy it.
    const error = await failure(fetchAs(scrapers, '/login/members-soft.html', form({ loggedIn: '#never' })));
    expect(error.code).toBe('LOGIN_FAILED');
    expect(error.message).toBe('signed in, but the page lacks the loggedIn element (#never)');
    expect(loginStats(site).logins).toBe(1);
  });

  it('says what is wrong with a login in words: no form, a field the form lacks, an unset variable, a block page', async () => {
    await freshDir();
    const scrapers = pool();
    expect((await failure(fetchAs(scrapers, '/login/members.html', form({ url: `${site.origin}/blocks/data.html` }), 'a'))).message).toBe(
      `no login form on ${site.origin}/blocks/data.html`,
    );
    expect(
      (await failure(fetchAs(scrapers, '/login/members.html', form({ form: { user: '${SITE_USER}', password: 'x' } }), 'b'))).message,
    ).toBe('the login form has no field user');
    const unset = await failure(fetchAs(pool({ env: { PAGEJSON_SECRETS: env.PAGEJSON_SECRETS } }), '/login/members.html', form(), 'c'));
    expect(unset.message).toBe('the environment variable SITE_USER is not set (used in login.form.username)');
    expect(
      (await failure(fetchAs(scrapers, '/login/members.html', form({ url: `${site.origin}/blocks/challenge-200.html` }), 'd'))).code,
    ).toBe('SOURCE_BLOCKED');
  });

  it.each(PROXY_LOGIN_CASES)(
    '%s: with a sticky proxy, the login goes through the proxy the fetches take',
    async (_name, scraper, mode) => {
      await freshDir();
      const proxy = await startForwardProxy({ username: 'u', password: 'p' });
      try {
        const scrapers = pool({ env: { ...env, PROXY_PASS: 'p' }, ...(await browserFor(mode)) });
        const settings =
          scraper === 1
            ? form()
            : {
                url: `${site.origin}/login/form`,
                steps: [
                  { type: 'form.login input[name="username"]', text: '${SITE_USER}' },
                  { type: 'form.login input[name="password"]', text: '${SITE_PASSWORD}' },
                  { click: 'form.login button[type="submit"]' },
                ],
              };
        const page = await scrapers.get(scraper).fetch({
          url: `${site.origin}/login/members.html`,
          access: { endpoint: 'members', proxy: { urls: [proxy.url.replace('http://', 'http://u:${PROXY_PASS}@')], rotate: 'sticky' } },
          login: { endpoint: 'members', settings },
        });
        expect(page.html).toContain('Gold');
        expect(loginStats(site).logins).toBe(1);
        expect(proxy.countTo('/login/form')).toBeGreaterThanOrEqual(1);
        expect(proxy.countTo('/login/submit')).toBe(1);
        expect(proxy.countTo('/login/members.html')).toBeGreaterThanOrEqual(1);
        expect(proxy.refused).toBe(0);
      } finally {
        await proxy.close();
      }
    },
    90_000,
  );

  it("never sends the credentials to another site than the login page's", async () => {
    await freshDir();
    site.resetHits();
    const elsewhere = `http://localhost:${site.port}`;
    const error = await failure(
      fetchAs(pool(), '/login/members.html', form({ url: `${site.origin}/login/form-elsewhere?to=${elsewhere}` })),
    );
    expect(error.code).toBe('LOGIN_FAILED');
    expect(error.message).toBe(`the login page posts its form to another site (localhost:${site.port}): the credentials were not sent`);
    expect(site.hitCount('/login/submit')).toBe(0);
  });

  it('never fills the form of another site the login URL redirects to (issue 45)', async () => {
    await freshDir();
    site.resetHits();
    const elsewhere = `http://localhost:${site.port}`;
    const error = await failure(
      fetchAs(pool(), '/login/members.html', form({ url: `${site.origin}/login/redirect-away?to=${elsewhere}` })),
    );
    expect(error.code).toBe('LOGIN_FAILED');
    expect(error.message).toBe(`the login page posts its form to another site (localhost:${site.port}): the credentials were not sent`);
    // The other site's form was read, never posted to.
    expect(site.hitCount('/login/form')).toBe(1);
    expect(site.hitCount('/login/submit')).toBe(0);
  });

  it('refuses a GET login form whose answer redirects to another site: the password in its address goes nowhere else (issue 45)', async () => {
    await freshDir();
    site.resetHits();
    site.state.delete('login.referer');
    const elsewhere = `http://localhost:${site.port}`;
    const error = await failure(fetchAs(pool(), '/login/members.html', form({ url: `${site.origin}/login/form-get?away=${elsewhere}` })));
    expect(error.code).toBe('LOGIN_FAILED');
    expect(error.message).toBe(
      `the login page redirects its form sent in the address (GET) to another site (localhost:${site.port}): the credentials were not sent`,
    );
    expect(site.hitCount('/login/submit-get')).toBe(1);
    expect(site.hitCount('/login/landing')).toBe(0);
    expect(site.state.get('login.referer')).toBeUndefined();
  });

  it('a login page that answers 429 pauses its origin: SOURCE_RATE_LIMITED, not a failed login', async () => {
    await freshDir();
    const scrapers = pool();
    site.resetHits();
    const error = await failure(
      fetchAs(scrapers, '/login/members.html', form({ url: `${site.origin}/blocks/rate-limited.html?after=120` }), 'limited'),
    );
    expect(error.code).toBe('SOURCE_RATE_LIMITED');
    expect(error.context.retryAfterSeconds).toBe(120);
    // The origin is left alone: another endpoint's login there is not even tried.
    expect((await failure(fetchAs(scrapers, '/login/members.html', form(), 'other'))).code).toBe('SOURCE_RATE_LIMITED');
    expect(site.hitCount('/login/form')).toBe(0);
    expect(site.hitCount('/blocks/rate-limited.html')).toBe(1);
  });

  it('never follows a link in place of the sessions folder: the session is not written where it points', async () => {
    await freshDir();
    const elsewhere = await mkdtemp(join(tmpdir(), 'pagejson-elsewhere-'));
    try {
      await chmod(elsewhere, 0o755);
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      await symlink(elsewhere, join(dataDir, 'logins'));
      const error = await failure(fetchAs(pool(), '/login/members.html', form()));
      expect(error.code).toBe('DATA_DIR_UNSAFE');
      expect(error.message).toContain('is a symbolic link');
      expect(await readdir(elsewhere)).toEqual([]);
      expect((await stat(elsewhere)).mode & 0o777).toBe(0o755);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('scraper 2 fetches with the session too', async () => {
    await freshDir();
    expect((await fetchAs(pool(), '/login/members.html', form(), 'members', 2)).html).toContain('Gold');
    expect(loginStats(site).logins).toBe(1);
  });

  it.skipIf(!chromiumAvailable).each(SCRAPER3_MODES)(
    "scraper 3 (%s): a form login's cookies go into the browser, and browser steps sign in and keep the storage",
    async (mode) => {
      await freshDir();
      const scrapers = pool(await browserFor(mode));
      expect((await fetchAs(scrapers, '/login/members.html', form(), 'members', 3)).html).toContain('Gold');
      const steps: LoginSettings = {
        url: `${site.origin}/login/form`,
        steps: [
          { type: 'form.login input[name="username"]', text: '${SITE_USER}' },
          { type: 'form.login input[name="password"]', text: '${SITE_PASSWORD}' },
          { click: 'form.login button[type="submit"]' },
        ],
      };
      expect((await fetchAs(scrapers, '/login/members.html', steps, 'members-steps', 3)).html).toContain('Gold');
      expect(loginStats(site).logins).toBe(2);
      const kept = JSON.parse(await readFile(join(dataDir, 'logins', 'members-steps.json'), 'utf8')) as {
        origins: Array<{ localStorage: Array<{ name: string }> }>;
      };
      expect(kept.origins[0]?.localStorage).toEqual([{ name: 'greeting', value: 'hello member' }]);
      // Reused: no third login.
      expect((await fetchAs(scrapers, '/login/members.html', steps, 'members-steps', 3)).html).toContain('Gold');
      expect(loginStats(site).logins).toBe(2);
    },
    90_000,
  );

  it.skipIf(!chromiumAvailable).each(SCRAPER3_MODES)(
    'scraper 3 (%s): steps that leave the form there are LOGIN_FAILED',
    async (mode) => {
      await freshDir();
      const browser = await browserFor(mode);
      site.state.set('loginPassword', 'another one');
      const steps: LoginSettings = {
        url: `${site.origin}/login/form`,
        steps: [
          { type: 'form.login input[name="username"]', text: '${SITE_USER}' },
          { type: 'form.login input[name="password"]', text: '${SITE_PASSWORD}' },
          { click: 'form.login button[type="submit"]' },
        ],
      };
      const error = await failure(fetchAs(pool(browser), '/login/members.html', steps, 'members-steps', 3));
      expect(error.code).toBe('LOGIN_FAILED');
      expect(error.message).toContain('the login form is still there after the steps');
      const missing = await failure(
        fetchAs(
          pool(browser),
          '/login/members.html',
          { url: `${site.origin}/login/form`, steps: [{ click: '#no-such-button' }] },
          'members-steps-2',
          3,
        ),
      );
      expect(missing.message).toMatch(/^login step 1 \(click "#no-such-button"\)/);
    },
    90_000,
  );
});
