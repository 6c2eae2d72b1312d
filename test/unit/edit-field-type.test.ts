import { describe, expect, it } from 'vitest';
import { suggestedType } from '../../src/cli/prompts/edit-fields.js';
import { isCleanAmount } from '../../src/core/extract/engine/index.js';

/** The add-field screen's type suggestion follows the values a selector matches (issue 36 item 5). */
describe('the type suggested when adding a field', () => {
  it('is a number only when every value is a clean number, a price with its currency included', () => {
    expect(suggestedType({ values: ['12', '1,379', '4.5'] }, '')).toBe('number');
    expect(suggestedType({ values: ['£51.77', '1.234,50 €', 'USD 12'] }, '')).toBe('number');
    expect(suggestedType({ values: ['85%'] }, '')).toBe('number');
  });

  it('is a string for names holding a number, padded codes, ranges and mixed values', () => {
    expect(suggestedType({ values: ['Model 1250 Pro', '1250'] }, '')).toBe('string');
    expect(suggestedType({ values: ['1250 Watt kettle'] }, '')).toBe('string');
    expect(suggestedType({ values: ['007', '012'] }, '')).toBe('string');
    expect(suggestedType({ values: ['€80k – €95k'] }, '')).toBe('string');
    expect(suggestedType({ values: ['3 reviews'] }, '')).toBe('string');
    expect(suggestedType({ values: [] }, '')).toBe('string');
  });

  it('follows the attribute for links and dates', () => {
    expect(suggestedType({ values: ['12'] }, 'href')).toBe('url');
    expect(suggestedType({ values: ['2024-01-02'] }, 'datetime')).toBe('date');
  });

  it('reads currency codes only as codes, not as the start of a word', () => {
    expect(isCleanAmount('EUR 110.00')).toBe(true);
    expect(isCleanAmount('Eur 110')).toBe(false);
    expect(isCleanAmount('ABCD 12')).toBe(false);
  });
});
