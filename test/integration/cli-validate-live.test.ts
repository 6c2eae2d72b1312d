import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, type TempProject } from './daemon-support.js';

/** `validate --live`: configs checked against their pages as fetched now (the fixture site's job board). */
let site: FixtureSite;
let temp: TempProject | undefined;

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
}, 300_000);
afterAll(async () => {
  await temp?.cleanup();
  await site?.close();
});

const jobs = (
  apiId: string,
  extra: Partial<ApiConfigInput>,
  fields: NonNullable<ApiConfigInput['structure'][number]['fields']>,
): ApiConfigInput => ({
  apiId,
  url: `${site.origin}/jobs-board.html`,
  selector: 'ul.jobs',
  structure: [{ name: 'jobs', type: 'array', selector: 'li.job', fields }],
  ...extra,
});

describe('pagejson validate --live', () => {
  it('fails on a section that matches nothing, warns on fields and attributes the page does not have', async () => {
    temp = await makeProject([
      jobs('good', {}, [
        { name: 'title', type: 'string', selector: 'a.title' },
        { name: 'url', type: 'url', selector: 'a.title', attribute: 'href' },
      ]),
      jobs('drifted', {}, [
        { name: 'title', type: 'string', selector: 'a.title', attribute: 'data-title' },
        { name: 'salary', type: 'string', selector: '.salary' },
      ]),
    ]);
    const cli = (...args: string[]) =>
      execa(process.execPath, [CLI_BIN, ...args], { cwd: temp!.root, reject: false, env: { NO_COLOR: '1' } });
    // Offline, both configs are valid: the problems are only visible on the page.
    expect((await cli('validate')).exitCode).toBe(0);

    const warned = await cli('validate', '--live', '--format', 'json');
    expect(warned.exitCode).toBe(0);
    const report = JSON.parse(warned.stdout) as {
      ok: boolean;
      problems: Array<{ file: string; path: string; severity: string; message: string; hint?: string }>;
    };
    expect(report.ok).toBe(true);
    expect(report.problems.filter((problem) => problem.file.endsWith('good.json'))).toEqual([]);
    expect(report.problems).toContainEqual(
      expect.objectContaining({
        file: 'configs/drifted.json',
        path: '$.structure[0].fields[0].attribute',
        severity: 'warning',
        message: 'attribute "data-title" is on none of the 4 elements "a.title" matches',
        hint: 'they have: class, href; or leave attribute out to read their text',
      }),
    );
    expect(report.problems).toContainEqual(
      expect.objectContaining({
        path: '$.structure[0].fields[1].selector',
        severity: 'warning',
        message: expect.stringMatching(/^"\.salary" matches nothing in any of the 4 jobs elements on /),
      }),
    );

    await temp.writeConfig(jobs('lost', { selector: 'ul.jobz' }, [{ name: 'title', type: 'string', selector: 'a.title' }]));
    const failed = await cli('validate', '--live');
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toMatch(/configs\/lost\.json:\d+:\d+ \$\.selector: the section selector "ul\.jobz" matches nothing on http/);
    expect(failed.stdout).toContain('hint: sections this page has: "ul.jobs" (4 × li.job)');
    expect(failed.stdout).toContain('warning: attribute "data-title"');
    const github = await cli('validate', '--live', '--format', 'github');
    expect(github.stdout).toMatch(
      /^::warning file=configs\/drifted\.json,line=\d+,col=\d+,title=pagejson \$\.structure\[0\]\.fields\[0\]\.attribute::/m,
    );
    expect(github.stdout).toMatch(/^::error file=configs\/lost\.json,line=\d+,col=\d+,title=pagejson \$\.selector::/m);
  });
});
