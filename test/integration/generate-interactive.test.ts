import { screen } from '@inquirer/testing/vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The CLI is imported after @inquirer/testing/vitest, which replaces the prompts with its screen.
import type { CliContext } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

let site: FixtureSite;
const dirs: string[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function makeProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-generate-tty-'));
  dirs.push(dir);
  await writeFile(join(dir, 'pagejson.json'), JSON.stringify({ fetch: { allowPrivateNetworks: true, timeoutMs: 5_000 } }));
  return dir;
}

function terminalContext(dir: string): CliContext & { output: () => string } {
  let text = '';
  const sink = () =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
  return { cwd: dir, env: { NO_COLOR: '1' }, stdout: sink(), stderr: sink(), interactive: true, exitCode: 0, output: () => text };
}

/** Waits until the prompt on screen shows `text`: prompts appear after async work (loading, fetching). */
async function waitForPrompt(text: string): Promise<void> {
  await vi.waitFor(() => expect(screen.getScreen()).toContain(text), { timeout: 20_000, interval: 20 });
}

describe('pagejson generate on a terminal', () => {
  it('asks for every missing input, shows the tree and saves on accept', async () => {
    const dir = await makeProject();
    const ctx = terminalContext(dir);
    const run = main(['node', 'pagejson', 'generate', '--id', 'books'], ctx);

    await waitForPrompt('Page URL');
    screen.type(`${site.origin}/listing.html`);
    screen.keypress('enter');
    await waitForPrompt('Scraper');
    screen.keypress('enter'); // 1 http
    await waitForPrompt('Use session');
    screen.keypress('enter'); // no
    await waitForPrompt('Model');
    expect(screen.getScreen()).toContain('heuristic');
    screen.keypress('enter');
    await waitForPrompt('CSS selector of the section');
    screen.type('main');
    screen.keypress('enter');
    await waitForPrompt('Data extraction rule');
    screen.type('book titles and prices');
    screen.keypress('enter');
    await waitForPrompt('Save this structure as books?');
    expect(ctx.output()).toContain('"A Light in the Attic"');
    screen.keypress('enter'); // Accept and save

    expect(await run).toBe(0);
    const saved = JSON.parse(await readFile(join(dir, 'configs/books.json'), 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({
      apiId: 'books',
      revision: 1,
      selector: 'main',
      rule: 'book titles and prices',
      scraper: 1,
      session: false,
      model: 'heuristic',
    });
    expect(ctx.output()).toContain('saved configs/books.json, revision 1');
  });

  it('rejects an invalid selector in the prompt and saves nothing on cancel', async () => {
    const dir = await makeProject();
    const ctx = terminalContext(dir);
    const run = main(
      [
        'node',
        'pagejson',
        'generate',
        `${site.origin}/table.html`,
        '--id',
        'countries',
        '--scraper',
        '1',
        '--model',
        'heuristic',
        '--rule',
        '',
      ],
      ctx,
    );

    await waitForPrompt('Use session');
    screen.keypress('enter');
    await waitForPrompt('CSS selector of the section');
    screen.type('table[');
    screen.keypress('enter');
    await waitForPrompt('not a valid CSS selector');
    for (let i = 0; i < 6; i += 1) screen.keypress('backspace');
    screen.type('#countries');
    screen.keypress('enter');
    await waitForPrompt('Save this structure as countries?');
    expect(ctx.output()).toContain('India');
    screen.keypress('down');
    screen.keypress('down');
    screen.keypress('down');
    screen.keypress('enter'); // Cancel

    expect(await run).toBe(130);
    expect(ctx.output()).toContain('cancelled: nothing was written or charged');
    expect(existsSync(join(dir, 'configs/countries.json'))).toBe(false);
  });

  it('edits the draft before saving it once, as revision 1', async () => {
    const dir = await makeProject();
    const ctx = terminalContext(dir);
    const run = main(
      [
        'node',
        'pagejson',
        'generate',
        `${site.origin}/listing.html`,
        '--id',
        'edited',
        '--scraper',
        '2',
        '--model',
        'heuristic',
        '--selector',
        'main',
        '--rule',
        '',
      ],
      ctx,
    );

    await waitForPrompt('Save this structure as edited?');
    screen.keypress('down');
    screen.keypress('enter'); // Edit before saving
    await waitForPrompt('What next?');
    // Nothing is written while the draft is edited.
    expect(existsSync(join(dir, 'configs/edited.json'))).toBe(false);
    screen.keypress('up'); // the menu wraps: Cancel is its last entry
    screen.keypress('enter');
    await waitForPrompt('Leave without saving this new endpoint?');
    screen.keypress('enter'); // Save it

    expect(await run).toBe(0);
    expect(ctx.output()).toContain('saved configs/edited.json, revision 1');
    const saved = JSON.parse(await readFile(join(dir, 'configs/edited.json'), 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({ apiId: 'edited', revision: 1, scraper: 2 });
  });
});
