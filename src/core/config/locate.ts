import { findNodeAtLocation, parse, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { pathSegments, type ConfigProblem } from './problems.js';

/**
 * Line and column for problems, from the file's text (jsonc-parser keeps offsets, which JSON.parse does not):
 * a problem about a key points at the key, one about a value at the value, so an editor or a pull-request
 * annotation lands on the right line.
 */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i += 1) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

export function locateProblems<T extends ConfigProblem>(text: string, problems: T[]): T[] {
  const root = parseTree(text);
  if (!root) return problems;
  return problems.map((problem) => {
    if (problem.line !== undefined) return problem;
    const segments = pathSegments(problem.path);
    // The deepest part of the path the file has: a missing key is reported where its object is.
    for (let length = segments.length; length >= 0; length -= 1) {
      const node = findNodeAtLocation(root, segments.slice(0, length));
      if (!node) continue;
      const at =
        length > 0 && typeof segments[length - 1] === 'string' && node.parent?.type === 'property'
          ? node.parent.children![0]!.offset
          : node.offset;
      return { ...problem, ...positionOf(text, at) };
    }
    return problem;
  });
}

const SYNTAX_WORDS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'this is not a valid number',
  PropertyNameExpected: 'a key in double quotes was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: 'a ":" was expected after the key',
  CommaExpected: 'a "," was expected between entries',
  CloseBraceExpected: 'a "}" was expected',
  CloseBracketExpected: 'a "]" was expected',
  EndOfFileExpected: 'there is text after the end of the JSON',
  InvalidCommentToken: 'JSON has no comments',
  UnexpectedEndOfComment: 'a comment is not closed',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfNumber: 'a number is cut off',
  InvalidUnicode: 'an invalid \\u escape',
  InvalidEscapeCharacter: 'an invalid escape (\\) in a string',
  InvalidCharacter: 'a character that must be escaped in a string',
};

/** The first syntax error of a JSON text, in words, at its line and column (JSON.parse gives an offset). */
export function jsonSyntaxProblems(text: string, file: string): ConfigProblem[] {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors.length === 0) errors.push({ error: 3 /* ValueExpected */, offset: 0, length: 0 });
  // After the first mistake the parser's further complaints are mostly its echoes: the first one is the one to fix.
  return errors.slice(0, 1).map((error) => {
    const code = printParseErrorCode(error.error);
    return {
      file,
      path: '$',
      message: `not valid JSON: ${SYNTAX_WORDS[code] ?? code}`,
      hint: 'fix the JSON syntax at that line and column',
      ...positionOf(text, error.offset),
    };
  });
}
