import type { ApiConfig } from '../config/index.js';
import { checkVariableValues } from '../config/index.js';
import { PagejsonError } from '../shared/index.js';
import { sitemapUrls, type TextFetcher } from './sitemap.js';
import type { JobItem, JobSource } from './types.js';
import { matchUrl } from './url-match.js';

/**
 * A job's source made into its items, one per input, in order (docs/jobs.md): a variable set is checked as a
 * request's variables are; a URL is read against the endpoint's template. An input that cannot run is kept as
 * an item with the reason it is skipped, so that it still ends in a line of the results.
 */
export interface SourceDeps {
  /** A sitemap's bytes as text (gzip unpacked), bounded in time and size. */
  fetchText: TextFetcher;
  /** Another endpoint's answer (`from`), as the job's key may read it. */
  answerOf(apiId: string): Promise<Record<string, unknown>>;
}

export interface ExpandOptions {
  /** At most this many inputs are taken (the rest are not part of the job). */
  limit?: number;
  maxInputs: number;
}

function tooMany(count: number, max: number): PagejsonError {
  return new PagejsonError('USAGE', `the job has ${count} inputs, more than jobs.maxInputs (${max})`, {
    hint: 'split the inputs over several jobs, pass a limit, or raise jobs.maxInputs in pagejson.json',
  });
}

function variableItem(config: ApiConfig, input: Record<string, string>, index: number): JobItem {
  const problems = checkVariableValues(config, input);
  if (problems.length > 0) return { index, input, skip: { code: problems[0]!.code, message: problems[0]!.message } };
  return { index, input, values: input };
}

function urlItem(config: ApiConfig, url: string, index: number, item?: unknown): JobItem {
  const input = { url };
  const found = matchUrl(config, url);
  const base = { index, input, ...(item !== undefined ? { item } : {}) };
  if (!found.ok) return { ...base, skip: { code: 'URL_NOT_MATCHED', message: `${url.slice(0, 300)}: ${found.reason}` } };
  return { ...base, values: found.values };
}

/** `books[].url`: the list (`books`) and, inside each of its items, the URL (`url`). */
function readField(data: Record<string, unknown>, field: string): Array<{ url: unknown; item: unknown }> {
  const parts = field.split('[]');
  if (parts.length !== 2) throw new PagejsonError('USAGE', `field ${field} names no list: write it as list[].url, e.g. books[].url`);
  const walk = (value: unknown, path: string): unknown =>
    path
      .split('.')
      .filter((name) => name !== '')
      .reduce<unknown>(
        (current, name) =>
          typeof current === 'object' && current !== null && Object.hasOwn(current, name)
            ? (current as Record<string, unknown>)[name]
            : undefined,
        value,
      );
  const list = walk(data, parts[0]!);
  if (!Array.isArray(list)) throw new PagejsonError('USAGE', `field ${parts[0]} of the answer is not a list`);
  return list.map((item) => ({ url: parts[1] === '' ? item : walk(item, parts[1]!), item }));
}

async function urlsOf(source: JobSource, deps: SourceDeps): Promise<Array<{ url: string; item?: unknown }>> {
  if (source.kind === 'urls') return source.urls.map((url) => ({ url }));
  if (source.kind === 'sitemap') {
    const urls = await sitemapUrls(source.sitemap, deps.fetchText, { include: source.include ?? [], exclude: source.exclude ?? [] });
    return urls.map((url) => ({ url }));
  }
  if (source.kind !== 'from') return [];
  const data = await deps.answerOf(source.from.apiId);
  return readField(data, source.from.field).map(({ url, item }) => ({ url: typeof url === 'string' ? url : '', item }));
}

/** The items of a job over `config` from `source`: every input, run or skipped with its reason. */
export async function expandSource(config: ApiConfig, source: JobSource, deps: SourceDeps, options: ExpandOptions): Promise<JobItem[]> {
  const cut = <T>(list: T[]): T[] => (options.limit !== undefined ? list.slice(0, options.limit) : list);
  if (source.kind === 'inputs') {
    const inputs = cut(source.inputs);
    if (inputs.length > options.maxInputs) throw tooMany(inputs.length, options.maxInputs);
    return inputs.map((input, index) => variableItem(config, input, index));
  }
  const urls = cut(await urlsOf(source, deps));
  if (urls.length > options.maxInputs) throw tooMany(urls.length, options.maxInputs);
  return urls.map(({ url, item }, index) => urlItem(config, url, index, item));
}
