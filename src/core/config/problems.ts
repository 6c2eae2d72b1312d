import type { z } from 'zod';
import { closest, didYouMean } from '../shared/index.js';

/** One thing wrong with a file: where (file + JSON path, and line and column when known), what, and what to do. */
export interface ConfigProblem {
  file: string;
  /** JSON path in the file, e.g. `$.structure[1].selector`; `$` for the whole file. */
  path: string;
  message: string;
  hint?: string;
  /** 1-based position of what the path points at (`validate` fills it in from the file's text). */
  line?: number;
  column?: number;
  /** `warning`: reported, but the file is not invalid for it (`validate --live` findings). Default: error. */
  severity?: 'error' | 'warning';
}

export function jsonPath(segments: ReadonlyArray<PropertyKey>): string {
  let out = '$';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** The segments of a path written by jsonPath: `$.a[2]["b c"]` → ['a', 2, 'b c']. */
export function pathSegments(path: string): Array<string | number> {
  const segments: Array<string | number> = [];
  const pattern = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (const match of path.slice(1).matchAll(pattern)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(JSON.parse(match[3]!) as string);
  }
  return segments;
}

type AnySchema = z.ZodType & { _zod: { def: Record<string, unknown> & { type: string } } };

/** Optional, default, nullable and pipes wrap the schema that says what a value may be. */
function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (let depth = 0; depth < 20; depth += 1) {
    const def = current._zod.def;
    const inner = (def.innerType ?? (def.type === 'pipe' ? def.in : undefined)) as AnySchema | undefined;
    if (!inner) return current;
    current = inner;
  }
  return current;
}

/** The schema of the value at a path, when the schema can say. */
function schemaAt(root: AnySchema, path: ReadonlyArray<PropertyKey>): AnySchema | undefined {
  let current: AnySchema | undefined = root;
  for (const segment of path) {
    if (!current) return undefined;
    const here = unwrap(current);
    const def = here._zod.def;
    if (def.type === 'object') current = (def.shape as Record<string, AnySchema>)[String(segment)];
    else if (def.type === 'array') current = def.element as AnySchema;
    else if (def.type === 'record') current = def.valueType as AnySchema;
    else return undefined;
  }
  return current ? unwrap(current) : undefined;
}

function knownKeys(root: AnySchema | undefined, path: ReadonlyArray<PropertyKey>): string[] {
  const schema = root ? schemaAt(root, path) : undefined;
  return schema && schema._zod.def.type === 'object' ? Object.keys(schema._zod.def.shape as object).filter((key) => key !== '$schema') : [];
}

function valueAt(raw: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current = raw;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}…` : value)}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

const EXPECTED: Record<string, string> = {
  string: 'text (a JSON string)',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list ([…])',
  object: 'an object ({…})',
  record: 'an object ({…})',
};

export interface IssueContext {
  /** The parsed JSON the issues are about: the value each issue points at is quoted in its message. */
  raw?: unknown;
  /** The schema it was checked against: unknown keys are answered with the keys allowed there. */
  schema?: z.ZodType;
}

type IssueOf<Code extends z.core.$ZodIssue['code']> = Extract<z.core.$ZodIssue, { code: Code }>;
type FormattedIssue = { path: string; message: string; hint?: string };

/** One problem per unknown key, each with the nearest allowed key and the keys allowed there. */
function unknownKeyProblems(issue: IssueOf<'unrecognized_keys'>, schema: AnySchema | undefined): FormattedIssue[] {
  const allowed = knownKeys(schema, issue.path);
  return issue.keys.map((key) => ({
    path: jsonPath([...issue.path, key]),
    message: `unknown key "${key}"${didYouMean(key, allowed)}`,
    ...(allowed.length > 0
      ? {
          hint: `${closest(key, allowed) ? `rename it to "${closest(key, allowed)}"` : 'remove it'}; keys allowed here: ${allowed.join(', ')}`,
        }
      : {}),
  }));
}

/** A value matching none of a union's forms: the literals allowed there when the union is of literals. */
function unionProblems(issue: IssueOf<'invalid_union'>, schema: AnySchema | undefined, value: unknown): FormattedIssue[] {
  const literals = (schema ? schemaAt(schema, issue.path) : undefined)?._zod.def.options as AnySchema[] | undefined;
  const values = literals?.flatMap((option) => (option._zod.def.type === 'literal' ? (option._zod.def.values as unknown[]) : [])) ?? [];
  if (values.length > 0)
    return [
      {
        path: jsonPath(issue.path),
        message: `${value === undefined ? 'is required' : `${kindOf(value)} is not allowed here`}: use one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
      },
    ];
  return [{ path: jsonPath(issue.path), message: `${kindOf(value)} does not match any allowed form` }];
}

/**
 * Zod's issues in words a user reads (what is wrong with the value at that path, and the nearest allowed name
 * or value for a typo), one problem per unknown key so each can point at its own line.
 */
export function formatZodIssues(
  issues: ReadonlyArray<z.core.$ZodIssue>,
  context: IssueContext = {},
): Array<{ path: string; message: string; hint?: string }> {
  const schema = context.schema as AnySchema | undefined;
  return issues.flatMap((issue) => {
    const value = valueAt(context.raw, issue.path);
    switch (issue.code) {
      case 'unrecognized_keys':
        return unknownKeyProblems(issue, schema);
      case 'invalid_value': {
        const options = issue.values.map((option) => String(option));
        const written = value === undefined ? undefined : String(value);
        return [
          {
            path: jsonPath(issue.path),
            message: `${value === undefined ? 'is required' : `${kindOf(value)} is not allowed here`}: use one of ${options.join(', ')}${written !== undefined ? didYouMean(written, options) : ''}`,
          },
        ];
      }
      case 'invalid_type': {
        const expected = EXPECTED[issue.expected] ?? issue.expected;
        if (value === undefined) return [{ path: jsonPath(issue.path), message: `is required: write ${expected}` }];
        return [{ path: jsonPath(issue.path), message: `must be ${expected}, not ${kindOf(value)}` }];
      }
      case 'invalid_union':
        return unionProblems(issue, schema, value);
      case 'too_small': {
        const min = Number(issue.minimum);
        const message =
          issue.origin === 'array'
            ? `needs at least ${min} item${min === 1 ? '' : 's'}`
            : issue.origin === 'string'
              ? min <= 1
                ? 'must not be empty'
                : `needs at least ${min} characters`
              : `must be ${issue.inclusive ? 'at least' : 'more than'} ${min}`;
        return [{ path: jsonPath(issue.path), message }];
      }
      case 'too_big': {
        const max = Number(issue.maximum);
        const message =
          issue.origin === 'array'
            ? `has more than ${max} items`
            : issue.origin === 'string'
              ? `is longer than ${max} characters`
              : `must be ${issue.inclusive ? 'at most' : 'less than'} ${max}`;
        return [{ path: jsonPath(issue.path), message }];
      }
      default:
        // Our own messages (regex patterns, refinements) are already words; zod's generic ones start with "Invalid".
        return [
          {
            path: jsonPath(issue.path),
            message: issue.message.startsWith('Invalid')
              ? `${kindOf(value)} is not valid here (${issue.message.toLowerCase()})`
              : issue.message,
          },
        ];
    }
  });
}
