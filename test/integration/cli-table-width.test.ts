import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-once.js';
import { createCliProject, type CliProject } from '../support/cli-project.js';

/** `pagejson status` and `list` fit the terminal's width (COLUMNS here, as the output is a pipe); --wide shows all. */
let project: CliProject;
const URL = 'https://shop.example.com/catalogue/category/books/travel_2/index.html?page={{ page }}&sort=price-descending';

beforeAll(async () => {
  await ensureBuilt();
  project = await createCliProject();
  expect((await project.run(['init'])).exitCode).toBe(0);
  // Thirteen endpoints: `status` must fit a terminal's height too (issue 52).
  for (const n of Array.from({ length: 13 }, (_, index) => index + 1)) {
    const apiId = `endpoint-with-a-long-name-${n}`;
    await project.write(
      `configs/${apiId}.json`,
      JSON.stringify({
        apiId,
        url: URL,
        variables: { page: { example: '1' } },
        structure: [{ name: 'title', type: 'string', selector: 'h1' }],
      }),
    );
  }
}, 120_000);

afterAll(async () => {
  await project?.remove();
});

const widest = (text: string) => Math.max(...text.split('\n').map((line) => [...line].length));

describe('tables at the terminal width', () => {
  it.each([['status'], ['list']])('%s fits 80 columns, wraps the URL whole and says what it left out', async (command) => {
    const fitted = await project.run([command], { env: { COLUMNS: '80' } });
    expect(fitted.exitCode).toBe(0);
    expect(widest(fitted.stdout)).toBeLessThanOrEqual(80);
    expect(fitted.stdout.replace(/\s+/g, ' ')).toMatch(/left out to fit 80 characters: --wide shows all\)/);
    expect(fitted.stdout).toContain('endpoint-with-a');
    const wide = await project.run(['--wide', command], { env: { COLUMNS: '80' } });
    expect(widest(wide.stdout)).toBeGreaterThan(120);
    expect(wide.stdout).toContain(URL);
    expect(wide.stdout).not.toContain('left out');
  });

  it('status lists 13 endpoints one line each, within 80 columns and a 24-line terminal', async () => {
    const fitted = await project.run(['status'], { env: { COLUMNS: '80' } });
    expect(fitted.exitCode).toBe(0);
    const lines = fitted.stdout.split('\n');
    expect(widest(fitted.stdout)).toBeLessThanOrEqual(80);
    expect(lines.length).toBeLessThanOrEqual(24);
    for (let n = 1; n <= 13; n += 1) expect(lines.filter((line) => line.includes(`endpoint-with-a-long-name-${n} `))).toHaveLength(1);
    // The address, cut to its column: its start, not its scheme.
    expect(fitted.stdout).toContain('shop.example.com');
  });
});
