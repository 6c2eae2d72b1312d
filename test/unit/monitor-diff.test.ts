import { describe, expect, it } from 'vitest';
import { diffData, isEmptyChange, stableKeyOf } from '../../src/core/monitor/diff.js';

describe('data diffs between monitor runs', () => {
  it('matches items by a url or id field, so a moved item with a new price is one change', () => {
    const before = {
      jobs: [
        { url: '/j/1', title: 'Cook', pay: 10 },
        { url: '/j/2', title: 'Baker', pay: 12 },
      ],
    };
    const after = {
      jobs: [
        { url: '/j/3', title: 'Driver', pay: 9 },
        { url: '/j/2', title: 'Baker', pay: 14 },
      ],
    };
    expect(diffData(before, after)).toEqual({
      added: [{ path: 'jobs', key: 'url=/j/3', item: { url: '/j/3', title: 'Driver', pay: 9 } }],
      removed: [{ path: 'jobs', key: 'url=/j/1', item: { url: '/j/1', title: 'Cook', pay: 10 } }],
      changed: [{ path: 'jobs[url=/j/2].pay', from: 12, to: 14 }],
    });
  });

  it('takes only a key that is present and distinct in both runs, preferring id over url', () => {
    expect(stableKeyOf([{ id: 1, url: 'a' }], [{ id: 2, url: 'a' }])).toBe('id');
    expect(
      stableKeyOf(
        [
          { id: 1, link: 'a' },
          { id: 1, link: 'b' },
        ],
        [{ id: 2, link: 'c' }],
      ),
    ).toBe('link');
    expect(stableKeyOf([{ name: 'x' }], [{ name: 'y' }])).toBeUndefined();
    expect(stableKeyOf([{ productUrl: '/p' }], [{ productUrl: '/q' }])).toBe('productUrl');
  });

  it('without a key, matches items by their whole value and counts duplicates', () => {
    const change = diffData({ rows: [{ a: 1 }, { a: 1 }, { a: 2 }] }, { rows: [{ a: 1 }, { a: 3 }, { a: 4 }] });
    expect(change.changed).toEqual([]);
    expect(change.added.map((entry) => entry.item)).toEqual([{ a: 3 }, { a: 4 }]);
    expect(change.removed.map((entry) => entry.item)).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('reports one changed entry of a list that kept its length in place', () => {
    expect(diffData({ prices: [1, 2, 3] }, { prices: [1, 5, 3] }).changed).toEqual([{ path: 'prices[1]', from: 2, to: 5 }]);
  });

  it('reports changed, appearing and disappearing fields by path, and nothing for equal data', () => {
    const change = diffData({ title: 'A', info: { stock: 3 } }, { title: 'B', info: { stock: 3, sale: true } });
    expect(change.changed).toEqual([
      { path: 'title', from: 'A', to: 'B' },
      { path: 'info.sale', from: null, to: true },
    ]);
    expect(isEmptyChange(diffData({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }))).toBe(true);
  });
});
