import { screen } from '@inquirer/testing/vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadProject } from '../../src/core/config/project.js';
import { openConfigForEdit } from '../../src/core/edit/config-file.js';
import type { CliContext } from '../../src/cli/context.js';
import { runInteractiveEdit } from '../../src/cli/prompts/edit-session.js';
import { ensureBuilt } from '../support/build-once.js';
import { exampleConfigText } from '../support/example-configs.js';
import { PAGINATED_BOOKS_STRUCTURE } from '../support/site-routes/pagination.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

// The real prompts of @inquirer/prompts run against inquirer's test screen (its documented testing
// utility); the config file, the project and the fixture site page are real.
let site: FixtureSite;
let dir: string;
let file: string;
let output: string;

function context(): CliContext {
  const stdout = new PassThrough();
  stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { cwd: dir, env: { NO_COLOR: '1' }, stdout, stderr: new PassThrough(), interactive: true, exitCode: 0 };
}

/** The prompts draw after fetches and file reads of their own: wait for the text, within a bound. */
async function waitForScreen(text: string): Promise<void> {
  await vi.waitFor(
    () => {
      if (!screen.getScreen().includes(text))
        throw new Error(`prompt never showed "${text}"; screen:\n${screen.getScreen()}\noutput:\n${output}`);
    },
    { timeout: 20_000, interval: 10 },
  );
}

async function choose(prompt: string, downs: number): Promise<void> {
  await waitForScreen(prompt);
  for (let i = 0; i < downs; i += 1) screen.keypress('down');
  screen.keypress('enter');
}

async function answer(prompt: string, text: string): Promise<void> {
  await waitForScreen(prompt);
  if (text) screen.type(text);
  screen.keypress('enter');
}

// Positions in the main menu of a scraper-1 config (session toggle shown).
const MENU = { add: 0, url: 9, caching: 10, scraper: 13, pagination: 18, actions: 19, save: 20, quit: 21 };

beforeAll(async () => {
  // The page's selector tries run in a worker thread, which loads the built files.
  await ensureBuilt();
  site = await startFixtureSite();
  dir = await mkdtemp(join(tmpdir(), 'pagejson-edit-tty-'));
  await writeFile(join(dir, 'pagejson.json'), JSON.stringify({ fetch: { allowPrivateNetworks: true } }));
  await mkdir(join(dir, 'configs'));
  file = join(dir, 'configs/books.json');
});
afterAll(async () => {
  await site.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  output = '';
  await writeFile(file, exampleConfigText('books', site.origin));
});

