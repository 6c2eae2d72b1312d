import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, projectJsonSchema, schemaFileText } from '../../src/core/config/json-schemas.js';

const configsDir = new URL('../../configs/', import.meta.url);

describe('published JSON Schemas', () => {
  // The checked-in files must equal what the zod schemas generate; `npx vitest -u` (or `npm run schemas`) updates them.
  it('configs/pagejson.config.schema.json is current', async () => {
    await expect(schemaFileText(configJsonSchema())).toMatchFileSnapshot('../../configs/pagejson.config.schema.json');
  });

  it('configs/pagejson.project.schema.json is current', async () => {
    await expect(schemaFileText(projectJsonSchema())).toMatchFileSnapshot('../../configs/pagejson.project.schema.json');
  });

  it('the config schema accepts the documented example and rejects unknown keys and bad apiIds', async () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(await readFile(new URL('pagejson.config.schema.json', configsDir), 'utf8')));
    const example = {
      apiId: 'books',
      url: 'https://shop.example/catalogue/{{ category }}/index.html',
      variables: { category: { example: 'travel' } },
      structure: [
        { name: 'title', type: 'string', selector: 'h1' },
        {
          name: 'books',
          type: 'array',
          selector: 'article',
          fields: [{ name: 'price', type: 'number', selector: '.price', transform: ['number'] }],
        },
      ],
    };
    expect(validate(example)).toBe(true);
    expect(validate({ ...example, colour: 'red' })).toBe(false);
    expect(validate({ ...example, apiId: 'Books!' })).toBe(false);
    expect(validate({ ...example, structure: [{ name: 'x', type: 'string', transform: ['shout'] }] })).toBe(false);
  });

  it('the project schema accepts an empty object (every key has a default)', async () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(await readFile(new URL('pagejson.project.schema.json', configsDir), 'utf8')));
    expect(validate({})).toBe(true);
    expect(validate({ server: { port: 'eighty' } })).toBe(false);
  });
});
