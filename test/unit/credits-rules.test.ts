import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generationCost, retrievalCost } from '../../src/core/access/credits.js';
import { formatCredits, fromMilli, toMilli } from '../../src/core/shared/credit-amounts.js';

describe('credit rules (docs/wire.md, credits)', () => {
  it('charges 0.4 / 0.5 per retrieval and 0.25 / 0.35 per generation, more only when the scraper renders JS', () => {
    expect([retrievalCost(1), retrievalCost(2), retrievalCost(3)]).toEqual([400, 400, 500]);
    expect([generationCost(1), generationCost(2), generationCost(3)]).toEqual([250, 250, 350]);
  });

  it('converts between credits and integer milli-credits exactly', () => {
    expect(toMilli(100)).toBe(100_000);
    expect(toMilli(0.35)).toBe(350);
    expect(toMilli(0.1 + 0.2)).toBe(300);
    expect(fromMilli(99_600)).toBe(99.6);
    expect(formatCredits(400)).toBe('0.4');
    expect(formatCredits(250)).toBe('0.25');
    expect(formatCredits(100_000)).toBe('100');
    expect(formatCredits(0)).toBe('0');
    // 250 retrievals at 0.4 from 100 credits leave exactly 0, with no float drift.
    let balance = toMilli(100);
    for (let i = 0; i < 250; i++) balance -= retrievalCost(1);
    expect(formatCredits(balance)).toBe('0');
  });

  it('prints whole milli-credits as the decimal the float division would print, signs and trailing zeros included', () => {
    expect([
      formatCredits(99_600),
      formatCredits(1),
      formatCredits(10),
      formatCredits(-400),
      formatCredits(-1_250),
      formatCredits(123_456_789),
    ]).toEqual(['99.6', '0.001', '0.01', '-0.4', '-1.25', '123456.789']);
    // Up to 10^15 milli-credits (15 significant digits, so the float's shortest decimal is the exact one).
    fc.assert(
      fc.property(fc.integer({ min: -(10 ** 15), max: 10 ** 15 }), (milli) => formatCredits(milli) === String(milli / 1000)),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: -100_000, max: 100_000 }), (milli) => formatCredits(milli) === String(milli / 1000)),
      { numRuns: 20_000 },
    );
    // Not whole milli-credits: as before.
    expect(formatCredits(0.5)).toBe('0.0005');
  });
});
