import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkVariableValues } from '../../src/core/config/url-template.js';
import { compileSafePattern, safePatternProblem } from '../../src/core/shared/safe-pattern.js';
import { compileStructure, validateTransform } from '../../src/core/extract/engine/index.js';
import { parseConfigText } from '../../src/core/registry/load.js';
import type { ApiConfig } from '../../src/core/config/schema.js';

/**
 * Issue 40, item 1: patterns from configs never backtrack. `([a-z0-9]+-?)+`, a common slug pattern that
 * `validate` accepted, took 15 s on 31 characters (hours on 40) on the daemon's main thread with JavaScript's
 * engine. Each attack is replayed; the test's own timeout is the bound.
 */
const SLUG = '([a-z0-9]+-?)+';
const HOSTILE = `${'a'.repeat(40)}!`;

const slugConfig = { url: 'https://shop.example/p/{{ slug }}', variables: { slug: { example: 'abc', pattern: SLUG } } };

function config(extra: Record<string, unknown>): string {
  return JSON.stringify({
    apiId: 'x',
    url: 'https://shop.example/p/{{ slug }}',
    variables: { slug: { example: 'abc' } },
    structure: [{ name: 'title', type: 'string', selector: 'h1' }],
    ...extra,
  });
}

function problemsOf(text: string): Array<{ path: string; message: string; hint?: string }> {
  const result = parseConfigText(text, 'configs/x.json');
  return result.ok ? [] : result.problems.map(({ path, message, hint }) => ({ path, message, ...(hint ? { hint } : {}) }));
}

describe('variable patterns run in linear time', () => {
  it('answers the slug pattern on a 40-character hostile value at once, as a bad value', { timeout: 10_000 }, () => {
    expect(checkVariableValues(slugConfig, { slug: HOSTILE })).toEqual([
      { code: 'VARIABLE_PATTERN', name: 'slug', message: `variable slug does not match ${SLUG}` },
    ]);
    // Values past 1,024 characters are refused before the pattern; up to there the pattern runs.
    expect(checkVariableValues(slugConfig, { slug: `${'ab-'.repeat(341)}!` })).toHaveLength(1);
    expect(checkVariableValues(slugConfig, { slug: 'summer-sale-2024' })).toEqual([]);
  });

  it('keeps the meaning of patterns configs use: whole-value match, Unicode, JavaScript escapes', () => {
    const matches = (pattern: string, value: string) => compileSafePattern(pattern, 'variable').matchesWhole(value);
    expect(matches('[0-9]+', '12')).toBe(true);
    expect(matches('[0-9]+', '12a')).toBe(false);
    expect(matches('^[a-z]{1,10}$', 'hello')).toBe(true);
    expect(matches('a|b', 'b')).toBe(true);
    expect(matches('a|b', 'ab')).toBe(false);
    expect(matches('caf\\u00e9', 'café')).toBe(true);
    expect(matches('\\p{L}+', 'Ελλάδα')).toBe(true);
    expect(matches('.', '😀')).toBe(true);
    expect(matches('[A-Z0-9-]{1,32}', 'AP-1001')).toBe(true);
  });
});

describe('regex transforms run in linear time', () => {
  it('extracts nothing from a hostile text at once, where the backtracking engine would run for hours', { timeout: 10_000 }, () => {
    const structure = compileStructure({
      structure: [{ name: 'slug', type: 'string', selector: 'h1', transform: ['regex:^((?:[a-z0-9]+-?)+)$'] }],
    });
    expect(structure.extract(`<h1>${HOSTILE}</h1>`, 'https://shop.example/').data).toEqual({ slug: null });
    expect(structure.extract('<h1>summer-sale</h1>', 'https://shop.example/').data).toEqual({ slug: 'summer-sale' });
  });

  it('keeps the transforms configs and the heuristic model write working', () => {
    const cases: Array<[string, string, unknown]> = [
      ['regex:star-rating (\\w+)', 'star-rating Three', 'Three'],
      ['regex:\\((\\d+) available\\)', 'In stock (22 available)', '22'],
      ['regex:showing \\d+ to (\\d+)', 'showing 1 to 20 of 1000', '20'],
      ['regex:^([\\d,]+)', '1,234 results', '1,234'],
      ['regex:(\\d\\d/\\d\\d/\\d{4})', 'on 03/04/2024 at noon', '03/04/2024'],
      ['regex:^(?:Price:)?\\s*(.+)$', 'Price: £51.77', '£51.77'],
      ['regex:(€)', '12 €', '€'],
      ['regex:a\\/(\\d+)', 'a/42', '42'],
      ['regex:(?<n>\\d+)', 'x7', '7'],
    ];
    for (const [transform, text, value] of cases) {
      expect(validateTransform(transform)).toBeNull();
      expect(compileSafePattern(transform.slice('regex:'.length), 'transform').firstGroup(text)).toBe(value);
    }
    // JSON in a script, as `regex:` cuts it out before `json:` reads it.
    expect(compileSafePattern('__STATE__ = (\\{[\\s\\S]*\\});', 'transform').firstGroup('window.__STATE__ = {"a":\n1};')).toBe('{"a":\n1}');
  });
});

