import { describe, expect, it } from 'vitest';
import { ApiConfigSchema } from '../../src/core/config/schema.js';
import { checkConfigRules } from '../../src/core/registry/validate.js';
import { verifySelectors } from '../../src/core/models/verify-selectors.js';

const html = `<div class="page"><h1>Title</h1>
<table><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>
<div class="meta"><span class="author">Ann</span></div></div>`;

describe('verifySelectors', () => {
  it('keeps matching selectors, relative ones included, and selector-less objects with matching children', () => {
    const { structure, unmatched } = verifySelectors(
      [
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'rows', type: 'array', selector: 'tr', fields: [{ name: 'key', type: 'string', selector: '> td:first-child' }] },
        { name: 'meta', type: 'object', fields: [{ name: 'author', type: 'string', selector: '.author' }] },
      ],
      html,
    );
    expect(unmatched).toEqual([]);
    expect(structure).toHaveLength(3);
    expect(structure[2]).toEqual({ name: 'meta', type: 'object', fields: [{ name: 'author', type: 'string', selector: '.author' }] });
  });

  it('turns unmatched or invalid top-level selectors into model fields and drops unmatched nested ones', () => {
    const { structure, unmatched } = verifySelectors(
      [
        { name: 'price', type: 'number', selector: '.price', transform: ['number'] },
        { name: 'broken', type: 'string', selector: 'h1[' },
        {
          name: 'rows',
          type: 'array',
          selector: 'tr',
          fields: [
            { name: 'key', type: 'string', selector: 'td' },
            { name: 'ghost', type: 'string', selector: '.ghost' },
          ],
        },
        { name: 'list', type: 'array', selector: 'li', fields: [{ name: 'x', type: 'string', selector: 'a' }] },
      ],
      html,
    );
    expect(structure).toEqual([
      { name: 'price', type: 'number' },
      { name: 'broken', type: 'string' },
      { name: 'rows', type: 'array', selector: 'tr', fields: [{ name: 'key', type: 'string', selector: 'td' }] },
      { name: 'list', type: 'array', fields: [{ name: 'x', type: 'string' }] },
    ]);
    expect(unmatched).toEqual(['price', 'broken', 'rows.ghost', 'list']);
    // What comes out is a valid config structure.
    const config = ApiConfigSchema.parse({ apiId: 'x', url: 'https://example.com/', structure });
    expect(checkConfigRules(config, 'x.json')).toEqual([]);
  });
});
