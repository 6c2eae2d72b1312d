import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-once.js';
import { skipBrowserTests } from '../support/chromium.js';
import { createCliProject, initWithExamples, type CliProject } from '../support/cli-project.js';
import { SEARCH_BOOKS } from '../support/site-routes/actions.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * `pagejson generate` behind browser actions (issue 48, docs/actions.md): a search page whose results appear
 * only once a query is typed and sent. With `--actions` and `--var-example` the page is read after the steps,
 * the structure holds the results, and the config keeps the steps and the variable; `--force` without them
 * keeps the config's. Wrong flags are refused in words before anything is fetched.
 */
const skip = skipBrowserTests();
const SEARCH_STEPS = JSON.stringify([{ type: '#q', text: '{{ q }}' }, { click: '#go' }, { wait: 'li.result' }]);

let site: FixtureSite;
let project: CliProject;

beforeAll(async () => {
  if (skip) return;
  await ensureBuilt();
  site = await startFixtureSite();
  project = await createCliProject();
  await initWithExamples(project, site.origin, []);
  // A busy machine must not turn a slow browser or extraction into a failure here.
  const settings = JSON.parse(await project.read('pagejson.json')) as Record<string, Record<string, unknown>>;
  settings.fetch = { ...settings.fetch, timeoutMs: 60_000, actionsTimeoutMs: 30_000 };
  settings.extraction = { ...settings.extraction, timeoutMs: 60_000 };
  await project.write('pagejson.json', `${JSON.stringify(settings, null, 2)}\n`);
}, 300_000);

afterAll(async () => {
  await project?.remove();
  await site?.close();
});

interface Saved {
  scraper: number;
  actions?: unknown;
  variables: Record<string, { example: string }>;
  structure: Array<{ name: string; type: string; selector?: string }>;
}

describe.skipIf(skip)('generate behind actions', () => {
  const url = () => `${site.origin}/actions/search-js.html`;
  const lightBooks = SEARCH_BOOKS.filter((title) => title.toLowerCase().includes('light')).sort();

  it('runs the actions before reading the page, proposes the results, and keeps the steps and the variable', async () => {
    const result = await project.run(
      ['generate', url(), '--id', 'search', '--actions', SEARCH_STEPS, '--var-example', 'q=light', '--yes', '--json'],
      { timeoutMs: 180_000 },
    );
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const printed = JSON.parse(result.stdout) as { sample: Record<string, unknown> };
    expect(Object.values(printed.sample)).toContainEqual(lightBooks);
    const saved = JSON.parse(await project.read('configs/search.json')) as Saved;
    expect(saved.scraper).toBe(3);
    expect(saved.actions).toEqual(JSON.parse(SEARCH_STEPS));
    expect(saved.variables).toEqual({ q: { example: 'light' } });
    expect(saved.structure.some((field) => field.selector?.includes('result'))).toBe(true);

    const run = await project.run(['run', 'search', '--var', 'q=sharp'], { timeoutMs: 180_000 });
    expect(run.exitCode).toBe(0);
    expect(Object.values(JSON.parse(run.stdout) as Record<string, unknown>)).toContainEqual(['Sharp Objects']);
  }, 400_000);

  it("--force without --actions keeps the config's steps and variable, and reads the page behind them again", async () => {
    const result = await project.run(['generate', url(), '--id', 'search', '--force', '--yes', '--json'], { timeoutMs: 180_000 });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const printed = JSON.parse(result.stdout) as { revision: number; sample: Record<string, unknown> };
    expect(printed.revision).toBe(2);
    expect(Object.values(printed.sample)).toContainEqual(lightBooks);
    const saved = JSON.parse(await project.read('configs/search.json')) as Saved;
    expect(saved.actions).toEqual(JSON.parse(SEARCH_STEPS));
    expect(saved.variables).toEqual({ q: { example: 'light' } });
    expect(saved.scraper).toBe(3);
  }, 300_000);

  it('refuses actions it cannot run, in words, before fetching anything', async () => {
    const cases: Array<[string[], string | RegExp]> = [
      [['--actions', SEARCH_STEPS], 'the actions type {{ q }}, which has no example'],
      [['--actions', SEARCH_STEPS, '--var-example', 'q=light', '--scraper', '1'], 'actions need scraper 3 (the browser), not scraper 1'],
      [['--actions', '[{"clik":"#go"}]'], /--actions at \$\[0\]\.clik: unknown key.*click/],
      [['--actions', '{not json'], '--actions is not JSON'],
      [['--actions-file', 'no-such-file.json'], '--actions-file no-such-file.json: cannot be read'],
      [['--var-example', 'q=light'], '--var-example needs --actions'],
      [['--actions', '[{"click":"#go"}]', '--var-example', 'q=light'], '--var-example q: no action types {{ q }}'],
    ];
    for (const [flags, message] of cases) {
      const result = await project.run(['generate', url(), '--id', 'refused', ...flags, '--yes']);
      expect(result.exitCode, flags.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    await expect(project.read('configs/refused.json')).rejects.toThrow();
  }, 300_000);

  it('takes the steps from a file', async () => {
    await project.write('steps.json', SEARCH_STEPS);
    const result = await project.run(
      ['generate', url(), '--id', 'from-file', '--actions-file', 'steps.json', '--var-example', 'q=light', '--yes', '--json'],
      { timeoutMs: 180_000 },
    );
    expect(result.exitCode).toBe(0);
    expect((JSON.parse(await project.read('configs/from-file.json')) as Saved).actions).toEqual(JSON.parse(SEARCH_STEPS));
  }, 300_000);
});
