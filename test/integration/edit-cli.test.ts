import { execa } from 'execa';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { exampleConfigText } from '../support/example-configs.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

let site: FixtureSite;
let dir: string;
let booksFile: string;

const cli = (args: string[]) =>
  execa(process.execPath, [CLI_BIN, ...args], { cwd: dir, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
const git = (args: string[]) => execa('git', args, { cwd: dir });

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  dir = await mkdtemp(join(tmpdir(), 'pagejson-edit-'));
  await writeFile(
    join(dir, 'pagejson.json'),
    JSON.stringify({ fetch: { allowPrivateNetworks: true }, extraction: { timeoutMs: 60_000 } }, null, 2),
  );
  await mkdir(join(dir, 'configs'));
  booksFile = join(dir, 'configs/books.json');
  await writeFile(booksFile, exampleConfigText('books', site.origin));
  await git(['init', '-q', '-b', 'main']);
  await git(['-c', 'user.email=t@example.test', '-c', 'user.name=t', 'add', '.']);
  await git(['-c', 'user.email=t@example.test', '-c', 'user.name=t', 'commit', '-qm', 'books']);
}, 300_000);

afterAll(async () => {
  await site?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('pagejson edit with flags', () => {
  it('an edit that changes nothing leaves the bytes unchanged', async () => {
    const before = await readFile(booksFile, 'utf8');
    const result = await cli(['edit', 'books', '--set', 'caching=true', '--move', 'title=1']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('books: nothing changed (revision 1)');
    expect(await readFile(booksFile, 'utf8')).toBe(before);
  });

  it('refuses an invalid change and writes nothing', async () => {
    const before = await readFile(booksFile, 'utf8');
    const result = await cli(['edit', 'books', '--set', 'session=true', '--set', 'scraper=2']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('use session is only available with scraper 1');
    expect(result.stderr).toContain('hint: nothing was written');
    expect(await readFile(booksFile, 'utf8')).toBe(before);
  });

  it('reports bad flags as usage errors (exit 2) with a hint', async () => {
    const move = await cli(['edit', 'books', '--move', 'title=first']);
    expect(move.exitCode).toBe(2);
    expect(move.stderr).toMatch(/--move position "first" is not a number\nhint: /);
    const none = await cli(['edit', 'books']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('no change given and no terminal');
  });

  it('exits 2 when a flag names nothing in the config (a query parameter, a path segment, a variable, a field, a model) and writes nothing', async () => {
    const before = await readFile(booksFile, 'utf8');
    const cases: Array<[string[], RegExp]> = [
      [['--var', 'query:missing=foo'], /the url has no query parameter "missing"\nhint: /],
      [['--var', 'path:9=foo'], /the url has no path segment 9\nhint: /],
      [['--unvar', 'nothere'], /the url has no variable "nothere"\nhint: /],
      [['--remove', 'nothere'], /no field "nothere" in the top level\nhint: fields there: /],
      [['--rename', 'nothere=other'], /no field "nothere"/],
      [['--set', 'model=nomodel'], /model "nomodel" is not defined in pagejson.json\nhint: use one of heuristic/],
    ];
    for (const [flags, message] of cases) {
      const result = await cli(['edit', 'books', ...flags]);
      expect(result.exitCode, `${flags.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(await readFile(booksFile, 'utf8')).toBe(before);
  });

  it('applies several flags in command-line order, bumps the revision, and the result still runs', async () => {
    const result = await cli([
      'edit',
      'books',
      '--add',
      'books.thumb:url=img',
      '--set',
      'books.thumb.attribute=src',
      '--move',
      'books.thumb=1',
      '--rename',
      'books.name=bookTitle',
      '--remove',
      'count',
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.revision).toBe(2);
    // The flags apply in command-line order (--set and --move reach the field --add just made); the report
    // then describes before against after: top-level fields first, then renames, additions and removals per level.
    expect(report.changes.map((c: { text: string }) => c.text)).toEqual([
      'field count removed',
      'field books.name renamed to bookTitle',
      'field books.thumb added (url, selector "img")',
    ]);
    const saved = JSON.parse(await readFile(booksFile, 'utf8'));
    expect(saved.revision).toBe(2);
    const books = saved.structure.find((f: { name: string }) => f.name === 'books');
    expect(books.fields[0]).toEqual({ name: 'thumb', type: 'url', selector: 'img', attribute: 'src' });
    expect(books.fields.map((f: { name: string }) => f.name)).toContain('bookTitle');

    const run = await cli(['run', 'books']);
    expect(run.exitCode, run.stderr).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data.count).toBeUndefined();
    expect(data.books[0].thumb).toMatch(new RegExp(`^${site.origin}/`));
    expect(typeof data.books[0].bookTitle).toBe('string');
  });

  it('turns a path segment into a variable and back', async () => {
    const marked = await cli(['edit', 'books', '--var', 'path:1=page']);
    expect(marked.exitCode, marked.stderr).toBe(0);
    expect(marked.stdout).toContain('variable page added (example "listing.html")');
    let saved = JSON.parse(await readFile(booksFile, 'utf8'));
    expect(saved.url).toBe(`${site.origin}/{{ page }}`);
    expect(saved.variables).toEqual({ page: { example: 'listing.html' } });
    const run = await cli(['run', 'books', '--var', 'page=listing.html']);
    expect(run.exitCode, run.stderr).toBe(0);

    const unmarked = await cli(['edit', 'books', '--unvar', 'page']);
    expect(unmarked.exitCode).toBe(0);
    saved = JSON.parse(await readFile(booksFile, 'utf8'));
    expect(saved.url).toBe(`${site.origin}/listing.html`);
    expect(saved.variables).toEqual({});
    expect(saved.revision).toBe(4);
  });
});

describe('pagejson diff', () => {
  it('describes the working file against HEAD and against a config revision, as text, JSON and GitHub Markdown', async () => {
    const text = await cli(['diff', 'books']);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toContain('books: HEAD (revision 1) → working file (revision 4)');
    expect(text.stdout).toContain('field count removed');
    expect(text.stdout).toContain('field books.thumb added (url, selector "img")');

    const json = await cli(['diff', 'books', '--against', '1', '--format', 'json']);
    expect(json.exitCode, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.fromRevision).toBe(1);
    expect(report.toRevision).toBe(4);
    expect(report.changes.some((c: { kind: string }) => c.kind === 'renamed')).toBe(true);

    const summaryFile = join(dir, 'summary.md');
    const github = await execa(process.execPath, [CLI_BIN, 'diff', 'books', '--format', 'github'], {
      cwd: dir,
      reject: false,
      env: { GITHUB_STEP_SUMMARY: summaryFile },
    });
    expect(github.stdout).toMatch(/^### pagejson: `books` \(revision 1 → 4\)/);
    expect(github.stdout).toContain('- field count removed');
    expect(await readFile(summaryFile, 'utf8')).toBe(`${github.stdout}\n`);

    const bad = await cli(['diff', 'books', '--against', 'no-such-branch']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('"no-such-branch" is not a git revision here');
  });
});

describe('pagejson edit makes an array of objects with flags (issue 52)', () => {
  it('--add PATH:array=SEL then nested --adds: an array of objects, every nested field and the variable in the summary, and it runs', async () => {
    const result = await cli([
      'edit',
      'books',
      '--add',
      'articles:array=article.product_pod',
      '--add',
      'articles.title:string=h3 a',
      '--add',
      'articles.price:number=.price_color',
      '--set',
      'articles.price.transform=number',
      '--var',
      'path:1=listing',
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const texts = (JSON.parse(result.stdout) as { changes: Array<{ text: string }> }).changes.map((c) => c.text);
    expect(texts).toContain('field articles added (array, selector "article.product_pod")');
    expect(texts).toContain('field articles.title added (string, selector "h3 a")');
    expect(texts).toContain('field articles.price added (number, selector ".price_color")');
    expect(texts).toContain('variable listing added (example "listing.html")');
    const saved = JSON.parse(await readFile(booksFile, 'utf8'));
    const articles = saved.structure.find((f: { name: string }) => f.name === 'articles');
    expect(articles.items).toBeUndefined();
    expect(articles.fields.map((f: { name: string }) => f.name)).toEqual(['title', 'price']);
    const run = await cli(['run', 'books', '--var', 'listing=listing.html']);
    expect(run.exitCode, run.stderr).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data.articles.length).toBeGreaterThan(0);
    expect(typeof data.articles[0].title).toBe('string');
    expect(typeof data.articles[0].price).toBe('number');
  });

  it('an array whose items read an attribute is not turned silently; the hint is a step flags can do', async () => {
    const result = await cli([
      'edit',
      'books',
      '--add',
      'links:array=h3 a',
      '--set',
      'links.attribute=href',
      '--add',
      'links.title:string=a',
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('"links" is an array of string values read with attribute');
    expect(result.stderr).toContain('--remove links and --add links:array=SELECTOR again');
  });
});
