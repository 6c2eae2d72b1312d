import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';

/**
 * Every regular expression a config supplies (variable patterns, `regex:` transforms) runs on RE2 (re2js, a
 * pure-JS port): matching time is linear in the text, whatever the pattern. JavaScript's backtracking engine
 * took 15 s for `([a-z0-9]+-?)+` on 31 characters, on the daemon's main thread (docs/security.md, "Patterns
 * from configs"). A pattern must also compile as a JavaScript RegExp (with `u` for variables), because it is
 * published as a JSON Schema `pattern` to OpenAPI and MCP clients.
 */
export type PatternUse = 'variable' | 'transform';

/** Longer patterns are refused: no real variable or transform needs more, and compiling one is bounded. */
export const MAX_PATTERN_LENGTH = 1_000;
/**
 * RE2 program size (instructions) past which a pattern is refused. Below it re2js answers a 1,024-character
 * value in microseconds; above it a small pattern such as `(?:(?:.*a){30}){30}` (2,702 instructions) falls
 * back to the NFA and took 340 ms per value.
 */
export const MAX_PATTERN_PROGRAM = 500;

export interface SafePattern {
  /** The pattern's capture groups. */
  readonly groups: number;
  /** The whole text matches (a variable value). */
  matchesWhole(text: string): boolean;
  /** The first capture group of the leftmost match, or null (a `regex:` transform). */
  firstGroup(text: string): string | null;
}

/** A pattern refused: `message` completes "the pattern …" (`does not compile: …`); `hint` says what to write instead. */
export class PatternProblem extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'PatternProblem';
  }
}

const LINEAR_HINT =
  'patterns run on RE2, a linear-time engine, so that no text can make them slow (syntax: github.com/google/re2/wiki/Syntax)';

// Compiled once per pattern: variable patterns are matched on every request.
const compiled = new LRUCache<string, SafePattern | PatternProblem>({ max: 4_096 });

/** The compiled pattern; throws a PatternProblem when it is refused. */
export function compileSafePattern(pattern: string, use: PatternUse): SafePattern {
  const key = `${use}:${pattern}`;
  let entry = compiled.get(key);
  if (entry === undefined) compiled.set(key, (entry = compileUncached(pattern, use)));
  if (entry instanceof PatternProblem) throw entry;
  return entry;
}

/** Why a pattern is refused, or null when it is usable. */
export function safePatternProblem(pattern: string, use: PatternUse): PatternProblem | null {
  try {
    compileSafePattern(pattern, use);
    return null;
  } catch (error) {
    if (error instanceof PatternProblem) return error;
    throw error;
  }
}

function compileUncached(pattern: string, use: PatternUse): SafePattern | PatternProblem {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return new PatternProblem(
      `is ${pattern.length} characters long, more than ${MAX_PATTERN_LENGTH}`,
      'shorten it; a pattern says what a value looks like, not every value',
    );
  try {
    // Compiled only, never run: the syntax check clients (JSON Schema, OpenAPI) will apply. Transforms are
    // compiled without `u` (docs/decisions.md: it rejects harmless escapes like `\:`).
    new RegExp(pattern, use === 'variable' ? 'u' : '');
  } catch (error) {
    return new PatternProblem(`does not compile: ${(error as Error).message}`, 'write a JavaScript regular expression');
  }
  // Before RE2 sees it: translateRegExp reads `\k<name>` as the letter k, where JavaScript reads a backreference.
  const unsupported = unsupportedConstruct(pattern);
  if (unsupported) return new PatternProblem(`cannot run in linear time: ${unsupported}`, LINEAR_HINT);
  let re2: RE2JS;
  try {
    // translateRegExp: JavaScript's spellings RE2 writes otherwise (`\u00e9`, `(?<name>`, `[^]`, `\cJ`).
    re2 = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    return new PatternProblem(`cannot run in linear time: ${(error as Error).message}`, LINEAR_HINT);
  }
  if (re2.programSize() > MAX_PATTERN_PROGRAM) {
    return new PatternProblem(
      `is too large for the linear-time engine (${re2.programSize()} steps, at most ${MAX_PATTERN_PROGRAM})`,
      'use fewer or smaller counted repeats: [a-z]+ rather than [a-z]{1,255} (values are at most 1,024 characters anyway)',
    );
  }
  return {
    groups: re2.groupCount(),
    matchesWhole: (text) => re2.testExact(text),
    firstGroup: (text) => {
      const match = re2.exec(text);
      return (match?.[1] as string | undefined) ?? null;
    },
  };
}

/**
 * What RE2 refuses that JavaScript has, in words: lookarounds and backreferences need backtracking (that is
 * what makes them slow), so they cannot be matched in linear time. Escapes and character classes are skipped.
 */
function unsupportedConstruct(pattern: string): string | undefined {
  let inClass = false;
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index]!;
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      if (!inClass && /[1-9]/.test(next))
        return `\\${next} is a backreference; capture the text once, or repeat the group's pattern instead`;
      if (!inClass && next === 'k' && pattern[index + 2] === '<') return "\\k<name> is a backreference; repeat the group's pattern instead";
      index += 1;
    } else if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(' && pattern[index + 1] === '?') {
      const kind = pattern.slice(index + 2, index + 4);
      if (kind.startsWith('=') || kind.startsWith('!'))
        return `(?${kind[0]}…) is a lookahead; match the text itself (a capture group takes the part you want)`;
      if (kind === '<=' || kind === '<!')
        return `(?${kind}…) is a lookbehind; match the text itself (a capture group takes the part you want)`;
    }
  }
  return undefined;
}
