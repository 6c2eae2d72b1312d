import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { KEY, spawnCliOnPty, type PtyCli } from '../support/pty.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, type TempProject } from './daemon-support.js';

/**
 * The prompts as a person meets them: the built CLI on a pseudo-terminal, driven with keys (arrows, Enter,
 * Escape, Ctrl-C). Each test fails without the fix it names: Ctrl-C as a clean exit 130, Escape as "back",
 * leaving an edit with unsaved changes, the add-field screen that counts matches where the field is read and
 * offers the attributes the elements have, and the generate flow that charges only what it saves.
 */
let site: FixtureSite;
let temp: TempProject | undefined;
let pty: PtyCli | undefined;

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
}, 300_000);
afterAll(async () => {
  await site?.close();
});
afterEach(async () => {
  pty?.kill();
  pty = undefined;
  await temp?.cleanup();
  temp = undefined;
});

async function project(): Promise<TempProject> {
  temp = await makeProject([
    {
      apiId: 'jobs',
      url: `${site.origin}/jobs-board.html`,
      selector: 'ul.jobs',
      structure: [{ name: 'jobs', type: 'array', selector: 'li.job', fields: [{ name: 'title', type: 'string', selector: 'a.title' }] }],
    },
  ]);
  return temp;
}
const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp!.root, reject: false });
const credits = async () => (JSON.parse((await cli('credits', '--json')).stdout) as { balance: number }).balance;
const configText = () => readFile(join(temp!.root, 'configs/jobs.json'), 'utf8');

describe('pagejson edit on a terminal', () => {
  it('leaves at Ctrl-C with exit 130 and one line, writing nothing', async () => {
    const { root } = await project();
    const before = await configText();
    pty = spawnCliOnPty(['edit', 'jobs'], { cwd: root });
    await pty.waitFor('What next?');
    await pty.press(KEY.enter); // Add a field
    await pty.waitFor('Add where?');
    pty.type(KEY.ctrlC);
    expect(await pty.exited).toBe(130);
    expect(pty.text()).toContain('cancelled: nothing was written');
    expect(pty.text()).not.toContain('unexpected failure');
    expect(await configText()).toBe(before);
  });

  it('adds a field by selector first: matches counted in each item, attributes offered, value extracted after saving', async () => {
    const { root } = await project();
    pty = spawnCliOnPty(['edit', 'jobs'], { cwd: root });
    await pty.waitFor('What next?');
    // Escape in a sub-menu goes back to the menu.
    await pty.press(KEY.enter);
    await pty.waitFor('Add where?');
    pty.mark();
    await pty.press(KEY.escape);
    await pty.waitFor('What next?');

    await pty.press(KEY.enter);
    await pty.waitFor('Add where?');
    await pty.press(KEY.down, KEY.enter); // inside jobs
    await pty.waitFor('Field name');
    pty.type('link');
    await pty.press(KEY.enter);
    await pty.waitFor('CSS selector');
    pty.type('a.title');
    pty.mark();
    await pty.press(KEY.enter);
    // Counted inside each job, where the field is read: not 0, and not the page's other links.
    await pty.waitFor('matches 4 of 4 jobs items: "Line cook", "Baker", "Porter"');
    await pty.waitFor(/@href +\(on 4 of 4\)/);
    await pty.press(KEY.down, KEY.down, KEY.enter); // @href (after the text and @class)
    await pty.waitFor('Type');
    await pty.press(KEY.enter); // the suggested type: url
    await pty.waitFor('Transforms');
    await pty.press(KEY.enter);
    await pty.waitFor('regex:');
    pty.mark();
    await pty.press(KEY.enter);
    await pty.waitFor('unsaved changes');
    // Escape at the menu with unsaved changes: save or discard them.
    await pty.press(KEY.escape);
    await pty.waitFor('You have unsaved changes');
    await pty.press(KEY.enter); // Save them
    await pty.waitFor('Save revision 2?');
    await pty.press(KEY.enter);
    expect(await pty.exited).toBe(0);

    const saved = JSON.parse(await configText()) as {
      revision: number;
      $schema: string;
      structure: Array<{ fields: Array<Record<string, unknown>> }>;
    };
    expect(saved.revision).toBe(2);
    expect(saved.$schema).toBe('./pagejson.config.schema.json');
    expect(saved.structure[0]!.fields[1]).toEqual({ name: 'link', type: 'url', selector: 'a.title', attribute: 'href' });
    const run = JSON.parse((await cli('run', 'jobs')).stdout) as { jobs: Array<{ link: string }> };
    expect(run.jobs.map((job) => job.link)).toEqual([1, 2, 3, 4].map((n) => `${site.origin}/jobs/${n}`));
  });

  it('discards unsaved changes when asked to on leaving', async () => {
    const { root } = await project();
    const before = await configText();
    pty = spawnCliOnPty(['edit', 'jobs'], { cwd: root });
    await pty.waitFor('What next?');
    await pty.press(...Array<string>(10).fill(KEY.up), KEY.enter); // Status: active (toggle), tenth from the end
    await pty.waitFor('Status: inactive');
    await pty.press(KEY.escape);
    await pty.waitFor('You have unsaved changes');
    await pty.press(KEY.down, KEY.enter); // Discard them
    expect(await pty.exited).toBe(0);
    expect(await configText()).toBe(before);
  });
});

