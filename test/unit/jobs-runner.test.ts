import { afterEach, describe, expect, it, vi } from 'vitest';
import { runItems } from '../../src/core/jobs/runner.js';
import { emptyCounts, type ItemAnswer, type JobItem, type ResultLine } from '../../src/core/jobs/types.js';
import { matchUrl } from '../../src/core/jobs/url-match.js';
import { wildcardMatch } from '../../src/core/jobs/sitemap.js';
import { csvRows } from '../../src/core/jobs/input-files.js';

/**
 * The job runner's rules (issue 50, "never silent"): an item that stops moving is abandoned and tried again
 * (fake timers: no real waiting), and after its attempts it ends as a timeout line; every item ends in exactly
 * one line and the counts add up.
 */
afterEach(() => {
  vi.useRealTimers();
});

const items = (count: number): JobItem[] =>
  Array.from({ length: count }, (_, index) => ({ index, input: { id: String(index) }, values: { id: String(index) } }));
const answer = (id: string): ItemAnswer => ({ data: { id }, health: 'healthy', fetchedAt: '2026-01-01T00:00:00.000Z', milliCredits: 400 });

describe('runItems', () => {
  it('retries an item that stopped moving, then gives it a timeout line', async () => {
    vi.useFakeTimers();
    const calls = new Map<string, number>();
    const lines: ResultLine[] = [];
    const counts = emptyCounts(3);
    const run = runItems(items(3), {
      retrieveItem: (values) => {
        calls.set(values.id!, (calls.get(values.id!) ?? 0) + 1);
        // Item 1 never answers; item 2 stalls once, then answers.
        if (values.id === '1' || (values.id === '2' && calls.get('2') === 1)) return new Promise<ItemAnswer>(() => undefined);
        return Promise.resolve(answer(values.id!));
      },
      append: (line) => lines.push(line),
      finished: new Set(),
      counts,
      concurrency: 3,
      itemTimeoutMs: 1_000,
      attempts: 3,
    });
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await run).toEqual({ state: 'done' });
    expect(calls).toEqual(
      new Map([
        ['0', 1],
        ['1', 3],
        ['2', 2],
      ]),
    );
    const byIndex = new Map(lines.map((line) => [line.index, line]));
    expect(lines).toHaveLength(3);
    expect(byIndex.get(1)).toMatchObject({
      outcome: 'error',
      errors: [{ code: 'FETCH_TIMEOUT', message: 'the item stopped moving for 1000 ms, 3 times' }],
    });
    expect(byIndex.get(2)).toMatchObject({ outcome: 'data', data: { id: '2' }, credits: 0.4 });
    expect(counts).toEqual({ total: 3, done: 2, failed: 1, skipped: 0, credits: 800 });
  });

  it('does not run again the items a resumed job already has lines for', async () => {
    const seen: string[] = [];
    const counts = { ...emptyCounts(4), done: 2, credits: 800 };
    const end = await runItems(items(4), {
      retrieveItem: async (values) => (seen.push(values.id!), answer(values.id!)),
      append: () => undefined,
      finished: new Set([0, 2]),
      counts,
      concurrency: 2,
      itemTimeoutMs: 60_000,
    });
    expect(end).toEqual({ state: 'done' });
    expect(seen.sort()).toEqual(['1', '3']);
    expect(counts).toMatchObject({ done: 4, credits: 1_600 });
  });
});

describe('job inputs', () => {
  it('reads a URL against the template, or says why it does not fit', () => {
    const config = { url: 'https://shop.example/p/{{sku}}/view?lang={{lang}}&v=2', variables: {} };
    expect(matchUrl(config, 'https://shop.example/p/AB%2012/view?v=2&lang=en')).toEqual({ ok: true, values: { sku: 'AB 12', lang: 'en' } });
    expect(matchUrl(config, 'https://shop.example/p/AB/view?lang=en&v=3')).toEqual({
      ok: false,
      reason: 'does not fit the endpoint\'s URL template: its query parameter v is not "2"',
    });
    expect(matchUrl(config, 'https://other.example/p/AB/view?lang=en&v=2')).toEqual({ ok: false, reason: 'not on https://shop.example' });
    expect(matchUrl(config, 'not a url')).toEqual({ ok: false, reason: 'not a URL' });
  });

  it('matches wildcards, and reads quoted CSV', () => {
    expect(wildcardMatch('*/item?id=*', 'https://a/item?id=3')).toBe(true);
    expect(wildcardMatch('*/item', 'https://a/item?id=3')).toBe(false);
    expect(wildcardMatch('*a*a*a*a*a*a*a*a*b', 'a'.repeat(2_000))).toBe(false);
    expect(csvRows('id,name\r\n1,"a, ""b"""\n2,c\n')).toEqual([
      ['id', 'name'],
      ['1', 'a, "b"'],
      ['2', 'c'],
    ]);
  });
});
