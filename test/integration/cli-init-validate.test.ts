import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { createCliProject, initWithExamples, type CliProject } from '../support/cli-project.js';

let project: CliProject;

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);

afterEach(async () => {
  await project?.remove();
});

describe('pagejson init', () => {
  it('creates pagejson.json, configs/ with the published schemas, and a .gitignore line', async () => {
    project = await createCliProject();
    const result = await project.run(['init']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('created  pagejson.json');

    const settings = JSON.parse(await project.read('pagejson.json'));
    expect(settings.$schema).toBe('./configs/pagejson.project.schema.json');
    expect(settings).toMatchObject({
      configs: 'configs',
      dataDir: '.pagejson',
      server: { host: '127.0.0.1', port: 8080 },
      cache: { freshMinutes: 15 },
    });
    for (const name of ['pagejson.config.schema.json', 'pagejson.project.schema.json']) {
      expect(await project.read(`configs/${name}`)).toBe(await readFile(join(REPO_ROOT, 'configs', name), 'utf8'));
    }
    expect((await project.read('.gitignore')).split('\n')).toContain('.pagejson/');

    const validate = await project.run(['validate']);
    expect(validate.exitCode).toBe(0);
  });

  it('refuses to touch an existing project without --yes and keeps settings with --yes', async () => {
    project = await createCliProject();
    await project.write('.gitignore', 'node_modules/\n');
    await project.run(['init']);
    const custom = JSON.parse(await project.read('pagejson.json'));
    custom.server.port = 9999;
    await project.write('pagejson.json', JSON.stringify(custom));
    await project.write('configs/pagejson.config.schema.json', '{}');

    const again = await project.run(['init']);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toBe(
      'error: pagejson.json already exists\nhint: pass --yes to keep its settings and refresh the JSON Schemas, configs/ and .gitignore',
    );

    const refreshed = await project.run(['init', '--yes']);
    expect(refreshed.exitCode).toBe(0);
    expect(JSON.parse(await project.read('pagejson.json')).server.port).toBe(9999);
    expect(await project.read('configs/pagejson.config.schema.json')).not.toBe('{}');
    expect(await project.read('.gitignore')).toBe('node_modules/\n.pagejson/\n');
  });
});

describe('pagejson validate', () => {
  const origin = 'http://127.0.0.1:4173';

  it('accepts the example configs', async () => {
    project = await createCliProject();
    await initWithExamples(project, origin);
    const text = await project.run(['validate']);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('✓ 4 files valid');
    const json = await project.run(['validate', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, problems: [] });
    expect(JSON.parse(json.stdout).files.map((f: { file: string }) => f.file)).toEqual([
      'configs/books.json',
      'configs/countries.json',
      'configs/product.json',
      'pagejson.json',
    ]);
  });

  it('reports every broken file with its JSON path and exits 1', async () => {
    project = await createCliProject();
    await initWithExamples(project, origin);
    const books = JSON.parse(await project.read('configs/books.json'));
    books.structure[2].fields[0].colour = 'red';
    books.scraper = 7;
    await project.write('configs/books.json', JSON.stringify(books, null, 2));
    await project.write('configs/broken.json', '{ "apiId": "broken", ');
    const copy = JSON.parse(await project.read('configs/countries.json'));
    await project.write('configs/countries-copy.json', JSON.stringify(copy));
    const product = JSON.parse(await project.read('configs/product.json'));
    product.model = 'gpt-nowhere';
    await project.write('configs/product.json', JSON.stringify(product));

    const result = await project.run(['validate']);
    expect(result.exitCode).toBe(1);
    // Each problem at its line and column: the unknown key where "colour" is written, the syntax error where it is.
    const booksText = await project.read('configs/books.json');
    const colourLine = booksText.split('\n').findIndex((line) => line.includes('"colour"')) + 1;
    const colourColumn = booksText.split('\n')[colourLine - 1]!.indexOf('"colour"') + 1;
    expect(result.stdout).toContain(
      `configs/books.json:${colourLine}:${colourColumn} $.structure[2].fields[0].colour: unknown key "colour"`,
    );
    expect(result.stdout).toMatch(/configs\/books\.json:\d+:\d+ \$\.scraper: number 7 is not allowed here: use one of 1, 2, 3/);
    expect(result.stdout).toMatch(/configs\/broken\.json:1:22 \$: not valid JSON: a key in double quotes was expected/);
    expect(result.stdout).toMatch(/configs\/countries-copy\.json:1:\d+ \$\.apiId: apiId "countries" does not match the file name/);
    expect(result.stdout).toMatch(/configs\/product\.json:1:\d+ \$\.model: model "gpt-nowhere" is not defined in pagejson\.json/);
    expect(result.stdout).toMatch(/\n {2}hint: /);
    expect(result.stdout).toMatch(/✗ \d+ problems in 4 of 6 files/);

    const json = JSON.parse((await project.run(['validate', '--format', 'json'])).stdout);
    expect(json.ok).toBe(false);
    expect(json.problems).toContainEqual(
      expect.objectContaining({
        file: 'configs/books.json',
        path: '$.structure[2].fields[0].colour',
        line: colourLine,
        column: colourColumn,
        message: 'unknown key "colour"',
      }),
    );
    // `secrets`: the environment variables a config reads (issue 45); this one reads none.
    expect(json.files).toContainEqual({ file: 'configs/countries.json', apiId: 'countries', ok: true, secrets: [] });

    const github = await project.run(['validate', '--format', 'github']);
    expect(github.exitCode).toBe(1);
    const annotations = github.stdout.split('\n').filter((line) => line.startsWith('::error '));
    expect(annotations.length).toBe(json.problems.length);
    expect(annotations).toContainEqual(
      `::error file=configs/books.json,line=${colourLine},col=${colourColumn},title=pagejson $.structure[2].fields[0].colour::$.structure[2].fields[0].colour: unknown key "colour" (remove it; keys allowed here: name, type, selector, attribute, transform, description, required, fields, items)`,
    );
  });

  it('says what is wrong in words, with the nearest allowed name or value', async () => {
    project = await createCliProject();
    await initWithExamples(project, origin);
    const books = JSON.parse(await project.read('configs/books.json'));
    books.scrapper = 2;
    books.status = 'activ';
    books.caching = 'yes';
    books.structure[0].type = 'strin';
    books.structure[1].attribute = '[href]';
    await project.write('configs/books.json', JSON.stringify(books, null, 2));
    const settings = JSON.parse(await project.read('pagejson.json'));
    settings.cache.freshMinute = 5;
    await project.write('pagejson.json', JSON.stringify(settings, null, 2));

    const messages = (
      JSON.parse((await project.run(['validate', '--format', 'json'])).stdout) as {
        problems: Array<{ path: string; message: string; hint?: string }>;
      }
    ).problems;
    const at = (path: string) => messages.find((problem) => problem.path === path);
    expect(at('$.scrapper')).toMatchObject({ message: 'unknown key "scrapper" (did you mean "scraper"?)' });
    expect(at('$.scrapper')!.hint).toMatch(/^rename it to "scraper"/);
    expect(at('$.status')?.message).toBe('the text "activ" is not allowed here: use one of active, inactive (did you mean "active"?)');
    expect(at('$.caching')?.message).toBe('must be true or false, not the text "yes"');
    expect(at('$.structure[0].type')?.message).toMatch(
      /^the text "strin" is not allowed here: use one of string, .* \(did you mean "string"\?\)$/,
    );
    expect(at('$.cache.freshMinute')?.message).toBe('unknown key "freshMinute" (did you mean "freshMinutes"?)');
    // No message is zod's raw wording.
    for (const problem of messages) expect(problem.message).not.toMatch(/^Invalid|expected .* received/);

    // All at once: the file's rules are checked in the same run, not after the schema problems are fixed.
    expect(messages).toContainEqual(
      expect.objectContaining({
        path: '$.structure[1].attribute',
        message: '"[href]" is not an attribute name',
        hint: 'write just the name: "href"',
      }),
    );
  });

  it('checks only the files named, including duplicate apiIds among them', async () => {
    project = await createCliProject();
    await initWithExamples(project, origin);
    await project.write('configs/broken.json', 'not json');
    const ok = await project.run(['validate', 'configs/books.json', 'pagejson.json']);
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toContain('✓ 2 files valid');

    await mkdir(join(project.dir, 'other'));
    await project.write('other/books.json', await project.read('configs/books.json'));
    const duplicate = await project.run(['validate', 'configs/books.json', 'other/books.json']);
    expect(duplicate.exitCode).toBe(1);
    expect(duplicate.stdout).toContain('other/books.json:3:3 $.apiId: duplicate apiId "books"');
  });

  it('reports a broken pagejson.json and still checks the configs', async () => {
    project = await createCliProject();
    await initWithExamples(project, origin);
    const settings = JSON.parse(await project.read('pagejson.json'));
    settings.server.port = 'eighty';
    await project.write('pagejson.json', JSON.stringify(settings));
    await project.write('configs/broken.json', '[]');
    const result = await project.run(['validate', '--format', 'json']);
    expect(result.exitCode).toBe(1);
    const files = JSON.parse(result.stdout).problems.map((p: { file: string; path: string }) => `${p.file} ${p.path}`);
    expect(files).toContain('pagejson.json $.server.port');
    expect(files).toContain('configs/broken.json $');
  });

  it('treats a bad --format as a usage error (exit 2) with a hint', async () => {
    project = await createCliProject();
    await project.run(['init']);
    const result = await project.run(['validate', '--format', 'xml']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.split('\n')).toEqual([
      'error: --format must be text, json or github, not "xml"',
      'hint: use --format github in GitHub Actions, --format json in scripts',
    ]);
  });

  it('fails with a hint outside a project', async () => {
    project = await createCliProject();
    const result = await project.run(['validate']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^error: no pagejson.json found.*\nhint: run `pagejson init`/);
  });
});