describe('pagejson serve on a terminal', () => {
  it('logs readable lines, not JSON', async () => {
    const { root } = await project();
    pty = spawnCliOnPty(['serve', '--port', '0'], { cwd: root });
    await pty.waitFor(/\[\d\d:\d\d:\d\d\] INFO: Server listening at http:\/\/127\.0\.0\.1:\d+/);
    expect(pty.text()).not.toContain('{"level":');
    pty.type(KEY.ctrlC);
    expect(await pty.exited).toBe(0);
  });
});

describe('pagejson generate on a terminal', () => {
  it('checks the URL before asking anything', async () => {
    await project();
    const result = await cli('generate', 'htp:/nowhere');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/only http and https pages can be fetched|is not a URL/);
  });

  it('asks only what the flags left out, lets the id change, edits before saving and charges once', async () => {
    const { root } = await project();
    pty = spawnCliOnPty(['generate', `${site.origin}/jobs-board.html`, '--selector', 'ul.jobs', '--rule', 'jobs'], { cwd: root });
    await pty.waitFor('Scraper');
    await pty.press(KEY.enter); // 1 http
    await pty.waitFor('Use session');
    await pty.press(KEY.enter);
    await pty.waitFor('Model');
    await pty.press(KEY.enter); // heuristic
    await pty.waitFor('Save this structure as');
    // Given by flags, never asked: the URL, the section and the rule.
    expect(pty.text()).not.toContain('Page URL');
    expect(pty.text()).not.toContain('CSS selector of the section');
    expect(pty.text()).not.toContain('Data extraction rule');

    await pty.press(KEY.down, KEY.down, KEY.enter); // Change the id
    await pty.waitFor('apiId');
    pty.type('jobs'); // taken: refused
    await pty.press(KEY.enter);
    await pty.waitFor('already exists');
    pty.type('\u007f\u007f\u007f\u007fharbor-jobs');
    pty.mark();
    await pty.press(KEY.enter);
    await pty.waitFor('Save this structure as harbor-jobs?');
    await pty.press(KEY.down, KEY.enter); // Edit before saving
    await pty.waitFor('What next?');
    await pty.press(KEY.escape);
    await pty.waitFor('Leave without saving this new endpoint?');
    await pty.press(KEY.enter); // Save it
    expect(await pty.exited).toBe(0);

    const saved = JSON.parse(await readFile(join(root, 'configs/harbor-jobs.json'), 'utf8')) as { apiId: string; revision: number };
    expect(saved).toMatchObject({ apiId: 'harbor-jobs', revision: 1 });
    expect(await credits()).toBe(99.75);
  });

  it('charges nothing when the review is cancelled or Ctrl-C is pressed, and Escape steps back a question', async () => {
    const { root } = await project();
    pty = spawnCliOnPty(
      ['generate', `${site.origin}/jobs-board.html`, '--scraper', '1', '--model', 'heuristic', '--selector', 'ul.jobs', '--rule', ''],
      { cwd: root },
    );
    await pty.waitFor('Use session');
    await pty.press(KEY.enter);
    await pty.waitFor('Save this structure as');
    await pty.press(KEY.up, KEY.enter); // Cancel (the list wraps)
    expect(await pty.exited).toBe(130);
    expect(pty.text()).toContain('cancelled: nothing was written or charged');

    pty = spawnCliOnPty(['generate'], { cwd: root });
    await pty.waitFor('Page URL');
    pty.type('ftp://example.com/');
    await pty.press(KEY.enter);
    await pty.waitFor('only http and https pages can be fetched');
    pty.type(`${'\u007f'.repeat(19)}${site.origin}/jobs-board.html`);
    await pty.press(KEY.enter);
    await pty.waitFor('Scraper');
    pty.mark();
    await pty.press(KEY.escape);
    await pty.waitFor('Page URL');
    await pty.press(KEY.enter); // the URL typed before is kept
    await pty.waitFor('Scraper');
    pty.type(KEY.ctrlC);
    expect(await pty.exited).toBe(130);
    expect(pty.text()).not.toContain('unexpected failure');

    expect(await credits()).toBe(100);
    expect(existsSync(join(root, 'configs/jobs-board.json'))).toBe(false);
    expect(existsSync(join(root, 'configs/127-0-0-1-jobs-board.json'))).toBe(false);
  });
});

