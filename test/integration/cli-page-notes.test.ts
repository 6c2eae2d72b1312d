import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-once.js';
import { skipBrowserTests } from '../support/chromium.js';
import { createCliProject, initWithExamples, type CliProject } from '../support/cli-project.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * What `run` and `generate` say about the page they fetched (src/cli/page-notes.ts): a charset the page did not
 * declare, read as a browser guesses it, and a page whose content scripts build, read without a browser.
 */
const skipBrowser = skipBrowserTests();
let site: FixtureSite;
let project: CliProject;

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  project = await createCliProject();
  await initWithExamples(project, site.origin, []);
  await project.write(
    'configs/carta.json',
    JSON.stringify({
      apiId: 'carta',
      url: `${site.origin}/charset/undeclared.html`,
      structure: [
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'dishes', type: 'array', selector: 'li.dish', items: { type: 'string' } },
      ],
    }),
  );
  await project.write(
    'configs/shop.json',
    JSON.stringify({
      apiId: 'shop',
      url: `${site.origin}/js/app.html`,
      structure: [{ name: 'products', type: 'array', selector: 'li.product .name', items: { type: 'string' } }],
    }),
  );
}, 180_000);

afterAll(async () => {
  await project?.remove();
  await site?.close();
});

describe('a page without a declared charset', () => {
  it.each(['1', '2'])('run --scraper %s reads Menú café and says the charset was guessed', async (scraper) => {
    const result = await project.run(['run', 'carta', '--scraper', scraper]);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ title: 'Menú café', dishes: ['Crème brûlée – 5 €', 'Señor’s jamón'] });
    expect(result.stderr).toContain('charset: the page declares none; read as windows-1252, as browsers guess it');
    const json = JSON.parse((await project.run(['run', 'carta', '--scraper', scraper, '--json'])).stdout);
    expect(json.charset).toEqual({ encoding: 'windows-1252', source: 'guessed' });
  });

  it('generate reads it right and notes the guess', async () => {
    const result = await project.run(['generate', `${site.origin}/charset/undeclared.html`, '--yes', '--id', 'carta2', '--json']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Menú café');
    expect(result.stdout).not.toContain('\ufffd');
    expect(result.stderr).toContain('read as windows-1252, as browsers guess it');
  });
});

describe('a page built by JavaScript', () => {
  it('run with scraper 1 suggests scraper 3, saying why', async () => {
    const result = await project.run(['run', 'shop']);
    expect(result.exitCode).not.toBe(2);
    expect(result.stderr).toContain('note: this page looks built by JavaScript: its #root element is empty until a script fills it');
    expect(result.stderr).toContain('hint: try scraper 3 (a headless browser): `pagejson run shop --scraper 3`');
  });

  it('generate with scraper 1 suggests scraper 3; a server-rendered page gets no such hint', async () => {
    const built = await project.run(['generate', `${site.origin}/js/app.html`, '--yes', '--id', 'shop2']);
    expect(built.stderr).toContain('hint: try scraper 3 (a headless browser): `pagejson generate');
    const plain = await project.run(['generate', `${site.origin}/listing.html`, '--yes', '--id', 'listing']);
    expect(plain.exitCode).toBe(0);
    expect(plain.stderr).not.toContain('JavaScript');
  });

  it.skipIf(skipBrowser)(
    'run --scraper 3 extracts what the script built, without the hint',
    async () => {
      const result = await project.run(['run', 'shop', '--scraper', '3'], { timeoutMs: 120_000 });
      expect(result.exitCode).toBe(0);
      expect(JSON.parse(result.stdout).products).toEqual(['Alpha widget', 'Beta widget', 'Gamma widget']);
      expect(result.stderr).not.toContain('JavaScript');
    },
    150_000,
  );
});
