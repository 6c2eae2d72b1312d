import { describe, expect, it } from 'vitest';
import { dayOf, usageCutoff } from '../../src/core/state/state-rules.js';

describe('usage days', () => {
  it('are UTC calendar days, also when consecutive calls jump between days', () => {
    const cases: Array<[string, string]> = [
      ['2026-11-22T00:00:00.000Z', '2026-11-22'],
      ['2026-11-21T23:59:59.999Z', '2026-11-21'],
      ['2026-11-22T23:59:59.999Z', '2026-11-22'],
      ['2026-11-23T00:00:00.000Z', '2026-11-23'],
      ['2026-11-22T12:00:00.000Z', '2026-11-22'],
      ['1999-12-31T12:00:00.000Z', '1999-12-31'],
      ['2026-11-22T12:00:01.000Z', '2026-11-22'],
    ];
    for (const [at, day] of cases) expect(dayOf(new Date(at))).toBe(day);
  });

  it('the cut-off of "the last N days" includes today', () => {
    expect(usageCutoff(new Date('2026-11-22T08:00:00Z'), 1)).toBe('2026-11-22');
    expect(usageCutoff(new Date('2026-11-22T08:00:00Z'), 30)).toBe('2026-10-24');
  });
});
