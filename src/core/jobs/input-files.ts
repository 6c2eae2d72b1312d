import { PagejsonError } from '../shared/index.js';

/**
 * The text of an inputs file (`--inputs FILE`): a JSON array of variable sets, JSON Lines (one set a line) or
 * CSV (a header row naming the variables, one column each). Keys come from outside: objects are made with
 * Object.fromEntries, so a column named `__proto__` is a key like any other, never the object's prototype.
 */
export type InputsFormat = 'json' | 'jsonl' | 'csv';

export function inputsFormatOf(path: string): InputsFormat | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  if (lower.endsWith('.csv')) return 'csv';
  return undefined;
}

function badInputs(message: string): PagejsonError {
  return new PagejsonError('USAGE', message, {
    hint: 'write the inputs as a JSON array of objects, JSON Lines (one object a line) or CSV with one column per variable',
  });
}

/** A variable set from a parsed value: an object whose values are kept as strings (numbers and booleans written as text). */
function asVariableSet(value: unknown, where: string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badInputs(`${where} is not an object of variables`);
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => {
      if (typeof item === 'string') return [name, item];
      if (typeof item === 'number' || typeof item === 'boolean') return [name, String(item)];
      throw badInputs(`${where}: variable ${JSON.stringify(name).slice(0, 80)} is not a string`);
    }),
  );
}

function parseJsonText(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badInputs(`${where} is not JSON`);
  }
}

/** The fields of CSV text (RFC 4180: quoted fields, doubled quotes, CRLF or LF). */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  const endRow = () => {
    endField();
    if (row.length > 1 || row[0] !== '') rows.push(row);
    row = [];
  };
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else quoted = false;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') endField();
    else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[index + 1] === '\n') index += 1;
      endRow();
    } else field += char;
  }
  endRow();
  return rows;
}

function parseCsv(text: string): Record<string, string>[] {
  const [header, ...rows] = csvRows(text.replace(/^\uFEFF/, ''));
  if (!header) return [];
  return rows.map((row, index) => {
    if (row.length !== header.length) throw badInputs(`CSV line ${index + 2} has ${row.length} fields, the header ${header.length}`);
    return Object.fromEntries(header.map((name, column) => [name.trim(), row[column]!]));
  });
}

/** The variable sets of an inputs file's text; at most `maxInputs` of them. */
export function parseInputs(text: string, format: InputsFormat, maxInputs: number): Record<string, string>[] {
  let sets: Record<string, string>[];
  if (format === 'csv') sets = parseCsv(text);
  else if (format === 'jsonl')
    sets = text
      .split('\n')
      .map((line, index) => ({ line: line.trim(), index }))
      .filter((entry) => entry.line !== '')
      .map((entry) => asVariableSet(parseJsonText(entry.line, `line ${entry.index + 1}`), `line ${entry.index + 1}`));
  else {
    const parsed = parseJsonText(text, 'the file');
    if (!Array.isArray(parsed)) throw badInputs('the file is not a JSON array');
    sets = parsed.map((value, index) => asVariableSet(value, `item ${index}`));
  }
  if (sets.length > maxInputs) throw badInputs(`${sets.length} inputs, more than jobs.maxInputs (${maxInputs})`);
  return sets;
}

/** A URLs file: one URL a line (blank lines and `#` comments left out). */
export function parseUrlList(text: string, maxInputs: number): string[] {
  const urls = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (urls.length > maxInputs) throw badInputs(`${urls.length} URLs, more than jobs.maxInputs (${maxInputs})`);
  return urls;
}
