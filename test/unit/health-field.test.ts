import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { compareData, judgeHealth, seedBaseline, snapshotName } from '../../src/core/health/index.js';
import { valueKind } from '../../src/core/health/value-kind.js';

const structure: Field[] = [
  { name: 'title', type: 'string', selector: 'h1' },
  { name: 'books', type: 'array', selector: 'article', fields: [{ name: 'name', type: 'string', selector: 'a' }] },
  {
    name: 'shop',
    type: 'object',
    fields: [
      { name: 'phone', type: 'string', selector: '.phone' },
      { name: 'email', type: 'string', selector: '.email' },
    ],
  },
];
const sample = { title: 'Books', books: [{ name: 'a' }, { name: 'b' }], shop: { phone: '1', email: 'x@y' } };

const judge = (data: Record<string, unknown>, good: unknown[] = [sample]) => judgeHealth(structure, data, seedBaseline(structure, good));

describe('field health (the one judgement)', () => {
  it('is healthy when every field that had a value still has one', () => {
    const health = judge({ title: 'Books', books: [{ name: 'c' }], shop: { phone: '2', email: 'z@y' } });
    expect(health).toMatchObject({ state: 'healthy', failing: [], findings: [] });
    // One item where there were two is not a break: lists vary (below half the fewest is).
    expect(health.fields.find((f) => f.path === 'books')).toEqual({ path: 'books', matched: true, items: 1, expectedItems: 2 });
  });

  it('is degraded when an array that had items is empty, naming the field and what changed', () => {
    const health = judge({ title: 'Books', books: [], shop: { phone: '2', email: 'z@y' } });
    expect(health).toMatchObject({ state: 'degraded', failing: ['books'] });
    expect(health.fields.find((f) => f.path === 'books')).toMatchObject({ problem: 'array-emptied', items: 0, expectedItems: 2 });
    expect(health.findings).toEqual(['books: empty (had at least 2 items in every good observation)']);
  });

  it('names one emptied field of many: a field filled in every good observation is a finding on its own', () => {
    const health = judge({ title: 'Books', books: [{ name: 'a' }], shop: { phone: null, email: 'x@y' } }, [sample, sample, sample]);
    expect(health).toMatchObject({ state: 'degraded', failing: ['shop.phone'] });
    expect(health.findings).toEqual(['shop.phone: empty in 1 of 1 (was filled in 3 of 3)']);
  });

  it('names an item field empty in every item, and a list shrunk below half of its fewest', () => {
    const many = { ...sample, books: Array.from({ length: 10 }, (_, i) => ({ name: `b${i}` })) };
    const emptied = judge({ ...many, books: many.books.map(() => ({ name: null })) }, [many]);
    expect(emptied.findings).toEqual(['books[].name: empty in 10 of 10 items (was filled in 1 of 1)']);
    const shrunk = judge({ ...many, books: many.books.slice(0, 4) }, [many]);
    expect(shrunk).toMatchObject({ state: 'degraded', failing: ['books'] });
    expect(shrunk.findings).toEqual(['books: 4 items (had at least 10 in every good observation)']);
    expect(judge({ ...many, books: many.books.slice(0, 5) }, [many]).state).toBe('healthy');
  });

  it('is broken when nothing at all came out, or a required field has a finding', () => {
    expect(judge({ title: null, books: [], shop: { phone: null, email: null } }).state).toBe('broken');
    const required = structure.map((field) => (field.name === 'title' ? { ...field, required: true } : field));
    expect(judgeHealth(required, { title: null, books: [{ name: 'a' }], shop: { phone: '1', email: 'x' } })).toMatchObject({
      state: 'broken',
      findings: ['title: empty in 1 of 1 (a required field)'],
    });
  });

  it('without a baseline judges only required fields on being filled (a new field is not a break)', () => {
    expect(judgeHealth(structure, { title: 'x', books: [], shop: { phone: null, email: null } }).state).toBe('healthy');
  });
});

describe('field health judged many times against one baseline (the daemon: every load, one stored baseline)', () => {
  it('places the baseline on each structure it is judged with: an edit that renames a field keeps the entry', () => {
    const baseline = seedBaseline(structure, [sample, sample]);
    const emptied = { title: 'Books', books: [{ name: 'a' }], shop: { phone: null, email: 'x@y' } };
    expect(judgeHealth(structure, emptied, baseline).failing).toEqual(['shop.phone']);
    // The same baseline object, a new structure: `phone` renamed `telephone` (same selector) is still judged.
    const renamed: Field[] = structure.map((field) =>
      field.name === 'shop' ? { ...field, fields: [{ name: 'telephone', type: 'string', selector: '.phone' }, field.fields![1]!] } : field,
    );
    const data = { title: 'Books', books: [{ name: 'a' }], shop: { telephone: null, email: 'x@y' } };
    expect(judgeHealth(renamed, data, baseline).findings).toEqual(['shop.telephone: empty in 1 of 1 (was filled in 2 of 2)']);
    // And back: the first structure still finds its own entries.
    expect(judgeHealth(structure, emptied, baseline).failing).toEqual(['shop.phone']);
  });

  it('classifies a value without a digit as a label or text only (dates, numbers, prices and identifiers hold digits)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        const kind = valueKind(text);
        if (!/\d/.test(text.replace(/\s+/g, ' ').trim())) expect([undefined, 'url', 'label', 'text']).toContain(kind);
      }),
      { numRuns: 2_000 },
    );
    expect(['2026-11-28', '12.50', '£12.50', 'SKU123', 'Nov 28, 2026', 'In stock', 'Out of stock'].map(valueKind)).toEqual([
      'date',
      'number',
      'price',
      'identifier',
      'date',
      'label',
      'label',
    ]);
  });
});

describe('snapshots', () => {
  it('names a snapshot after its variable values, safely', () => {
    expect(snapshotName({})).toBe('default');
    expect(snapshotName({ page: '2', category: 'Travel & Leisure' })).toBe('category=travel-leisure_page=2');
    expect(snapshotName({ q: '../../etc/passwd' })).toMatch(/^q=\.\.-\.\.-etc-passwd$|^v-[0-9a-f]{16}$/);
    expect(snapshotName({ q: 'x'.repeat(200) })).toMatch(/^v-[0-9a-f]{16}$/);
  });

  it('describes differences field by field', () => {
    expect(compareData({ a: 1, list: [{ p: 1 }, { p: 2 }] }, { a: 2, list: [{ p: 1 }], b: 'new' })).toEqual([
      { path: 'a', kind: 'changed', before: 1, after: 2 },
      { path: 'list[1]', kind: 'removed', before: { p: 2 } },
      { path: 'b', kind: 'added', after: 'new' },
    ]);
  });
});
