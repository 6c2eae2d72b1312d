import { screen } from '@inquirer/testing/vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The CLI is imported after @inquirer/testing/vitest, which replaces the prompts with its screen.
import type { CliContext } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * `pagejson generate` on a terminal offers the pagination it found (issue 34, item 4): the page's next link is
 * shown under the structure and asked about before the review; the answer decides what is saved.
 */
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
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-generate-pages-'));
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

async function waitForPrompt(text: string): Promise<void> {
  await vi.waitFor(() => expect(screen.getScreen()).toContain(text), { timeout: 20_000, interval: 20 });
}

async function generate(answer: 'enter' | 'n'): Promise<{ saved: Record<string, unknown>; output: string }> {
  const dir = await makeProject();
  const ctx = terminalContext(dir);
  const run = main(
    [
      'node',
      'pagejson',
      'generate',
      `${site.origin}/pages/next.html?page=1`,
      '--id',
      'shelf',
      '--scraper',
      '1',
      '--model',
      'heuristic',
      '--selector',
      'main',
      '--rule',
      'books',
    ],
    ctx,
  );
  await vi.waitFor(() => expect(screen.getScreen()).toMatch(/Use session|Read the list over its pages/), { timeout: 20_000, interval: 20 });
  if (screen.getScreen().includes('Use session')) screen.keypress('enter');
  await waitForPrompt('This page links to a next page. Read the list over its pages (up to 10)?');
  expect(ctx.output()).toContain('pagination  follow the next link a[rel~="next"]');
  if (answer === 'n') screen.type('n');
  screen.keypress('enter');
  await waitForPrompt('Save this structure as shelf?');
  screen.keypress('enter'); // Accept and save
  expect(await run).toBe(0);
  return { saved: JSON.parse(await readFile(join(dir, 'configs/shelf.json'), 'utf8')) as Record<string, unknown>, output: ctx.output() };
}

describe('pagejson generate on a terminal, a page with a next link', () => {
  it('offers pagination.next and saves it when the user keeps it', async () => {
    const { saved } = await generate('enter');
    expect(saved.pagination).toEqual({ next: 'a[rel~="next"]', maxPages: 10 });
  });

  it('saves without it when the user declines', async () => {
    const { saved } = await generate('n');
    expect(saved.pagination).toBeUndefined();
  });
});
