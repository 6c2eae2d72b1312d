import { PagejsonError } from '../../core/shared/errors.js';
import type { JobSource } from '../../core/jobs/types.js';

/**
 * The body of `POST /jobs` (docs/jobs.md), checked field by field: everything in it comes from outside. A
 * mistake is JOB_INVALID with what is wrong; variable sets are made with Object.fromEntries (a `__proto__`
 * variable is a key like any other, and the endpoint's variable check refuses it).
 */
export interface JobBody {
  apiId: string;
  source: JobSource;
  concurrency?: number;
  limit?: number;
  webhook: boolean;
}

const invalid = (message: string) =>
  new PagejsonError('JOB_INVALID', message, {
    hint: 'send {"apiId", one of "inputs" | "urls" | "sitemap" | "from", optional "concurrency", "limit", "webhook"}',
  });

const SOURCES = ['inputs', 'urls', 'sitemap', 'from'] as const;
const MAX_PATTERNS = 100;
const MAX_TEXT = 2_000;

function text(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_TEXT)
    throw invalid(`${name} must be a string of 1 to ${MAX_TEXT} characters`);
  return value;
}

function wholeNumber(value: unknown, name: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max)
    throw invalid(`${name} must be a whole number from 1 to ${max}`);
  return value;
}

function patterns(value: unknown, name: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_PATTERNS) throw invalid(`${name} must be a list of at most ${MAX_PATTERNS} patterns`);
  return value.map((pattern, index) => text(pattern, `${name}[${index}]`));
}

function variableSet(value: unknown, index: number): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`inputs[${index}] must be an object of variables`);
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => {
      if (typeof item !== 'string') throw invalid(`inputs[${index}]: variable ${JSON.stringify(name.slice(0, 80))} must be a string`);
      return [name, item];
    }),
  );
}

function sourceOf(body: Record<string, unknown>, maxInputs: number): JobSource {
  const given = SOURCES.filter((name) => body[name] !== undefined);
  if (given.length !== 1)
    throw invalid(given.length === 0 ? 'the job names no inputs' : `the job takes one input source, not ${given.join(' and ')}`);
  const list = (name: string): unknown[] => {
    const value = body[name];
    if (!Array.isArray(value)) throw invalid(`${name} must be a list`);
    if (value.length > maxInputs) throw invalid(`${value.length} ${name}, more than jobs.maxInputs (${maxInputs})`);
    return value;
  };
  if (given[0] === 'inputs') return { kind: 'inputs', inputs: list('inputs').map(variableSet) };
  if (given[0] === 'urls') return { kind: 'urls', urls: list('urls').map((url, index) => text(url, `urls[${index}]`)) };
  if (given[0] === 'sitemap')
    return {
      kind: 'sitemap',
      sitemap: text(body.sitemap, 'sitemap'),
      include: patterns(body.include, 'include'),
      exclude: patterns(body.exclude, 'exclude'),
    };
  const from = body.from as Record<string, unknown> | null;
  if (typeof from !== 'object' || from === null)
    throw invalid('from must be {"apiId", "field"}, e.g. {"apiId": "catalogue", "field": "books[].url"}');
  return { kind: 'from', from: { apiId: text(from.apiId, 'from.apiId'), field: text(from.field, 'from.field') } };
}

export function parseJobBody(raw: unknown, limits: { maxInputs: number; maxConcurrency: number }): JobBody {
  let body: unknown = raw;
  if (Buffer.isBuffer(raw)) {
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw invalid('the body is not JSON');
    }
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('the body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const concurrency = wholeNumber(fields.concurrency, 'concurrency', limits.maxConcurrency);
  const limit = wholeNumber(fields.limit, 'limit', limits.maxInputs);
  if (fields.webhook !== undefined && typeof fields.webhook !== 'boolean') throw invalid('webhook must be true or false');
  return {
    apiId: text(fields.apiId, 'apiId'),
    source: sourceOf(fields, limits.maxInputs),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(limit !== undefined ? { limit } : {}),
    webhook: fields.webhook === true,
  };
}
