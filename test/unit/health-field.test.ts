import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { assessHealth, compareData, snapshotName } from '../../src/core/health/index.js';

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

describe('field health', () => {
  it('is healthy when every field that had a value still has one', () => {
    const health = assessHealth(structure, { title: 'Books', books: [{ name: 'c' }], shop: { phone: '2', email: 'z@y' } }, sample);
    expect(health).toMatchObject({ state: 'healthy', failing: [] });
    expect(health.fields.find((f) => f.path === 'books')).toEqual({ path: 'books', matched: true, items: 1, expectedItems: 2 });
  });

  it('is degraded when an array that had items is empty, naming the field', () => {
    const health = assessHealth(structure, { title: 'Books', books: [], shop: { phone: '2', email: 'z@y' } }, sample);
    expect(health).toMatchObject({ state: 'degraded', failing: ['books'] });
    expect(health.fields.find((f) => f.path === 'books')).toMatchObject({ problem: 'array-emptied', items: 0, expectedItems: 2 });
  });

  it('is degraded when most fields that had values are empty, healthy when only one of four is', () => {
    expect(assessHealth(structure, { title: null, books: [{ name: 'a' }], shop: { phone: null, email: null } }, sample)).toMatchObject({
      state: 'degraded',
      failing: ['title', 'shop.phone', 'shop.email'],
    });
    expect(assessHealth(structure, { title: 'Books', books: [{ name: 'a' }], shop: { phone: null, email: 'x@y' } }, sample)).toMatchObject({
      state: 'healthy',
      failing: ['shop.phone'],
    });
  });

  it('is broken when nothing at all came out; without an expectation, most fields empty is degraded', () => {
    expect(assessHealth(structure, { title: null, books: [], shop: { phone: null, email: null } }, sample).state).toBe('broken');
    expect(assessHealth(structure, { title: 'x', books: [], shop: { phone: null, email: null } }).state).toBe('degraded');
    expect(assessHealth(structure, { title: 'x', books: [{ name: 'a' }], shop: { phone: '1', email: null } }).state).toBe('healthy');
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