describe('pagejson generate asks early and asks again (issue 52)', () => {
  it('asks for another id right after the URL when the URL’s id is taken, before any other question', async () => {
    const { root, writeConfig } = await project();
    await writeConfig({
      apiId: '127-0-0-1-jobs-board',
      url: `${site.origin}/jobs-board.html`,
      structure: [{ name: 'title', type: 'string', selector: 'h1' }],
    });
    pty = spawnCliOnPty(['generate', `${site.origin}/jobs-board.html`, '--selector', 'ul.jobs', '--rule', 'jobs'], { cwd: root });
    await pty.waitFor('configs/127-0-0-1-jobs-board.json already exists; apiId of the new endpoint');
    expect(pty.text()).not.toContain('Scraper');
    pty.type('jobs'); // taken too: refused at once
    await pty.press(KEY.enter);
    await pty.waitFor('configs/jobs.json already exists: choose another id');
    pty.type('\u007f\u007f\u007f\u007fharbor');
    await pty.press(KEY.enter);
    await pty.waitFor('Scraper');
    await pty.press(KEY.enter);
    await pty.waitFor('Use session');
    await pty.press(KEY.enter);
    await pty.waitFor('Model');
    await pty.press(KEY.enter);
    await pty.waitFor('Save this structure as harbor?');
    await pty.press(KEY.enter);
    expect(await pty.exited).toBe(0);
    expect(JSON.parse(await readFile(join(root, 'configs/harbor.json'), 'utf8'))).toMatchObject({ apiId: 'harbor' });
  });

  it('a section selector that matches nothing is asked again with the sections the page has', async () => {
    const { root } = await project();
    pty = spawnCliOnPty(
      ['generate', `${site.origin}/jobs-board.html`, '--scraper', '1', '--model', 'heuristic', '--selector', 'ul.nothing', '--rule', ''],
      { cwd: root },
    );
    await pty.waitFor('Use session');
    await pty.press(KEY.enter);
    // The prompt's last choice, not its title: the choices are drawn after the title, and a busy machine shows the gap.
    await pty.waitFor('the whole page');
    expect(pty.text()).toContain('Section to extract');
    expect(pty.text()).toContain('the section selector "ul.nothing" matches nothing');
    await pty.press(KEY.up, KEY.enter); // another selector… (the list wraps)
    await pty.waitFor('CSS selector of the section to extract');
    pty.type('ul.jobs');
    await pty.press(KEY.enter);
    await pty.waitFor('Save this structure as');
    await pty.press(KEY.enter);
    expect(await pty.exited).toBe(0);
    const saved = JSON.parse(await readFile(join(root, 'configs/127-0-0-1-jobs-board.json'), 'utf8')) as { selector: string };
    expect(saved.selector).toBe('ul.jobs');
  });
});
