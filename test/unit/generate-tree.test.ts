import { describe, expect, it } from 'vitest';
import { formatValue, renderStructureTree } from '../../src/cli/tree.js';

describe('renderStructureTree', () => {
  it('shows each field with type, source and sample value, nested values from the first item', () => {
    const tree = renderStructureTree(
      [
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'summary', type: 'string' },
        { name: 'tags', type: 'array', selector: '.tag', items: { type: 'string' } },
        {
          name: 'books',
          type: 'array',
          selector: 'article',
          fields: [
            { name: 'name', type: 'string', selector: 'h3 a', attribute: 'title' },
            { name: 'price', type: 'number', selector: '.price' },
          ],
        },
      ],
      {
        title: 'All products',
        summary: null,
        tags: ['a', 'b', 'c', 'd'],
        books: [
          { name: 'Attic', price: 51.77 },
          { name: 'Velvet', price: 53.74 },
        ],
      },
    );
    expect(tree.split('\n')).toEqual([
      '├── title  string  ← h1  "All products"',
      '├── summary  string  ← model  null',
      '├── tags  array[4]  ← .tag  ["a","b","c"]',
      '└── books  array[2]  ← article',
      '    ├── name  string  ← h3 a @title  "Attic"',
      '    └── price  number  ← .price  51.77',
    ]);
  });

  it('bounds long values', () => {
    expect(formatValue('x'.repeat(200))).toHaveLength(60);
    expect(formatValue(undefined)).toBe('null');
  });
});
