import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkVariableValues, resolveSourceUrl } from '../../src/core/config/url-template.js';

/**
 * Variables from callers are hostile: whatever their number in a segment and whatever their text, a value
 * never makes a path climb out of the segment it stands in (hardening, issue 16).
 */
const twoInOneSegment = {
  url: 'https://files.example/static/docs/{{ name }}.{{ ext }}?v={{ v }}',
  variables: { name: { example: 'readme' }, ext: { example: 'txt' }, v: { example: '1' } },
};

const codes = (values: Record<string, unknown>) =>
  checkVariableValues(twoInOneSegment, values).map((problem) => `${problem.code} ${problem.name}`);

describe('variables cannot climb out of their segment', () => {
  it('refuses two variables that make ".." together, as reported (name "." and ext "")', () => {
    expect(codes({ name: '.', ext: '', v: '1' })).toEqual(['VARIABLE_PATTERN name']);
    expect(checkVariableValues(twoInOneSegment, { name: '.', ext: '', v: '1' })[0]!.message).toBe(
      'variable name does not match a path segment other than "", "." or ".."',
    );
    // Alone, each value is harmless: "x." and ".txt" are ordinary file names.
    expect(codes({ name: 'x', ext: '', v: '1' })).toEqual([]);
    expect(codes({ name: '', ext: 'txt', v: '1' })).toEqual([]);
    expect(codes({ name: '', ext: '', v: '1' })).toEqual(['VARIABLE_PATTERN name']);
  });

  it('refuses separators in a path value, which would be sent encoded (%2F, %5C)', () => {
    expect(codes({ name: '../../etc/passwd', ext: 'txt', v: '1' })).toEqual(['VARIABLE_PATTERN name']);
    expect(codes({ name: 'a', ext: 'b\\..\\c', v: '1' })).toEqual(['VARIABLE_PATTERN ext']);
    expect(codes({ name: 'a', ext: 'b', v: '../..' })).toEqual([]);
  });

  it('treats a lone surrogate as a bad value (400), not an exception (500)', () => {
    expect(() => checkVariableValues(twoInOneSegment, { name: '\ud800', ext: 'x', v: '1' })).not.toThrow();
    expect(codes({ name: '\ud800', ext: 'x', v: '1' })).toEqual(['VARIABLE_PATTERN name']);
    expect(codes({ name: 'ok', ext: 'x', v: 'a\udc00b' })).toEqual(['VARIABLE_PATTERN v']);
    expect(checkVariableValues(twoInOneSegment, { name: '\ud800', ext: 'x', v: '1' })[0]!.message).toBe(
      'variable name does not match well-formed Unicode text',
    );
    // A proper pair is fine.
    expect(codes({ name: '😀', ext: 'x', v: '1' })).toEqual([]);
  });

  it('looks up only declared variables: a "constructor" placeholder finds no pattern on Object.prototype', () => {
    const config = {
      url: 'https://a.example/{{ constructor }}',
      variables: Object.assign(Object.create(null) as Record<string, { example: string }>, { constructor: { example: 'x' } }),
    };
    expect(checkVariableValues(config, { constructor: 'fine' })).toEqual([]);
    expect(checkVariableValues(config, { constructor: '..' })[0]!.code).toBe('VARIABLE_PATTERN');
  });

  // Characters that matter to URL parsers: dots, separators, percent signs and hex digits (for %2e), ? and #.
  const dangerous = fc.string({
    unit: fc.constantFrom('.', '/', '\\', '%', '2', 'e', 'E', 'f', 'F', '5', 'c', 'a', '?', '#', ';', ' ', '\ud800', '\udc00'),
    maxLength: 8,
  });
  const anything = fc.oneof(dangerous, fc.string({ unit: 'binary', maxLength: 12 }));

  it('property: no accepted values yield a URL outside the prefix, for any number of variables per segment', () => {
    const templates = [
      twoInOneSegment,
      {
        url: 'https://files.example/static/{{ a }}{{ b }}{{ c }}/end',
        variables: { a: { example: 'a' }, b: { example: 'b' }, c: { example: 'c' } },
      },
      {
        url: 'https://files.example/static/{{ a }}/{{ b }}-{{ c }}',
        variables: { a: { example: 'a' }, b: { example: 'b' }, c: { example: 'c' } },
      },
    ];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: templates.length - 1 }), anything, anything, anything, (which, x, y, z) => {
        const template = templates[which]!;
        const names = Object.keys(template.variables);
        const values = Object.fromEntries(names.map((name, index) => [name, [x, y, z][index]!]));
        if (checkVariableValues(template, values).length > 0) return;
        const rendered = new URL(resolveSourceUrl(template, values));
        const expected = new URL(resolveSourceUrl(template, Object.fromEntries(names.map((name) => [name, 'x']))));
        expect(rendered.origin).toBe('https://files.example');
        expect(rendered.pathname.startsWith('/static/')).toBe(true);
        // The parser resolved no dot segment: the path has exactly the template's number of segments.
        expect(rendered.pathname.split('/')).toHaveLength(expected.pathname.split('/').length);
        expect(rendered.hash).toBe('');
      }),
      { numRuns: 3000 },
    );
  });
});
