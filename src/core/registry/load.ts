import type { Stats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  ApiConfigSchema,
  formatZodIssues,
  jsonSyntaxProblems,
  locateProblems,
  type ApiConfig,
  type ConfigProblem,
} from '../config/index.js';
import { describeRefusal, readChecked, readCheckedSync, type Refusal } from '../shared/index.js';
import { checkConfigRules } from './validate.js';

export type ConfigLoadResult = { ok: true; config: ApiConfig; file: string } | { ok: false; file: string; problems: ConfigProblem[] };

/** Parse and validate one config from its text. `file` names it in problems; its stem must equal the apiId. */
export function parseConfigText(text: string, file: string): ConfigLoadResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, file, problems: jsonSyntaxProblems(text, file) };
  }
  const parsed = ApiConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems: ConfigProblem[] = formatZodIssues(parsed.error.issues, { raw, schema: ApiConfigSchema }).map((p) => ({
      file,
      hint: 'see configs/pagejson.config.schema.json for the format',
      ...p,
    }));
    // Every problem at once: the file's rules (selectors, placeholders…) are checked too, on the file less
    // the values the schema refused, so fixing one round does not reveal another.
    const rest = ApiConfigSchema.safeParse(withoutIssues(raw, parsed.error.issues));
    if (rest.success) {
      const reported = new Set(problems.map((problem) => problem.path));
      problems.push(...checkConfigRules(rest.data, file).filter((problem) => !reported.has(problem.path)));
    }
    return { ok: false, file, problems: locateProblems(text, problems) };
  }
  // Variables are looked up by names that arrive with requests: a null-prototype map finds own entries only.
  const config: ApiConfig = {
    ...parsed.data,
    variables: Object.assign(Object.create(null) as ApiConfig['variables'], parsed.data.variables),
  };
  const problems = checkConfigRules(config, file);
  if (problems.length > 0) return { ok: false, file, problems: locateProblems(text, problems) };
  return { ok: true, config, file };
}

/**
 * A copy of the parsed file without what the schema refused: unknown keys and bad values go (defaults apply);
 * a field still unusable after that (a missing type) is swapped for a plain placeholder field, so the other
 * fields keep their positions and their own problems are still found.
 */
function withoutIssues(raw: unknown, issues: ReadonlyArray<{ code: string; path: PropertyKey[]; keys?: string[] }>): unknown {
  const copy = structuredClone(raw) as Record<PropertyKey, unknown>;
  const parentOf = (path: PropertyKey[]): Record<PropertyKey, unknown> | undefined => {
    let node: unknown = copy;
    for (const segment of path.slice(0, -1)) {
      if (typeof node !== 'object' || node === null) return undefined;
      node = (node as Record<PropertyKey, unknown>)[segment];
    }
    return typeof node === 'object' && node !== null ? (node as Record<PropertyKey, unknown>) : undefined;
  };
  const remove = (path: PropertyKey[]) => {
    const parent = parentOf(path);
    if (parent && !Array.isArray(parent)) delete parent[path.at(-1)!];
  };
  let placeholders = 0;
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys ?? []) remove([...issue.path, key]);
    else if (issue.path.length > 0) remove(issue.path);
    // The field (an element of a `structure` or `fields` list) the issue is in.
    const last = issue.path.findLastIndex((segment) => typeof segment === 'number');
    if (last >= 0 && ['structure', 'fields'].includes(String(issue.path[last - 1]))) {
      const fieldPath = issue.path.slice(0, last + 1);
      const list = parentOf(fieldPath);
      const field = list?.[fieldPath.at(-1)!] as Record<string, unknown> | undefined;
      if (list && field && (typeof field.type !== 'string' || typeof field.name !== 'string'))
        list[fieldPath.at(-1)!] = { name: `__unchecked${(placeholders += 1)}`, type: 'string' };
    }
  }
  return copy;
}

/** A config file is a few KB; anything near this is not one (and must not be read into memory whole). */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** Reading one local file never takes this long; a file system that hangs must not hang reloads or shutdown. */
export const CONFIG_READ_TIMEOUT_MS = 2_000;

function skipped(file: string, message: string, hint: string): ConfigLoadResult {
  return { ok: false, file, problems: [{ file, path: '$', message: `skipped: ${message}`, hint }] };
}

const HINTS: Record<Refusal['kind'], string | undefined> = {
  'link-outside': 'configs must live inside the configs folder; copy the file in instead of linking it',
  link: 'configs must live inside the configs folder; copy the file in instead of linking it',
  'not-regular': 'only regular files are read as configs: remove it from the configs folder',
  'too-large': 'a config is a few KB: is this really a config file?',
  unreadable: undefined,
};

