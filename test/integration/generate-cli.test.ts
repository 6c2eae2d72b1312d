import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadProject } from '../../src/core/config/project.js';
import { startServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { CHROMIUM_PATH, skipBrowserTests } from '../support/chromium.js';
import { startFakeLlm, userContent, type FakeLlm } from '../support/fake-llm.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey } from './daemon-support.js';

let site: FixtureSite;
let llm: FakeLlm;
const TITLE = 'All products | Books to Scrape (fixture)';
const dirs: string[] = [];

async function makeProject(settings: Record<string, unknown> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-generate-'));
  dirs.push(dir);
  const project = {
    fetch: { allowPrivateNetworks: true, timeoutMs: 20_000 },
    models: { local: { baseURL: llm.baseURL, model: 'fake-1' } },
    ...settings,
  };
  await writeFile(join(dir, 'pagejson.json'), `${JSON.stringify(project, null, 2)}\n`);
  return dir;
}

const cli = (dir: string, args: string[]) =>
  execa(process.execPath, [CLI_BIN, ...args], {
    cwd: dir,
    reject: false,
    env: { NO_COLOR: '1', CI: 'true', PAGEJSON_DATA_DIR: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', PAGEJSON_CHROMIUM: CHROMIUM_PATH },
  });
const skipBrowser = skipBrowserTests();

const field = (name: string, type: string, selector: string | null, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  selector,
  attribute: null,
  transform: null,
  description: null,
  items: null,
  fields: null,
  ...extra,
});

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  llm = await startFakeLlm();
}, 300_000);

