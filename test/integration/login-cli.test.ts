import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-once.js';
import { createCliProject, initWithExamples, type CliProject } from '../support/cli-project.js';
import { LOGIN_PASSWORD, loginStats } from '../support/site-routes/login.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * The CLI with logins and block pages, as a process (docs/access.md, docs/block-pages.md): generate --login
 * writes the login as typed and signs in once, run reuses the session it kept; generate on a challenge page
 * refuses it with SOURCE_BLOCKED and what to try; validate, show and edit for `login`.
 */
const env = { SITE_USER: 'ada', SITE_PASSWORD: LOGIN_PASSWORD, PAGEJSON_SECRETS: 'SITE_USER,SITE_PASSWORD,OTHER_PASSWORD' };
let site: FixtureSite;
let project: CliProject;

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  project = await createCliProject();
  await initWithExamples(project, site.origin, []);
}, 180_000);

afterAll(async () => {
  await project?.remove();
  await site?.close();
});

describe('pagejson and logins', () => {
  it('generate --login signs in, keeps the login as typed and the session in the data dir; run reuses it', async () => {
    const result = await project.run(
      [
        'generate',
        `${site.origin}/login/members.html`,
        '--id',
        'members',
        '--selector',
        'table.prices',
        '--login',
        `${site.origin}/login/form`,
        '--login-field',
        'username=${SITE_USER}',
        '--login-field',
        'password=${SITE_PASSWORD}',
        '--logged-in',
        'a.logout',
        '--yes',
        '--json',
      ],
      { env },
    );
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const config = JSON.parse(await project.read('configs/members.json')) as { login: unknown };
    expect(config.login).toEqual({
      url: `${site.origin}/login/form`,
      form: { username: '${SITE_USER}', password: '${SITE_PASSWORD}' },
      loggedIn: 'a.logout',
    });
    expect(await project.read('configs/members.json')).not.toContain(LOGIN_PASSWORD);
    expect(loginStats(site).logins).toBe(1);
    expect((await stat(join(project.dir, '.pagejson', 'logins', 'members.json'))).mode & 0o777).toBe(0o600);

    const run = await project.run(['run', 'members'], { env });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('Gold');
    expect(loginStats(site).logins).toBe(1);
  });

  it("generate --force without --login keeps the config's login and reads the page signed in again", async () => {
    const before = JSON.parse(await project.read('configs/members.json')) as { login: unknown; revision: number };
    const result = await project.run(
      ['generate', `${site.origin}/login/members.html`, '--id', 'members', '--selector', 'table.prices', '--force', '--yes', '--json'],
      { env, timeoutMs: 180_000 },
    );
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(JSON.stringify((JSON.parse(result.stdout) as { sample: unknown }).sample)).toContain('Gold');
    const after = JSON.parse(await project.read('configs/members.json')) as { login: unknown; revision: number };
    expect(after.login).toEqual(before.login);
    expect(after.revision).toBe(before.revision + 1);
  }, 300_000);

  it('run without the password set fails naming the variable, never a value', async () => {
    await project.run(['edit', 'members', '--set', 'login.form.password=${OTHER_PASSWORD}'], { env });
    const run = await project.run(['run', 'members'], { env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('the environment variable OTHER_PASSWORD is not set (used in login.form.password)');
  });

  it('generate refuses a challenge page with SOURCE_BLOCKED and what to try, instead of proposing a structure for it', async () => {
    const result = await project.run(['generate', `${site.origin}/blocks/challenge-200.html`, '--id', 'challenged', '--yes']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('a Cloudflare challenge script');
    expect(result.stderr).toMatch(/hint: .*scraper 3.*proxy.*login/);
    await expect(project.read('configs/challenged.json')).rejects.toThrow();
  });

  it('validate refuses login steps on scraper 1 in words; show masks a password written into the file; edit says what changed', async () => {
    await project.write(
      'configs/stepped.json',
      JSON.stringify({
        apiId: 'stepped',
        url: `${site.origin}/login/members.html`,
        login: { url: `${site.origin}/login/form`, steps: [{ click: 'button' }] },
        structure: [{ name: 'title', type: 'string', selector: 'h1' }],
      }),
    );
    const validate = await project.run(['validate', 'configs/stepped.json']);
    expect(validate.exitCode).toBe(1);
    expect(validate.stdout).toContain('$.login.steps: login steps run in the browser, and this endpoint uses scraper 1');
    await project.run(['edit', 'stepped', '--set', 'login=off']);

    const edit = await project.run(['edit', 'members', '--set', 'login.form.password=hunter2'], { env });
    expect(edit.exitCode).toBe(0);
    expect(edit.stdout).toContain('values of password changed');
    expect(edit.stdout).not.toContain('hunter2');
    const show = await project.run(['show', 'members']);
    expect(show.stdout).toContain('login form   username=${SITE_USER}, password=••••');
    expect(show.stdout).not.toContain('hunter2');
    const json = await project.run(['show', 'members', '--json']);
    expect(JSON.parse(json.stdout).login.form.password).toBe('••••');
  });
});
