import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { GOODS, JOB_TITLES, SHOP_TOTAL, laptop } from '../support/site-routes/heal-trust.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, type TempProject } from './daemon-support.js';

/**
 * Issue 47's cases as a user met them, through the CLI as a process against the fixture site
 * (test/support/site-routes/heal-trust.ts): `check` learns the baseline, something breaks the config, `check`
 * says so, and `heal --yes` repairs it (or says why not and saves nothing).
 */
let site: FixtureSite;
let temp: TempProject;

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
});
afterEach(async () => {
  for (const key of ['goods', 'shop']) site.state.delete(key);
  await temp?.cleanup();
});
afterAll(async () => {
  await site?.close();
});

// A machine shared with other work can take seconds to start an extraction thread or read three pages: not what these tests measure.
const SETTINGS = { extraction: { timeoutMs: 60_000 }, fetch: { timeoutMs: 60_000 } };
const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env: { NO_COLOR: '1' } });
const configOf = async (apiId: string) => JSON.parse(await readFile(join(temp.root, 'configs', `${apiId}.json`), 'utf8')) as ApiConfigInput;
const runData = async (apiId: string) => JSON.parse((await cli('run', apiId, '--json')).stdout) as { data: Record<string, unknown> };

describe('heal repairs what a user breaks', () => {
  it('a top-level list of strings broken by an edit on an unchanged page: check says degraded, heal jobs --yes brings the twelve titles back', async () => {
    temp = await makeProject(
      [
        {
          apiId: 'jobs',
          url: `${site.origin}/trust/jobs`,
          structure: [
            { name: 'heading', type: 'string', selector: 'h1' },
            { name: 'titles', type: 'array', items: { type: 'string' }, selector: 'li.job-card h2' },
          ],
        },
      ],
      SETTINGS,
    );
    expect((await cli('check', 'jobs')).exitCode).toBe(0);
    expect((await cli('edit', 'jobs', '--set', 'titles.selector=li.job-tile h2')).exitCode).toBe(0);
    const broken = await cli('check', 'jobs');
    expect(broken.exitCode).toBe(1);
    expect(broken.stdout).toContain('titles: empty (had at least 12 items in every good observation)');

    const healed = await cli('heal', 'jobs', '--yes', '--json');
    expect(healed.exitCode, healed.stdout + healed.stderr).toBe(0);
    const report = JSON.parse(healed.stdout) as { written: boolean; unrepaired: string[]; health: { state: string } };
    expect(report.written).toBe(true);
    expect(report.unrepaired).toEqual([]);
    expect(report.health.state).toBe('healthy');
    expect((await runData('jobs')).data.titles).toEqual(JOB_TITLES);
    const after = await cli('check', 'jobs');
    expect(after.exitCode, after.stdout + after.stderr).toBe(0);
  }, 240_000);

  it('a renamed list, then the classes renamed and a wrapper added: heal goods --yes fills the endpoint again', async () => {
    temp = await makeProject(
      [
        {
          apiId: 'goods',
          url: `${site.origin}/trust/goods`,
          structure: [
            { name: 'heading', type: 'string', selector: 'h1' },
            { name: 'items', type: 'array', items: { type: 'string' }, selector: 'ul.goods > li.good > h3.good-name' },
          ],
        },
      ],
      SETTINGS,
    );
    expect((await cli('check', 'goods')).exitCode).toBe(0);
    // The snapshot keeps the name it was taken under (items): heal's last good values.
    expect((await cli('snapshot', 'goods')).exitCode).toBe(0);
    expect((await cli('edit', 'goods', '--rename', 'items=goods')).exitCode).toBe(0);
    site.state.set('goods', '2');
    const broken = await cli('check', 'goods');
    expect(broken.exitCode).toBe(1);
    expect(broken.stdout).toContain('goods: empty');

    const healed = await cli('heal', 'goods', '--yes');
    expect(healed.exitCode, healed.stdout + healed.stderr).toBe(0);
    expect((await runData('goods')).data.goods).toEqual(GOODS);
    expect((await configOf('goods')).structure.find((field) => field.name === 'goods')!.selector).toContain('x9f');
  }, 240_000);

  it("after a shop's redesign, heal shop shows the repair before saving, refuses reviewCount read out of names, repairs the pager, and the endpoint reads all 24 products again", async () => {
    temp = await makeProject(
      [
        {
          apiId: 'shop',
          url: `${site.origin}/trust/shop`,
          pagination: { next: 'a.next' },
          structure: [
            {
              name: 'products',
              type: 'array',
              selector: 'div.cards > div.card',
              fields: [
                { name: 'name', type: 'string', selector: 'h3.card-name a' },
                { name: 'url', type: 'url', selector: 'h3.card-name a', attribute: 'href', transform: ['absoluteUrl'] },
                { name: 'price', type: 'number', selector: '.card-price', transform: ['number'] },
                { name: 'reviewCount', type: 'integer', selector: '.card-reviews', transform: ['integer'] },
              ],
            },
          ],
        },
      ],
      SETTINGS,
    );
    expect((await cli('check', 'shop')).exitCode).toBe(0);
    expect(((await runData('shop')).data.products as unknown[]).length).toBe(SHOP_TOTAL);
    site.state.set('shop', '2');

    // Without --yes and without a terminal: the view, and nothing written.
    const shown = await cli('heal', 'shop');
    expect(shown.stdout).toContain('refused: products.reviewCount: it would read 14, 360 where it read 14');
    expect(shown.stdout).toMatch(/now: (degraded|broken): products/);
    expect(shown.stdout).toContain('with the repair: degraded: products[].reviewCount');
    expect(shown.stdout).toContain('a.pager__next');
    expect(shown.stdout).toContain('nothing written');
    expect((await configOf('shop')).pagination?.next).toBe('a.next');

    const healed = await cli('heal', 'shop', '--yes', '--json');
    const report = JSON.parse(healed.stdout) as { written: boolean; better: boolean; refused: string[]; repaired: string[] };
    expect(report.better).toBe(true);
    expect(report.written).toBe(true);
    expect(report.repaired).toContain('pagination.next');
    expect(report.refused).toHaveLength(1);
    expect(healed.exitCode).toBe(1); // still degraded: reviewCount is not repaired, and says so
    const products = (await runData('shop')).data.products as Array<{ name: string; reviewCount: unknown }>;
    expect(products.map((product) => product.name)).toEqual(Array.from({ length: SHOP_TOTAL }, (_, index) => laptop(index).name));
    expect(products.every((product) => product.reviewCount === null)).toBe(true);
  }, 300_000);
});