afterAll(async () => {
  await site?.close();
  await llm?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('pagejson generate (scripted)', () => {
  it('generates with the heuristic model, saves revision 1, prints JSON and charges 0.25 credits', async () => {
    const dir = await makeProject();
    const result = await cli(dir, ['generate', `${site.origin}/listing.html`, '--yes', '--json']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const printed = JSON.parse(result.stdout) as { apiId: string; file: string; revision: number; structure: unknown[]; sample: unknown };
    expect(printed.apiId).toBe('127-0-0-1-listing');
    expect(printed.file).toBe('configs/127-0-0-1-listing.json');
    expect(printed.revision).toBe(1);
    expect(JSON.stringify(printed.sample)).toContain('A Light in the Attic');

    const saved = JSON.parse(await readFile(join(dir, printed.file), 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({
      apiId: '127-0-0-1-listing',
      revision: 1,
      url: `${site.origin}/listing.html`,
      model: 'heuristic',
      scraper: 1,
      selector: 'body',
      caching: true,
    });
    // The description agents and the API docs show: the page's title (and the rule, when one was given).
    expect(saved.description).toBe(TITLE);
    expect(saved.structure).toEqual(printed.structure);
    expect((saved.generated as Record<string, unknown>).sample).toEqual(printed.sample);

    const validate = await cli(dir, ['validate']);
    expect(validate.exitCode).toBe(0);
    const credits = await cli(dir, ['credits', '--json']);
    expect(JSON.parse(credits.stdout)).toEqual({ account: 'default', balance: 99.75 });
  });

  it('needs --force for an existing id, which bumps the revision', async () => {
    const dir = await makeProject();
    const args = ['generate', `${site.origin}/table.html`, '--id', 'countries', '--yes', '--no-cache', '--selector', 'table'];
    expect((await cli(dir, args)).exitCode).toBe(0);
    const again = await cli(dir, args);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('error: configs/countries.json already exists');
    expect(again.stderr).toContain('--force');
    const forced = await cli(dir, [...args, '--force', '--json']);
    expect(forced.exitCode).toBe(0);
    expect(JSON.parse(forced.stdout).revision).toBe(2);
    const saved = JSON.parse(await readFile(join(dir, 'configs/countries.json'), 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({ revision: 2, caching: false, selector: 'table' });
  });

  it('shows the structure as a tree with sample values in human output', async () => {
    const dir = await makeProject();
    const result = await cli(dir, ['generate', `${site.origin}/listing.html`, '--id', 'books', '--yes', '--selector', 'main']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/[├└]── /);
    expect(result.stdout).toContain('"A Light in the Attic"');
    expect(result.stdout).toContain('saved configs/books.json, revision 1 (0.25 credits, 99.75 left)');
  });

  it('uses an OpenAI-compatible model from pagejson.json, sending the rule, and records token usage', async () => {
    const dir = await makeProject();
    llm.requests.length = 0;
    llm.script([
      {
        json: {
          structure: [
            field('heading', 'string', 'h1'),
            field('books', 'array', 'article.product_pod', {
              fields: [field('price', 'number', '.price_color', { transform: ['number'] })],
            }),
          ],
        },
        usage: { prompt_tokens: 777, completion_tokens: 33 },
      },
    ]);
    const result = await cli(dir, [
      'generate',
      `${site.origin}/listing.html?page=1`,
      '--id',
      'llm-books',
      '--model',
      'local',
      '--rule',
      'prices of books',
      '--var',
      'query:page=page',
      '--yes',
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(llm.requests).toHaveLength(1);
    expect(userContent(llm.requests[0]!)).toContain('prices of books');
    const saved = JSON.parse(await readFile(join(dir, 'configs/llm-books.json'), 'utf8')) as {
      model: string;
      url: string;
      variables: unknown;
      generated: { usage: unknown; sample: { books: unknown[] } };
    };
    expect(saved.model).toBe('local');
    expect(saved.url).toBe(`${site.origin}/listing.html?page={{ page }}`);
    expect(saved.variables).toEqual({ page: { example: '1' } });
    expect(saved.generated.usage).toEqual({ promptTokens: 777, completionTokens: 33 });
    expect(saved.generated.sample.books[0]).toEqual({ price: 51.77 });
    // The charge (0.25 for scraper 1) and the tokens land in the usage of the new endpoint: a keyless row that counts no request.
    const usage = await cli(dir, ['usage', '--api', 'llm-books', '--json']);
    expect(JSON.parse(usage.stdout)).toEqual([
      {
        day: expect.any(String),
        apiId: 'llm-books',
        keyId: null,
        keyLabel: null,
        requests: 0,
        errors: 0,
        cacheHits: 0,
        milliCredits: 250,
        promptTokens: 777,
        completionTokens: 33,
        credits: 0.25,
      },
    ]);
    expect((await cli(dir, ['usage'])).stdout).toMatch(/prompt tokens[\s\S]*llm-books[^\n]*777[^\n]*33/);
  });

  it('refuses without credits before fetching, with the SPEC message, and saves nothing', async () => {
    const dir = await makeProject({ credits: { freeCredits: 0.2 } });
    site.resetHits();
    const result = await cli(dir, ['generate', `${site.origin}/listing.html`, '--id', 'broke', '--yes']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('error: No credits left ⚠. Please buy more credits');
    // A self-hoster is told how to add credits to their own installation.
    expect(result.stderr).toContain('hint: this pagejson is yours: add credits with `pagejson credits grant 100`');
    expect(site.hitCount('/listing.html')).toBe(0);
    expect(existsSync(join(dir, 'configs/broke.json'))).toBe(false);
  });

  it('charges nothing when generation fails', async () => {
    const dir = await makeProject();
    const result = await cli(dir, ['generate', `${site.origin}/listing.html`, '--id', 'nothing', '--selector', '#nope', '--yes']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('the section selector "#nope" matches nothing');
    expect(result.stderr).toMatch(/hint: sections this page has: "[^"]+" \(\d+ × /);
    expect(JSON.parse((await cli(dir, ['credits', '--json'])).stdout).balance).toBe(100);
  });

  it('gives usage errors naming the flag when not on a terminal', async () => {
    const dir = await makeProject();
    const noYes = await cli(dir, ['generate', `${site.origin}/listing.html`]);
    expect(noYes.exitCode).toBe(2);
    expect(noYes.stderr).toContain('not on a terminal');
    expect(noYes.stderr).toContain('--yes');
    const noUrl = await cli(dir, ['generate', '--yes']);
    expect(noUrl.exitCode).toBe(2);
    expect(noUrl.stderr).toContain('missing the page URL');
    const badScraper = await cli(dir, ['generate', `${site.origin}/listing.html`, '--yes', '--scraper', '4']);
    expect(badScraper.exitCode).toBe(2);
    const unknownModel = await cli(dir, ['generate', `${site.origin}/listing.html`, '--yes', '--model', 'nope']);
    expect(unknownModel.exitCode).toBe(2);
    expect(unknownModel.stderr).toContain('unknown model: nope');
    expect(unknownModel.stderr).toContain('heuristic, local, openai:<model>');
  });

  it.skipIf(skipBrowser)('charges 0.35 credits with scraper 3 (JavaScript rendering)', async () => {
    const dir = await makeProject();
    const result = await cli(dir, ['generate', `${site.origin}/listing.html`, '--id', 'rendered', '--scraper', '3', '--yes', '--json']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(JSON.stringify(JSON.parse(result.stdout).sample)).toContain('A Light in the Attic');
    expect(JSON.parse((await cli(dir, ['credits', '--json'])).stdout).balance).toBe(99.65);
  });

  it("charges through the running daemon's admin socket, and the daemon serves the new config", async () => {
    const dir = await makeProject();
    // The watcher watches the configs folder, so it must exist when the daemon starts (as in a real project).
    await mkdir(join(dir, 'configs'));
    const project = await loadProject({ cwd: dir, env: {} });
    const server = await startServer({ project, host: '127.0.0.1', port: 0, watch: true, env: {}, app: { logger: false } });
    try {
      const result = await cli(dir, ['generate', `${site.origin}/listing.html`, '--id', 'live', '--yes', '--json']);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      const balance = await server.runtime.store.getAccount('default');
      expect(balance?.balance).toBe(99_750);
      // A model generation through the daemon: its tokens go into the daemon's store with the charge.
      llm.script([{ json: { structure: [field('heading', 'string', 'h1')] }, usage: { prompt_tokens: 404, completion_tokens: 12 } }]);
      const generated = await cli(dir, [
        'generate',
        `${site.origin}/listing.html`,
        '--id',
        'live-llm',
        '--model',
        'local',
        '--yes',
        '--json',
      ]);
      expect([generated.stderr, generated.exitCode]).toEqual(['', 0]);
      expect(await server.runtime.store.usage({ apiId: 'live-llm' })).toMatchObject([
        { keyId: null, requests: 0, promptTokens: 404, completionTokens: 12 },
      ]);
      // No manual reload: the daemon's config watcher picks up the files generate wrote.
      await vi.waitFor(() => expect(server.runtime.configs.list().map((c) => c.apiId)).toContain('live'), {
        timeout: 10_000,
        interval: 50,
      });
      const { key } = await issueKey(server.runtime.store);
      const served = await server.app.inject({ method: 'GET', url: '/external/live', headers: { apikey: key } });
      expect(served.statusCode).toBe(200);
      const envelope = JSON.parse(served.body) as { data: unknown; errors: unknown };
      expect(envelope.errors).toBeNull();
      expect(JSON.stringify(envelope.data)).toContain('A Light in the Attic');
    } finally {
      await server.close();
    }
  });
});
