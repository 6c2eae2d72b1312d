import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-once.js';
import { createCliProject, type CliProject } from '../support/cli-project.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * `pagejson jobs run` (issue 50): one endpoint over many inputs in the CLI's process, against the fixture
 * site: every input ends in exactly one line (data, an error with its reason, or skipped with its reason),
 * the counts add up, `--limit` is exact, and each source (inputs, urls, sitemap, from) gives its items.
 */
let site: FixtureSite;
let project: CliProject;

interface Line {
  index: number;
  input: Record<string, string>;
  outcome: string;
  data: { title: string; kind: string } | null;
  errors: Array<{ message: string; code: string }> | null;
  health: string | null;
  fetchedAt: string | null;
  item?: { name: string; url: string };
}

const linesOf = (text: string): Line[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  project = await createCliProject();
  const init = await project.run(['init']);
  expect(init.exitCode).toBe(0);
  const settings = JSON.parse(await project.read('pagejson.json')) as Record<string, Record<string, unknown>>;
  settings.fetch = { ...settings.fetch, allowPrivateNetworks: true, timeoutMs: 20_000 };
  // Generous: the machines tests run on may be busy, and a slow worker thread start is no failure here.
  settings.extraction = { ...settings.extraction, timeoutMs: 60_000 };
  // No minimum delay between job requests: politeness has its own tests (jobs-politeness).
  settings.jobs = { ...settings.jobs, minDelayMs: 0 };
  await project.write('pagejson.json', JSON.stringify(settings));
  await project.write(
    'configs/item.json',
    JSON.stringify({
      apiId: 'item',
      url: `${site.origin}/jobs/item?id={{id}}`,
      variables: { id: { example: '1' } },
      structure: [
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'kind', type: 'string', selector: 'p.kind' },
      ],
    }),
  );
  await project.write(
    'configs/list.json',
    JSON.stringify({
      apiId: 'list',
      url: `${site.origin}/jobs/list.html`,
      structure: [
        {
          name: 'entries',
          type: 'array',
          selector: 'li.entry',
          fields: [
            { name: 'name', type: 'string', selector: 'a' },
            { name: 'url', type: 'url', selector: 'a', attribute: 'href' },
          ],
        },
      ],
    }),
  );
}, 180_000);

afterAll(async () => {
  await project?.remove();
  await site?.close();
});

