import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { LOGIN_PASSWORD, loginStats } from '../support/site-routes/login.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * A daemon and the CLI sharing an endpoint's login session (issue 48, docs/access.md "Renewed only when the site
 * ends it"): the daemon signs in, the site ends the session, `pagejson run` (a process) signs in and stores its
 * own, the site ends that one too; the daemon's next request finds its own session turned away and the CLI's
 * stored one as well, and signs in for real: 200, one more login, no back-off.
 */
// The operator allows the two variables the login reads (docs/access.md, secrets).
const env = { SITE_USER: 'ada', SITE_PASSWORD: LOGIN_PASSWORD, PAGEJSON_SECRETS: 'SITE_USER,SITE_PASSWORD' };
const PRICES = [
  {
    name: 'prices',
    type: 'array' as const,
    selector: 'tr.row',
    fields: [{ name: 'name', type: 'string' as const, selector: '.name' }],
  },
];
const GOLD_AND_SILVER = { prices: [{ name: 'Gold' }, { name: 'Silver' }] };

describe('a login session shared by the CLI and the daemon', () => {
  let site: FixtureSite;
  let temp: TempProject;
  let server: RunningServer;
  let key: string;

  const cli = (...args: string[]) =>
    execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env: { NO_COLOR: '1', ...env }, timeout: 90_000 });
  const get = async (apiId: string) => {
    const response = await fetch(`${server.url}/external/${apiId}`, { headers: { apikey: key } });
    return { status: response.status, body: (await response.json()) as { data: unknown; errors: unknown } };
  };
  const expire = () => fetch(`${site.origin}/login/expire`).then((response) => response.text());

  beforeAll(async () => {
    await ensureBuilt();
    site = await startFixtureSite();
    const login = { url: `${site.origin}/login/form`, form: { username: '${SITE_USER}', password: '${SITE_PASSWORD}' } };
    temp = await makeProject(
      [
        { apiId: 'members', url: `${site.origin}/login/members.html`, caching: false, login, structure: PRICES },
        { apiId: 'members-too', url: `${site.origin}/login/members.html`, caching: false, login, structure: PRICES },
      ],
      // A busy machine must not turn a slow extraction of a small page into a failure here.
      { extraction: { timeoutMs: 60_000 }, fetch: { timeoutMs: 30_000 } },
    );
    server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, env, app: { logger: false } });
    key = (await issueKey(server.runtime.store, { freeCredits: 100 })).key;
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    await Promise.all([site?.close(), temp?.cleanup()]);
  });

  it('the daemon signs in for real when its session and the one the CLI stored have both expired', async () => {
    expect(await get('members')).toEqual({ status: 200, body: { data: GOLD_AND_SILVER, errors: null } });
    expect(loginStats(site).logins).toBe(1);

    await expire();
    const run = await cli('run', 'members');
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual(GOLD_AND_SILVER);
    expect(loginStats(site).logins).toBe(2);

    await expire();
    expect(await get('members')).toEqual({ status: 200, body: { data: GOLD_AND_SILVER, errors: null } });
    expect(loginStats(site).logins).toBe(3);
    // The new session is kept: the next request, and the CLI's next run, sign in no more.
    expect((await get('members')).status).toBe(200);
    const again = await cli('run', 'members');
    expect(again.stderr).toBe('');
    expect(again.exitCode).toBe(0);
    expect(loginStats(site).logins).toBe(3);
  });

  it('the CLI signs in for real when the session the daemon stored has expired, and the daemon then takes the CLI one', async () => {
    expect((await get('members-too')).status).toBe(200);
    const before = loginStats(site).logins;
    await expire();
    const run = await cli('run', 'members-too');
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(GOLD_AND_SILVER);
    expect(loginStats(site).logins).toBe(before + 1);
    // The daemon's own session ended; the one the CLI stored is good: taken, no sign-in of its own.
    expect(await get('members-too')).toEqual({ status: 200, body: { data: GOLD_AND_SILVER, errors: null } });
    expect(loginStats(site).logins).toBe(before + 1);
  });
});