/** The checked read's refusal as the problem the loader reports (docs/security.md, "a config file"). */
function refusedResult(file: string, refusal: Refusal): ConfigLoadResult {
  if (refusal.kind === 'unreadable')
    return { ok: false, file, problems: [{ file, path: '$', message: `cannot read file: ${refusal.code}` }] };
  return skipped(file, describeRefusal(refusal, 'the configs folder'), HINTS[refusal.kind]!);
}

const readOptions = (root: string, known: Stats | undefined) => ({ root, maxBytes: MAX_CONFIG_BYTES, ...(known ? { known } : {}) });

/** Reads one config file with the checks of shared/fs/checked-read.ts, within CONFIG_READ_TIMEOUT_MS. */
async function readConfigText(file: string, root: string, known?: Stats): Promise<{ text: string } | { result: ConfigLoadResult }> {
  const read = await readChecked(file, { ...readOptions(root, known), timeoutMs: CONFIG_READ_TIMEOUT_MS });
  return 'refused' in read ? { result: refusedResult(file, read.refused) } : { text: read.bytes.toString('utf8') };
}

/**
 * readConfigText with blocking calls, for the daemon's first load only: before it serves, nothing waits on
 * its event loop, and with 10,000 configs the thread-pool round trips of five calls per file were most of
 * its start time. The same checks in the same order; what it cannot have is the read timeout, so a file on a
 * filesystem that hangs holds the start (a FIFO never does: it is opened non-blocking and refused unread).
 */
function readConfigTextSync(file: string, root: string, known?: Stats): { text: string } | { result: ConfigLoadResult } {
  const read = readCheckedSync(file, readOptions(root, known));
  return 'refused' in read ? { result: refusedResult(file, read.refused) } : { text: read.bytes.toString('utf8') };
}

/** loadConfigFile with blocking reads: only for a load that nothing else waits on (see readConfigTextSync). */
export function loadConfigFileSync(file: string, root: string, known?: Stats): ConfigLoadResult {
  const read = readConfigTextSync(file, root, known);
  if ('result' in read) return read.result;
  return parseConfigText(read.text, file);
}

/**
 * The text of a config file read with the loader's checks, or the problems saying why not: for readers that
 * need the text itself (line and column of a problem, an edit, a proposal), so that none hangs on a FIFO.
 */
export async function readConfigFileText(
  file: string,
  root: string = dirname(file),
): Promise<{ text: string } | { problems: ConfigProblem[] }> {
  const read = await readConfigText(file, root);
  return 'text' in read ? read : { problems: read.result.ok ? [] : read.result.problems };
}

/**
 * Load one config file; `root` is the configs folder it must stay inside (default: the file's own folder).
 * `known`: the file's lstat, when the caller has just taken it (the registry does, for its change signature).
 */
export async function loadConfigFile(file: string, root: string = dirname(file), known?: Stats): Promise<ConfigLoadResult> {
  const read = await readConfigText(file, root, known);
  if ('result' in read) return read.result;
  return parseConfigText(read.text, file);
}

/** The config files of a folder: `*.json` except the published `*.schema.json` and `*.proposed.json`. */
export async function listConfigFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return (
    names
      // Published schemas and repair proposals (`<apiId>.proposed.json`, see health/proposals.ts) are not configs.
      .filter(
        (name) => name.endsWith('.json') && !name.endsWith('.schema.json') && !name.endsWith('.proposed.json') && !name.startsWith('.'),
      )
      .sort()
      .map((name) => join(dir, name))
  );
}

export interface ConfigSet {
  configs: Map<string, ApiConfig>;
  files: Map<string, string>;
  problems: ConfigProblem[];
}

/** Load every config of a folder; invalid ones are reported in `problems` and left out, the rest load. */
export async function loadConfigDir(dir: string): Promise<ConfigSet> {
  const set: ConfigSet = { configs: new Map(), files: new Map(), problems: [] };
  for (const file of await listConfigFiles(dir)) {
    const result = await loadConfigFile(file, dir);
    if (!result.ok) {
      set.problems.push(...result.problems);
      continue;
    }
    const previous = set.files.get(result.config.apiId);
    if (previous) {
      set.problems.push({
        file,
        path: '$.apiId',
        message: `duplicate apiId "${result.config.apiId}", also in ${basename(previous)}`,
        hint: 'give each config its own apiId',
      });
      continue;
    }
    set.configs.set(result.config.apiId, result.config);
    set.files.set(result.config.apiId, file);
  }
  return set;
}
