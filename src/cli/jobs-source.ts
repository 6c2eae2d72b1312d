import { readFile, stat } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { PagejsonError } from '../core/shared/errors.js';
import type { JobSource } from '../core/jobs/types.js';
import { inputsFormatOf, parseInputs, parseUrlList } from '../core/jobs/input-files.js';
import { displayPath } from './config-files.js';

/** The input-source flags `jobs start` and `jobs run` share (docs/jobs.md). */
export interface SourceOptions {
  inputs?: string;
  urls?: string;
  sitemap?: string;
  from?: string;
  include: string[];
  exclude: string[];
}

/** An inputs file is read whole: bounded, so that a wrong file (a disk image) fails at once. */
const MAX_INPUTS_FILE_BYTES = 256 * 1024 * 1024;

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

async function readInputsFile(path: string, cwd: string): Promise<string> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile())
    throw new PagejsonError('USAGE', `no file at ${displayPath(path, cwd)}`, { hint: 'pass the path of a .json, .jsonl or .csv file' });
  if (info.size > MAX_INPUTS_FILE_BYTES)
    throw new PagejsonError('USAGE', `${displayPath(path, cwd)} is larger than 256 MiB`, { hint: 'split the inputs over several jobs' });
  return readFile(path, 'utf8');
}

/** The one input source the flags name; an error that says which flags to use otherwise. */
export async function sourceFromOptions(options: SourceOptions, cwd: string, maxInputs: number): Promise<JobSource> {
  const given = (['inputs', 'urls', 'sitemap', 'from'] as const).filter((name) => options[name] !== undefined);
  if (given.length !== 1)
    throw new PagejsonError(
      'USAGE',
      given.length === 0 ? 'a job needs its inputs' : `a job takes one input source, not ${given.map((name) => `--${name}`).join(' and ')}`,
      {
        hint: 'pass one of --inputs FILE (.json, .jsonl, .csv), --urls FILE, --sitemap URL or --from APIID:FIELD',
      },
    );
  if (options.inputs !== undefined) {
    const format = inputsFormatOf(options.inputs);
    if (!format) throw new PagejsonError('USAGE', `--inputs ${options.inputs}: the file's name must end in .json, .jsonl or .csv`);
    return { kind: 'inputs', inputs: parseInputs(await readInputsFile(options.inputs, cwd), format, maxInputs) };
  }
  if (options.urls !== undefined) return { kind: 'urls', urls: parseUrlList(await readInputsFile(options.urls, cwd), maxInputs) };
  if (options.sitemap !== undefined)
    return { kind: 'sitemap', sitemap: options.sitemap, include: options.include, exclude: options.exclude };
  const [apiId = '', field = ''] = options.from!.split(/:(.*)/s);
  if (apiId === '' || field === '')
    throw new PagejsonError('USAGE', `--from ${options.from}: write the endpoint and its list field, e.g. --from catalogue:books[].url`);
  return { kind: 'from', from: { apiId, field } };
}

export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1) throw new InvalidArgumentError('write a whole number of 1 or more');
  return number;
}

/** The input-source flags of `start` and `run`. */
export function withSourceOptions(command: Command): Command {
  return command
    .option('--inputs <file>', 'variable sets: a .json array, .jsonl or .csv (one column per variable)')
    .option('--urls <file>', 'full URLs, one a line, each read against the endpoint URL template')
    .option('--sitemap <url>', 'a sitemap or sitemap index URL (gzip too)')
    .option('--from <apiId:field>', "another endpoint's list of URLs, e.g. catalogue:books[].url")
    .option('--include <pattern>', 'with --sitemap: keep only URLs matching this (* is any text; repeatable)', collect, [])
    .option('--exclude <pattern>', 'with --sitemap: leave out URLs matching this (repeatable)', collect, [])
    .option('--limit <n>', 'take at most this many inputs', positiveInteger)
    .option('--concurrency <n>', 'items retrieved at once (default: jobs.concurrency)', positiveInteger);
}
