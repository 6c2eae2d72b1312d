import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/index.js';
import { judgeHealth, learnBaseline } from '../../src/core/health/index.js';
import type { HealthBaseline } from '../../src/core/state/index.js';

/**
 * Health poisoning (issue 45): a hostile page teaches the baseline and then flips. Loads are judged and, when
 * healthy, taught, as the daemon (src/core/retrieval/endpoint-status.ts) and `run`/`check` do. A poisoned
 * sample must not make a broken read pass as healthy, nor a good read fail.
 */
const structure = [
  {
    name: 'books',
    type: 'array',
    selector: 'li',
    fields: [
      { name: 'title', type: 'string', selector: 'a' },
      { name: 'price', type: 'number', selector: '.price', required: true },
    ],
  },
] as unknown as Field[];

/** A page of `count` books, the first `words` of which show a word where the price was. */
const page = (count: number, words = 0) => ({
  books: Array.from({ length: count }, (_, i) => ({ title: `Book number ${i}`, price: i < words ? 'call us' : 10 + i })),
});

function load(baseline: HealthBaseline | undefined, data: Record<string, unknown>) {
  const health = judgeHealth(structure, data, baseline);
  return { health, baseline: health.state === 'healthy' ? learnBaseline(baseline, structure, data) : baseline };
}

function taught(): HealthBaseline | undefined {
  let baseline: HealthBaseline | undefined;
  for (let i = 0; i < 5; i += 1) baseline = learnBaseline(baseline, structure, page(10));
  return baseline;
}

describe('health poisoning', () => {
  it('prices mixed with words, load after load, do not teach that words are prices', () => {
    let baseline = taught();
    for (let round = 0; round < 30; round += 1) {
      // More than half still fit: each of these loads is healthy, and is taught.
      const mixed = load(baseline, page(10, 4));
      expect(mixed.health.state).toBe('healthy');
      baseline = mixed.baseline;
    }
    const flipped = judgeHealth(structure, page(10, 10), baseline);
    expect(flipped.state).not.toBe('healthy');
    expect(flipped.findings.join('\n')).toContain('books[].price: numbers became words such as "call us"');
    // And the good page is still good.
    expect(judgeHealth(structure, page(10), baseline).state).toBe('healthy');
  });

  it('a page that flips to broken and stays so is never taught: it stays broken, and the good page is healthy after', () => {
    let baseline = taught();
    for (let round = 0; round < 30; round += 1) {
      const broken = load(baseline, page(10, 10));
      expect(broken.health.state, `load ${round}`).toBe('broken');
      expect(broken.baseline).toBe(baseline);
      const empty = load(baseline, { books: [] });
      expect(empty.health.state).not.toBe('healthy');
      baseline = empty.baseline;
    }
    expect(load(baseline, page(10)).health.state).toBe('healthy');
  });
});
