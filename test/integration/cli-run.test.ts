import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-once.js';
import { createCliProject, initWithExamples, type CliProject } from '../support/cli-project.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

let site: FixtureSite;
let project: CliProject;

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  project = await createCliProject();
  await initWithExamples(project, site.origin);
  await project.write(
    'configs/cafe.json',
    JSON.stringify({
      apiId: 'cafe',
      url: `${site.origin}/latin1.windows-1252.html`,
      structure: [
        { name: 'name', type: 'string', selector: 'h1.name' },
        { name: 'city', type: 'string', selector: '.city' },
        { name: 'prices', type: 'array', selector: '.prices li', items: { type: 'string' } },
      ],
    }),
  );
  await project.write(
    'configs/nothing.json',
    JSON.stringify({
      apiId: 'nothing',
      url: `${site.origin}/table.html`,
      structure: [{ name: 'x', type: 'string', selector: '.not-there' }],
    }),
  );
}, 180_000);

afterAll(async () => {
  await project?.remove();
  await site?.close();
});

describe('pagejson run', () => {
  it('fetches the listing and prints the extracted data as JSON', async () => {
    site.resetHits();
    const result = await project.run(['run', 'books']);
    expect(result.exitCode).toBe(0);
    const data = JSON.parse(result.stdout);
    expect(data.title).toBe('All products');
    expect(data.books).toHaveLength(14);
    expect(data.books[0]).toEqual({
      name: 'A Light in the Attic',
      url: `${site.origin}/catalogue/a-light-in-the-attic/index.html`,
      price: 51.77,
      image: `${site.origin}/media/cache/a-light-in-the-attic.jpg`,
      rating: 'Three',
      inStock: true,
    });
    expect(site.hitCount('/listing.html')).toBe(1);
  });

  it('uses the variable example by default and --var to override it', async () => {
    const byDefault = JSON.parse((await project.run(['run', 'product', '--json'])).stdout);
    expect(byDefault.sourceUrl).toBe(`${site.origin}/product.html?sku=AP-1001`);
    expect(byDefault.data).toMatchObject({
      name: 'Aeropress Coffee Maker',
      price: 29.99,
      currency: 'GBP',
      inStock: true,
      brand: 'Aerobie',
    });
    expect(byDefault.scraper).toBe(1);
    expect(Number.isNaN(Date.parse(byDefault.fetchedAt))).toBe(false);

    const overridden = await project.run(['run', 'product', '--var', 'sku=XY-42', '--json']);
    expect(overridden.exitCode).toBe(0);
    expect(JSON.parse(overridden.stdout).sourceUrl).toBe(`${site.origin}/product.html?sku=XY-42`);
  });

  it('reads a table into typed rows', async () => {
    const data = JSON.parse((await project.run(['run', 'countries'])).stdout);
    expect(data.countries[1]).toEqual({
      rank: 2,
      country: 'China',
      url: `${site.origin}/countries/china`,
      capital: 'Beijing',
      population: 1_425_671_352,
      areaKm2: 9_596_961,
    });
  });

  it('decodes a windows-1252 page', async () => {
    const result = await project.run(['run', 'cafe']);
    expect(result.exitCode).toBe(0);
    // Node 20.18.3+ decodes windows-1252 bytes 0x80-0x9F as Latin-1 (nodejs/node#60888); € is one of them.
    expect(JSON.parse(result.stdout)).toEqual({ name: 'Café Müller', city: 'Zürich, Schweiz', prices: ['£12.50', '€14.90'] });
  });

  it('takes --scraper for one run and says which it used', async () => {
    const result = await project.run(['run', 'countries', '--scraper', '1', '--json']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).scraper).toBe(1);
    const bad = await project.run(['run', 'countries', '--scraper', '4']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.split('\n')).toEqual([
      'error: --scraper must be 1, 2 or 3, not "4"',
      'hint: scrapers: 1 = plain HTTP (session capable), 2 = Crawlee HTTP with browser fingerprints, 3 = headless Chromium',
    ]);
  });

  it('compares scrapers: --scraper 2 extracts the same data and the process ends', async () => {
    const plain = JSON.parse((await project.run(['run', 'books'])).stdout);
    // A generous deadline that only a hang (a crawler left running after close) can reach.
    const crawlee = await project.run(['run', 'books', '--scraper', '2', '--json'], { timeoutMs: 45_000 });
    expect(crawlee.timedOut).toBe(false);
    expect(crawlee.exitCode).toBe(0);
    const result = JSON.parse(crawlee.stdout);
    expect(result.scraper).toBe(2);
    expect(result.data).toEqual(plain);
  });

  it('treats bad variables as usage errors before fetching', async () => {
    site.resetHits();
    const pattern = await project.run(['run', 'product', '--var', 'sku=lower case']);
    expect(pattern.exitCode).toBe(2);
    expect(pattern.stderr).toBe(
      'error: variable sku does not match [A-Z0-9-]{1,32}\nhint: variables of product: sku; pass them as --var NAME=VALUE',
    );
    const unknown = await project.run(['run', 'books', '--var', 'page=2']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toBe('error: unknown variable: page\nhint: books has no variables: drop --var');
    const malformed = await project.run(['run', 'product', '--var', 'sku']);
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toBe('error: --var "sku" is not NAME=VALUE\nhint: write --var NAME=VALUE, e.g. --var page=2');
    expect(site.hitCount('/product.html')).toBe(0);
  });

  it('fails with exit 1 when nothing can be extracted and exit 2 when the config is unknown, each with a hint', async () => {
    const empty = await project.run(['run', 'nothing']);
    expect(empty.exitCode).toBe(1);
    expect(empty.stdout).toBe('');
    expect(empty.stderr.split('\n')[0]).toBe('error: no data could be extracted from the source page');
    expect(empty.stderr.split('\n')[1]).toMatch(/^hint: /);

    const missing = await project.run(['run', 'nope']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(
      'error: no config with apiId "nope" in configs\nhint: known apiIds: books, cafe, countries, nothing, product (see `pagejson list`)',
    );
  });

  it('refuses loopback sources unless pagejson.json allows private networks', async () => {
    const strict = await createCliProject();
    try {
      await initWithExamples(strict, site.origin, ['books']);
      const settings = JSON.parse(await strict.read('pagejson.json'));
      settings.fetch.allowPrivateNetworks = false;
      await strict.write('pagejson.json', JSON.stringify(settings));
      const result = await strict.run(['run', 'books']);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/allowPrivateNetworks/);
    } finally {
      await strict.remove();
    }
  });

  it('is a usage error (exit 2) without an apiId', async () => {
    const result = await project.run(['run']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual(["error: missing required argument 'apiId'", '(run with --help for usage)']);
  });
});