describe('validate refuses what cannot run in linear time, saying why and what to write instead', () => {
  it('refuses lookarounds and backreferences in variable patterns and transforms', () => {
    expect(problemsOf(config({ variables: { slug: { example: 'abc', pattern: '(?!admin)[a-z]+' } } }))).toEqual([
      {
        path: '$.variables.slug.pattern',
        message: 'pattern cannot run in linear time: (?!…) is a lookahead; match the text itself (a capture group takes the part you want)',
        hint: 'patterns run on RE2, a linear-time engine, so that no text can make them slow (syntax: github.com/google/re2/wiki/Syntax)',
      },
    ]);
    const transform = (t: string) =>
      problemsOf(config({ structure: [{ name: 'title', type: 'string', selector: 'h1', transform: [t] }] }))[0]?.message;
    expect(transform('regex:(\\w)\\1')).toBe(
      'transform "regex:(\\w)\\1" is invalid: the regex cannot run in linear time: \\1 is a backreference; capture the text once, or repeat the group\'s pattern instead',
    );
    expect(transform('regex:(?<=\\$)(\\d+)')).toMatch(/\(\?<=…\) is a lookbehind/);
    expect(transform('regex:(?<q>["\'])(.*)\\k<q>')).toMatch(/\\k<name> is a backreference/);
    // Inside a class or escaped, the same characters are ordinary.
    expect(transform('regex:[(?=](\\d+)')).toBeUndefined();
  });

  it('refuses patterns too large for the engine, too long, or not JavaScript (clients read them as JSON Schema)', () => {
    expect(safePatternProblem('(?:(?:.*a){30}){30}', 'variable')?.message).toBe(
      'is too large for the linear-time engine (2702 steps, at most 500)',
    );
    expect(safePatternProblem('[a-z]{1,200}', 'variable')).toBeNull();
    expect(safePatternProblem('a'.repeat(1_001), 'variable')?.message).toBe('is 1001 characters long, more than 1000');
    expect(safePatternProblem('(?i)abc', 'variable')?.message).toMatch(/^does not compile: Invalid regular expression/);
    expect(problemsOf(config({ variables: { slug: { example: 'abc', pattern: '(unclosed' } } }))[0]?.message).toMatch(
      /^pattern does not compile: Invalid regular expression/,
    );
  });

  it(
    "checks a monitor's variable sets against the slug pattern at once (validate, list and the daemon load them)",
    { timeout: 10_000 },
    () => {
      const problems = problemsOf(
        config({ variables: { slug: { example: 'abc', pattern: SLUG } }, monitor: { every: '1h', variables: [{ slug: HOSTILE }] } }),
      );
      expect(problems).toEqual([
        {
          path: '$.monitor.variables[0]',
          message: `variable slug does not match ${SLUG}`,
          hint: 'give each variable set values its variables accept',
        },
      ]);
    },
  );

  it('accepts every config shipped with pagejson', async () => {
    const dir = join(import.meta.dirname, '../../configs');
    for (const name of (await readdir(dir)).filter((file) => file.endsWith('.json') && !file.endsWith('.schema.json'))) {
      const result = parseConfigText(await readFile(join(dir, name), 'utf8'), join(dir, name));
      expect(result.ok ? [] : result.problems).toEqual([]);
      const variables = Object.values((result as { config: ApiConfig }).config.variables);
      for (const variable of variables)
        if (variable.pattern !== undefined && variable.example !== undefined)
          expect(compileSafePattern(variable.pattern, 'variable').matchesWhole(variable.example)).toBe(true);
    }
  });
});