describe('pagejson jobs run', () => {
  it('gives every input of a CSV one line: data, an error with its reason, or skipped with its reason', async () => {
    await project.write('inputs.csv', 'id\n1\n2\n404\n"3"\n\n');
    await project.write('bad.jsonl', '{"id": "7"}\n{"id": "8", "__proto__": "x"}\n');
    site.resetHits();
    const result = await project.run(['jobs', 'run', 'item', '--inputs', 'inputs.csv', '--concurrency', '2']);
    expect(result.exitCode).toBe(1);
    const lines = linesOf(result.stdout).sort((a, b) => a.index - b.index);
    expect(lines.map((line) => [line.index, line.outcome])).toEqual([
      [0, 'data'],
      [1, 'data'],
      [2, 'error'],
      [3, 'data'],
    ]);
    expect(lines[0]).toMatchObject({ input: { id: '1' }, data: { title: 'Item 1', kind: 'item' }, errors: null, health: 'healthy' });
    expect(Date.parse(lines[0]!.fetchedAt!)).not.toBeNaN();
    expect(lines[2]!.errors![0]).toMatchObject({ code: 'FETCH_STATUS' });
    expect(lines[2]!.errors![0]!.message).toContain('404');
    expect(result.stderr).toContain('4 inputs: 3 done, 1 failed, 0 skipped');
    expect(site.hitCount('/jobs/item')).toBe(4);

    // A variable the endpoint does not have is skipped with that reason, never fetched; `__proto__` is a key like any other.
    const bad = await project.run(['jobs', 'run', 'item', '--inputs', 'bad.jsonl', '--json', '--out', 'bad.ndjson']);
    expect(JSON.parse(bad.stdout)).toMatchObject({ state: 'done', total: 2, done: 1, failed: 0, skipped: 1 });
    const skipped = linesOf(await project.read('bad.ndjson')).find((line) => line.outcome === 'skipped')!;
    expect(skipped.errors).toEqual([{ code: 'VARIABLE_UNKNOWN', message: 'unknown variable: __proto__' }]);
  });

  it('reads URLs against the template, skips those that do not fit with the reason, and writes CSV', async () => {
    await project.write(
      'urls.txt',
      [
        `${site.origin}/jobs/item?id=5`,
        '# a comment',
        `${site.origin}/jobs/other?id=6`,
        'https://elsewhere.example/jobs/item?id=7',
        `${site.origin}/jobs/item?id=a%20b`,
      ].join('\n'),
    );
    const result = await project.run(['jobs', 'run', 'item', '--urls', 'urls.txt', '--out', 'out.csv']);
    expect(result.exitCode).toBe(0);
    const [header, ...rows] = (await project.read('out.csv')).trim().split('\n');
    expect(header).toBe('index,outcome,input.url,data.title,data.kind,error,health,fetchedAt');
    const byIndex = new Map(rows.map((row) => [Number(row.split(',')[0]), row]));
    expect(byIndex.size).toBe(4);
    expect(byIndex.get(0)).toContain(',data,');
    expect(byIndex.get(0)).toContain('Item 5,item');
    expect(byIndex.get(1)).toContain('skipped');
    expect(byIndex.get(1)).toContain("does not fit the endpoint's URL template");
    expect(byIndex.get(2)).toContain(`not on ${site.origin}`);
    // A percent-encoded value is the variable's value, decoded, and the page sees it again encoded.
    expect(byIndex.get(3)).toContain('Item a b');
  });

  it('takes a gzipped sitemap through its index, with include, exclude and an exact limit', async () => {
    const result = await project.run(
      [
        'jobs',
        'run',
        'item',
        '--sitemap',
        `${site.origin}/jobs/sitemap-index.xml`,
        '--include',
        '*/jobs/item?id=*',
        '--exclude',
        '*id=2&*',
        '--limit',
        '7',
        '--out',
        'sitemap.json',
        '--json',
      ],
      { timeoutMs: 120_000 },
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ state: 'done', total: 7, done: 7, failed: 0, skipped: 0 });
    const lines = JSON.parse(await project.read('sitemap.json')) as Line[];
    expect(lines).toHaveLength(7);
    expect(lines.map((line) => line.data!.title).sort()).toEqual(['Item 1', 'Item 3', 'Item 4', 'Item 5', 'Item 6', 'Item 7', 'Item 8']);
    // Without include, the page that fits no template is an input too, skipped with its reason.
    const all = await project.run([
      'jobs',
      'run',
      'item',
      '--sitemap',
      `${site.origin}/jobs/sitemap.xml?n=3`,
      '--json',
      '--out',
      'all.ndjson',
    ]);
    expect(JSON.parse(all.stdout)).toMatchObject({ total: 4, done: 3, skipped: 1 });
  }, 240_000);

  it("runs over another endpoint's list, each line with the list item it came from", async () => {
    const result = await project.run(['jobs', 'run', 'item', '--from', 'list:entries[].url', '--out', 'from.ndjson', '--json']);
    expect(JSON.parse(result.stdout)).toMatchObject({ total: 5, done: 5 });
    const lines = linesOf(await project.read('from.ndjson')).sort((a, b) => a.index - b.index);
    expect(lines[2]).toMatchObject({
      input: { url: `${site.origin}/jobs/item?id=3` },
      data: { title: 'Item 3' },
      item: { name: 'Entry 3', url: `${site.origin}/jobs/item?id=3` },
    });
  });

  it('says what is wrong with the flags', async () => {
    const none = await project.run(['jobs', 'run', 'item']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('a job needs its inputs');
    const two = await project.run(['jobs', 'run', 'item', '--urls', 'urls.txt', '--sitemap', 'http://x']);
    expect(two.stderr).toContain('not --urls and --sitemap');
    const format = await project.run(['jobs', 'run', 'item', '--urls', 'urls.txt', '--out', 'x.txt']);
    expect(format.stderr).toContain('must end in .ndjson, .csv or .json');
  });
});
