import { Ajv2020 } from 'ajv/dist/2020.js';
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
}, 180_000);

afterAll(async () => {
  await project?.remove();
  await site?.close();
});

describe('pagejson list', () => {
  it('prints a table of endpoints and JSON with --json', async () => {
    const table = await project.run(['list']);
    expect(table.exitCode).toBe(0);
    const bookRow = table.stdout.split('\n').find((line) => line.includes(' books '));
    expect(bookRow).toMatch(/books\s+│ active\s+│ GET\s+│ http:\/\/127\.0\.0\.1:\d+\/listing\.html/);
    expect(table.stdout.split('\n').find((line) => line.includes(' product '))).toContain('POST');

    const json = JSON.parse((await project.run(['list', '--json'])).stdout);
    expect(json.map((e: { apiId: string }) => e.apiId)).toEqual(['books', 'countries', 'product']);
    expect(json[2]).toMatchObject({
      apiId: 'product',
      method: 'POST',
      path: '/external/product',
      variables: ['sku'],
      scraper: 1,
      caching: true,
      file: 'configs/product.json',
    });
  });

  it('counts invalid files on stderr and still lists the rest', async () => {
    await project.write('configs/zz-broken.json', '{');
    try {
      const result = await project.run(['list', '--json']);
      expect(result.exitCode).toBe(0);
      expect(JSON.parse(result.stdout)).toHaveLength(3);
      expect(result.stderr).toBe('1 invalid config file skipped: run `pagejson validate` for details');
    } finally {
      await import('node:fs/promises').then((fs) => fs.rm(`${project.dir}/configs/zz-broken.json`));
    }
  });
});

describe('pagejson show', () => {
  it('prints settings, structure and a curl line; --json prints the config with defaults', async () => {
    const human = await project.run(['show', 'product']);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain('variable sku example "AP-1001", pattern [A-Z0-9-]{1,32}');
    expect(human.stdout).toContain('  specs: array  table.specs tr\n    name: string  th');
    expect(human.stdout).toContain(
      `curl -X POST -H 'apikey: <API_KEY>' -H 'Content-Type: application/json' -d '{"sku":"AP-1001"}' http://127.0.0.1:8080/external/product`,
    );

    const json = JSON.parse((await project.run(['show', 'books', '--json'])).stdout);
    expect(json).toMatchObject({
      apiId: 'books',
      revision: 1,
      status: 'active',
      scraper: 1,
      session: false,
      caching: true,
      model: 'heuristic',
      selector: 'main',
    });
    expect(json.structure[2].fields).toHaveLength(6);
  });

  it('names a broken config file and the JSON path', async () => {
    const books = JSON.parse(await project.read('configs/countries.json'));
    await project.write('configs/countries.json', JSON.stringify({ ...books, caching: 'yes' }));
    try {
      const result = await project.run(['show', 'countries']);
      expect(result.exitCode).toBe(1);
      expect(result.stderr.split('\n')[0]).toMatch(/^error: configs\/countries\.json at \$\.caching: /);
      expect(result.stderr.split('\n')[1]).toBe('hint: run `pagejson validate` to see every problem, then fix the file');
    } finally {
      await project.write('configs/countries.json', `${JSON.stringify(books, null, 2)}\n`);
    }
  });
});

describe('pagejson schema', () => {
  it("prints a JSON Schema that the endpoint's real data satisfies", async () => {
    const schemaResult = await project.run(['schema', 'books']);
    expect(schemaResult.exitCode).toBe(0);
    const schema = JSON.parse(schemaResult.stdout);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(Object.keys(schema.properties)).toEqual(['title', 'count', 'books']);

    const data = JSON.parse((await project.run(['run', 'books'])).stdout);
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(data)).toBe(true);
    expect(validate({ ...data, books: 'not a list' })).toBe(false);
  });
});

describe('pagejson openapi', () => {
  it('prints an OpenAPI 3.1 document of every endpoint', async () => {
    const result = await project.run(['openapi', '--server', 'https://api.example/']);
    expect(result.exitCode).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://api.example' }]);
    expect(Object.keys(doc.paths)).toEqual(['/external/books', '/external/countries', '/external/product']);
    expect(Object.keys(doc.paths['/external/books'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/external/product']).sort()).toEqual(['get', 'post']);

    const byDefault = JSON.parse((await project.run(['openapi'])).stdout);
    expect(byDefault.servers).toEqual([{ url: 'http://127.0.0.1:8080' }]);
  });
});
