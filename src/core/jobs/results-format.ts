import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ResultLine } from './types.js';

/**
 * A job's results file as its reader asks for it (docs/jobs.md): NDJSON as kept, a JSON array, or CSV with one
 * column per field (nested objects flattened to `data.a.b`, lists as JSON text). Read line by line, never
 * whole: CSV reads the file twice, once for its columns. `errorsOnly` keeps the lines that did not give data.
 */
export type ResultsFormat = 'ndjson' | 'json' | 'csv';

/** A job's lines as text, from the start each time it is called (CSV reads them twice). */
export type ResultTexts = () => AsyncIterable<string>;

/** A results file's lines, read as they are on disk. */
export function fileTexts(path: string): ResultTexts {
  return async function* () {
    const reader = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    try {
      yield* reader;
    } finally {
      reader.close();
    }
  };
}

async function* lines(texts: ResultTexts, errorsOnly: boolean): AsyncGenerator<{ text: string; line: ResultLine }> {
  for await (const text of texts()) {
    if (text === '') continue;
    let line: ResultLine;
    try {
      line = JSON.parse(text) as ResultLine;
    } catch {
      // The last line of a running job, read while it was being written: it comes whole next time.
      continue;
    }
    if (errorsOnly && line.outcome === 'data') continue;
    yield { text, line };
  }
}

/** The line as flat columns: `[name, value]` pairs in a Map (names come from outside: never object keys). */
function flatten(line: ResultLine): Map<string, string> {
  const out = new Map<string, string>();
  const put = (prefix: string, value: unknown): void => {
    if (value === null || value === undefined) out.set(prefix, '');
    else if (Array.isArray(value)) out.set(prefix, JSON.stringify(value));
    else if (typeof value === 'object') for (const [key, inner] of Object.entries(value)) put(`${prefix}.${key}`, inner);
    else out.set(prefix, String(value));
  };
  out.set('index', String(line.index));
  out.set('outcome', line.outcome);
  put('input', line.input);
  if (line.data) put('data', line.data);
  out.set('error', line.errors ? line.errors.map((error) => `${error.code}: ${error.message}`).join('; ') : '');
  out.set('health', line.health ?? '');
  out.set('fetchedAt', line.fetchedAt ?? '');
  if (line.item !== undefined) put('item', line.item);
  return out;
}

function csvField(value: string): string {
  // A leading =, +, - or @ would be a formula to a spreadsheet: quoted with a ' before it (OWASP, CSV injection).
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Columns in a fixed order whatever order the lines ended in: index, outcome, the input's, the data's, the rest. */
const GROUPS = ['index', 'outcome', 'input', 'data', 'error', 'health', 'fetchedAt', 'item'];

async function* csv(path: ResultTexts, errorsOnly: boolean): AsyncGenerator<string> {
  const groups = new Map(GROUPS.map((group) => [group, new Set<string>()]));
  for await (const { line } of lines(path, errorsOnly)) for (const name of flatten(line).keys()) groups.get(name.split('.')[0]!)?.add(name);
  const names = [...groups.values()].flatMap((set) => [...set]);
  yield `${names.map(csvField).join(',')}\n`;
  for await (const { line } of lines(path, errorsOnly)) {
    const flat = flatten(line);
    yield `${names.map((name) => csvField(flat.get(name) ?? '')).join(',')}\n`;
  }
}

async function* json(path: ResultTexts, errorsOnly: boolean): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const { text } of lines(path, errorsOnly)) {
    yield first ? `\n${text}` : `,\n${text}`;
    first = false;
  }
  yield '\n]\n';
}

async function* ndjson(path: ResultTexts, errorsOnly: boolean): AsyncGenerator<string> {
  for await (const { text } of lines(path, errorsOnly)) yield `${text}\n`;
}

/** A job's results as asked for: from a results file (its path) or from the queue's own lines. */
export function resultsAs(
  source: string | ResultTexts,
  format: ResultsFormat,
  options: { errorsOnly?: boolean } = {},
): AsyncGenerator<string> {
  const errorsOnly = options.errorsOnly === true;
  const path = typeof source === 'string' ? fileTexts(source) : source;
  if (format === 'csv') return csv(path, errorsOnly);
  if (format === 'json') return json(path, errorsOnly);
  return ndjson(path, errorsOnly);
}

/**
 * One page of a job's lines, for readers that take an answer whole (MCP): from the `offset`-th line (of those
 * kept), at most `limit` lines and about `maxBytes` of text (always one line at least); `next` is the offset to
 * ask for after it, null when the lines so far are all read.
 */
export async function resultsPage(
  texts: ResultTexts,
  options: { offset: number; limit: number; maxBytes: number; errorsOnly?: boolean },
): Promise<{ lines: ResultLine[]; next: number | null }> {
  const page: ResultLine[] = [];
  let seen = 0;
  let bytes = 0;
  for await (const { text, line } of lines(texts, options.errorsOnly === true)) {
    if (seen++ < options.offset) continue;
    if (page.length >= options.limit || (page.length > 0 && bytes + text.length > options.maxBytes)) return { lines: page, next: seen - 1 };
    page.push(line);
    bytes += text.length;
  }
  return { lines: page, next: null };
}

/** Why a job's inputs did not give data, by reason: how many lines had each code, and the first one's words. */
export interface JobReason {
  code: string;
  outcome: 'error' | 'skipped';
  count: number;
  message: string;
}

/** A job's lines read once, tallied by their first error's code; most frequent first. */
export async function reasonsOf(texts: ResultTexts): Promise<JobReason[]> {
  // Codes come from the lines: a Map, never an object's keys.
  const byCode = new Map<string, JobReason>();
  for await (const { line } of lines(texts, true)) {
    const first = line.errors?.[0];
    if (!first || line.outcome === 'data') continue;
    const key = `${line.outcome} ${first.code}`;
    const known = byCode.get(key);
    if (known) known.count += 1;
    else byCode.set(key, { code: first.code, outcome: line.outcome, count: 1, message: first.message.slice(0, 500) });
  }
  return [...byCode.values()].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}