describe('interactive edit', () => {
  it('adds a field with a selector tried on the page, makes a path segment dynamic, and saves with a diff', async () => {
    const project = await loadProject({ cwd: dir });
    const session = runInteractiveEdit(await openConfigForEdit(file), project, context());

    await choose('What next?', MENU.add);
    await choose('Add where?', 1); // inside books
    await answer('Field name', 'stars');
    // The selector comes first, counted where the field is read: in each book, not on the whole page.
    await answer('CSS selector', 'p.star-rating');
    await waitForScreen('Read');
    expect(output).toMatch(/matches \d+ of \d+ books items: "[^"]*"/);
    expect(screen.getScreen()).toMatch(/@class +\(on \d+ of \d+\)/);
    await choose('Read', 1); // @class, the one attribute these elements have
    await choose('Type', 0); // string
    await choose('Transforms', 0);
    await answer('regex:', 'regex:star-rating (\\w+)');

    await choose('What next? (unsaved changes', MENU.url);
    await choose('Toggle which part of the URL?', 0); // path segment 1: listing.html
    await answer('Variable name for path segment 1', 'page');

    await choose('What next? (unsaved changes', MENU.save);
    await waitForScreen('Save revision 2?');
    screen.keypress('enter');
    expect((await session).outcome).toBe('saved');

    expect(output).toContain('field books.stars added (string, selector "p.star-rating")');
    expect(output).toContain('variable page added (example "listing.html")');
    expect(output).toMatch(/^\+\s+"url": ".*\{\{ page \}\}",$/m);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.revision).toBe(2);
    expect(saved.url).toBe(`${site.origin}/{{ page }}`);
    const rating = saved.structure.find((f: { name: string }) => f.name === 'books').fields.at(-1);
    expect(rating).toEqual({
      name: 'stars',
      type: 'string',
      selector: 'p.star-rating',
      attribute: 'class',
      transform: ['regex:star-rating (\\w+)'],
    });
    // The live sample shown while editing used the new field.
    expect(output).toMatch(/stars\s+string\s+← p\.star-rating @class\s+"(One|Two|Three|Four|Five)"/);
  });

  it('asks before quitting with unsaved changes and leaves the file untouched', async () => {
    const before = await readFile(file, 'utf8');
    const project = await loadProject({ cwd: dir });
    const session = runInteractiveEdit(await openConfigForEdit(file), project, context());
    await choose('What next?', MENU.caching);
    await choose('What next? (unsaved changes', MENU.quit);
    await choose('You have unsaved changes', 2); // Keep editing
    await choose('What next? (unsaved changes', MENU.quit);
    await choose('You have unsaved changes', 1); // Discard them
    expect((await session).outcome).toBe('quit');
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});

describe('interactive edit of pagination and browser actions (issue 34)', () => {
  async function catalogue(): Promise<string> {
    const config = join(dir, 'configs/catalogue.json');
    await writeFile(
      config,
      JSON.stringify({ apiId: 'catalogue', url: `${site.origin}/pages/next.html?pages=3`, structure: PAGINATED_BOOKS_STRUCTURE }),
    );
    return config;
  }

  it('sets pagination by a next link tried on the page, with its limits, and saves it as the flags would', async () => {
    const config = await catalogue();
    const project = await loadProject({ cwd: dir });
    const session = runInteractiveEdit(await openConfigForEdit(config), project, context());
    await choose('What next?', MENU.pagination);
    await choose('Pagination (now: off, one page)', 0); // Follow the next-page link
    await answer('CSS selector of the next-page link', ''); // the proposed a[rel=next]
    await waitForScreen('Use this selector?');
    // The selector was tried on the page: the one next link of page 1.
    expect(output).toMatch(/1 match on the page: "next"/);
    screen.keypress('enter');
    await waitForScreen('Pages (or rounds of click/scroll) at most');
    screen.keypress('backspace');
    screen.keypress('backspace');
    await answer('Pages (or rounds of click/scroll) at most', '0'); // refused: 1-100
    await waitForScreen('a whole number from 1 to 100');
    screen.keypress('backspace');
    await answer('Pages (or rounds of click/scroll) at most', '3');
    await answer('Stop at this many items', '25');
    await choose('What next? (unsaved changes', MENU.save);
    await waitForScreen('Save revision 2?');
    expect(output).toContain('pagination added: follow the next link "a[rel=next]"');
    screen.keypress('enter');
    expect((await session).outcome).toBe('saved');
    const saved = JSON.parse(await readFile(config, 'utf8'));
    expect(saved.pagination).toEqual({ next: 'a[rel=next]', maxPages: 3, maxItems: 25 });
  });

  it('offers only the URL variables for counting pages, and says what to do when there is none', async () => {
    const config = await catalogue();
    const project = await loadProject({ cwd: dir });
    const session = runInteractiveEdit(await openConfigForEdit(config), project, context());
    await choose('What next?', MENU.pagination);
    await choose('Pagination (now: off, one page)', 1); // Count a URL variable up
    await waitForScreen('What next?');
    expect(output).toContain('the URL has no variable to count: make the page number a variable first (Dynamic variables in the menu)');
    await choose('What next?', MENU.quit);
    expect((await session).outcome).toBe('quit');
  });

  it('builds browser actions step by step (a consent wall, a search typed from a variable), warns off scraper 3, and removes a step', async () => {
    const config = await catalogue();
    const project = await loadProject({ cwd: dir });
    const session = runInteractiveEdit(await openConfigForEdit(config), project, context());
    await choose('What next?', MENU.actions);
    await waitForScreen('Actions (0 of at most 50)');
    expect(output).toContain('validate will refuse this until the scraper is 3');
    screen.keypress('enter'); // Add a step at the end
    await choose('Which step?', 7); // ifExists
    await answer('CSS selector that must be there', '#consent');
    await waitForScreen('Use this selector?');
    expect(output).toContain('0 matches on the page');
    screen.type('y');
    screen.keypress('enter');
    await choose('Which step?', 0); // click
    await answer('CSS selector of the element to click', '#consent button');
    await waitForScreen('Use this selector?');
    screen.type('y');
    screen.keypress('enter');
    await answer('Another step if "#consent" is there?', 'n');
    await choose('Actions (1 of at most 50)', 0); // Add a step at the end
    await choose('Which step?', 3); // type
    await answer('CSS selector of the field', 'h1');
    await waitForScreen('Use this selector?');
    screen.keypress('enter');
    await answer('Text to type', '{{ q }}');
    await choose('Actions (2 of at most 50)', 0);
    await choose('Which step?', 2); // waitMs
    await answer('Milliseconds', '');
    await choose('Actions (3 of at most 50)', 1); // Remove a step
    await choose('Remove which step?', 2); // the wait
    await choose('Actions (2 of at most 50)', 3); // Done
    await answer('Example value of {{ q }}', 'light');
    await choose('What next? (unsaved changes', MENU.scraper);
    await choose('plain HTTP (session capable)', 2); // 3  headless Chromium
    // Off scraper 1 the menu has no session toggle: Save is one up.
    await choose('What next? (unsaved changes', MENU.save - 1);
    await waitForScreen('Save revision 2?');
    screen.keypress('enter');
    expect((await session).outcome).toBe('saved');
    const saved = JSON.parse(await readFile(config, 'utf8'));
    expect(saved.scraper).toBe(3);
    expect(saved.actions).toEqual([
      { ifExists: '#consent', then: [{ click: '#consent button' }] },
      { type: 'h1', text: '{{ q }}' },
    ]);
    expect(saved.variables).toEqual({ q: { example: 'light' } });
  });
});

describe('interactive edit on a hostile page (issue 40)', () => {
  /** A project of its own whose one config reads the fixture's 40,000-item list. */
  async function hostileProject(extraction: Record<string, number>) {
    const root = await mkdtemp(join(tmpdir(), 'pagejson-edit-hostile-'));
    await writeFile(join(root, 'pagejson.json'), JSON.stringify({ fetch: { allowPrivateNetworks: true }, extraction }));
    await mkdir(join(root, 'configs'));
    const config = join(root, 'configs/many.json');
    await writeFile(
      config,
      JSON.stringify({
        apiId: 'many',
        url: `${site.origin}/hostile/siblings?n=40000`,
        structure: [{ name: 'title', type: 'string', selector: 'h1' }],
      }),
    );
    return { root, config, project: await loadProject({ cwd: root }) };
  }

  it('tries a costly selector with the extraction budget: its error is shown, and the editor goes on', async () => {
    const { root, config, project } = await hostileProject({ timeoutMs: 2_000 });
    try {
      const before = await readFile(config, 'utf8');
      const session = runInteractiveEdit(await openConfigForEdit(config), project, { ...context(), cwd: root });
      await choose('What next?', 5); // Change a field's selector
      await choose('Change the selector of which field?', 0);
      // Allowed, and quadratic in the siblings: tens of seconds on this page on the editor's own thread.
      await answer('CSS selector', 'li:nth-last-of-type(3)');
      await waitForScreen('Use it anyway?');
      expect(output).toContain(
        'the selector could not be tried on the page: extraction stopped: it ran past its budget of 2000 ms (extraction.timeoutMs in pagejson.json)',
      );
      screen.type('y');
      screen.keypress('enter');
      // The live sample of the changed config meets the same budget.
      await waitForScreen('What next? (unsaved changes');
      expect(output).toContain(
        'no live sample: extraction stopped: it ran past its budget of 2000 ms (extraction.timeoutMs in pagejson.json)',
      );
      await choose('What next? (unsaved changes', MENU.quit);
      await choose('You have unsaved changes', 1); // Discard them
      expect((await session).outcome).toBe('quit');
      expect(await readFile(config, 'utf8')).toBe(before);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("parses the page within the project's document limits", async () => {
    const { root, config, project } = await hostileProject({ maxElements: 1_000 });
    try {
      const session = runInteractiveEdit(await openConfigForEdit(config), project, { ...context(), cwd: root });
      await choose('What next?', MENU.quit);
      expect((await session).outcome).toBe('quit');
      expect(output).toContain(
        'no live sample: extraction stopped: the page has more than 1000 elements (extraction.maxElements in pagejson.json)',
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
