import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-once.js';
import { createCliProject, initWithExamples, type CliProject } from '../support/cli-project.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * `validate --live` on configs `generate` just made from varied pages: no warning that is not a real problem
 * (a title, meta tag or JSON-LD field is read from the whole page when the section does not hold it, as
 * retrieval reads it), and the real problems (a section that matches nothing, a `json:` path that finds
 * nothing) come first and are counted.
 */
let site: FixtureSite;
let project: CliProject;

interface Report {
  ok: boolean;
  problems: Array<{ file: string; path: string; severity: string; message: string }>;
}

/** Pages of every kind the fixture site has, and sections narrower than the body (so head fields are outside them). */
const GENERATED: Array<[string, string, string?]> = [
  ['listing', '/listing.html'],
  ['listing-main', '/listing.html', 'main.page_inner'],
  ['product', '/product.html'],
  ['table', '/table.html'],
  ['jobs', '/jobs-board.html'],
  ['jobs-main', '/jobs-board.html', 'main'],
  ['home', '/index.html'],
  ['latin1', '/latin1.windows-1252.html'],
  ['carta', '/charset/undeclared.html'],
];

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  project = await createCliProject();
  await initWithExamples(project, site.origin, []);
  // The machine may be busy with other suites: the extraction budget is not what this test is about.
  const settings = JSON.parse(await project.read('pagejson.json')) as { extraction?: Record<string, unknown> };
  settings.extraction = { ...settings.extraction, timeoutMs: 60_000 };
  await project.write('pagejson.json', JSON.stringify(settings, null, 2));
  for (const [id, path, selector] of GENERATED) {
    const made = await project.run([
      'generate',
      `${site.origin}${path}`,
      '--yes',
      '--id',
      id,
      ...(selector ? ['--selector', selector] : []),
    ]);
    if (made.exitCode !== 0) throw new Error(`generate ${path}: ${made.stderr}`);
  }
}, 300_000);

afterAll(async () => {
  await project?.remove();
  await site?.close();
});

describe('validate --live on freshly generated configs', () => {
  it('warns about nothing on them', async () => {
    const result = await project.run(['validate', '--live', '--format', 'json']);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.problems).toEqual([]);
    expect(result.exitCode).toBe(0);
    // The narrowed configs do read page-level fields from outside their section (what made the false warnings).
    const narrowed = JSON.parse(await project.read('configs/jobs-main.json')) as {
      selector: string;
      structure: Array<{ selector?: string }>;
    };
    expect(narrowed.selector).toBe('main');
  });

  it('checks head selectors against the page and json: paths against the JSON; real problems come first', async () => {
    await project.write(
      'configs/head.json',
      JSON.stringify({
        apiId: 'head',
        url: `${site.origin}/product.html`,
        selector: 'main',
        structure: [
          { name: 'title', type: 'string', selector: 'head > title' },
          { name: 'description', type: 'string', selector: 'meta[name=description]', attribute: 'content' },
          { name: 'price', type: 'number', selector: 'script[type="application/ld+json"]', transform: ['json:Product.offers.price'] },
          { name: 'colour', type: 'string', selector: 'script[type="application/ld+json"]', transform: ['json:Product.colourway'] },
        ],
      }),
    );
    await project.write(
      'configs/lost.json',
      JSON.stringify({
        apiId: 'lost',
        url: `${site.origin}/listing.html`,
        selector: 'ul.nowhere',
        structure: [{ name: 'x', type: 'string', selector: 'h1' }],
      }),
    );
    const json = JSON.parse((await project.run(['validate', '--live', '--format', 'json'])).stdout) as Report;
    expect(json.problems.map((problem) => [problem.file, problem.path, problem.severity])).toEqual([
      ['configs/lost.json', '$.selector', 'error'],
      ['configs/head.json', '$.structure[3].transform[0]', 'warning'],
    ]);
    expect(json.problems[1]!.message).toBe(
      `"json:Product.colourway" finds nothing in the JSON "script[type="application/ld+json"]" holds on ${site.origin}/product.html`,
    );
    const text = await project.run(['validate', '--live']);
    expect(text.exitCode).toBe(1);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toContain('configs/lost.json');
    expect(text.stdout.trim().split('\n').at(-1)).toMatch(/^✗ 1 problem in 1 of \d+ files, 1 warning$/);
  });
});
