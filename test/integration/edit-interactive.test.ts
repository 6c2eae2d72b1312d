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
import { exampleConfigText } from '../support/example-configs.js';
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
const MENU = { add: 0, url: 9, caching: 10, save: 18, quit: 19 };

beforeAll(async () => {
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
