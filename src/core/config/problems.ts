import type { z } from 'zod';

/** One thing wrong with a file: where (file + JSON path), what, and what to do about it. */
export interface ConfigProblem {
  file: string;
  /** JSON path in the file, e.g. `$.structure[1].selector`; `$` for the whole file. */
  path: string;
  message: string;
  hint?: string;
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

export function formatZodIssues(issues: ReadonlyArray<z.core.$ZodIssue>): Array<{ path: string; message: string }> {
  return issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return { path: jsonPath(issue.path), message: `unknown key${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}` };
    }
    return { path: jsonPath(issue.path), message: issue.message };
  });
}
