import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { lstat, open, readdir, realpath, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { ApiConfigSchema, formatZodIssues, jsonSyntaxProblems, locateProblems, type ApiConfig, type ConfigProblem } from '../config/index.js';
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
    const problems: ConfigProblem[] = formatZodIssues(parsed.error.issues, { raw, schema: ApiConfigSchema }).map((p) => ({ file, hint: 'see configs/pagejson.config.schema.json for the format', ...p }));
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
  const config: ApiConfig = { ...parsed.data, variables: Object.assign(Object.create(null) as ApiConfig['variables'], parsed.data.variables) };
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
      if (list && field && (typeof field.type !== 'string' || typeof field.name !== 'string')) list[fieldPath.at(-1)!] = { name: `__unchecked${(placeholders += 1)}`, type: 'string' };
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

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isDirectory()) return 'a folder';
  return 'not a regular file';
}

// What readConfigText and readConfigTextSync refuse, in the same words.
const linkOutside = (file: string): { result: ConfigLoadResult } => ({
  result: skipped(file, 'a symbolic link that leads outside the configs folder', 'configs must live inside the configs folder; copy the file in instead of linking it'),
});
const notRegular = (file: string, info: Stats): { result: ConfigLoadResult } => ({
  result: skipped(file, kindOf(info), 'only regular files are read as configs: remove it from the configs folder'),
});
const tooLarge = (file: string): { result: ConfigLoadResult } => ({
  result: skipped(file, `larger than ${MAX_CONFIG_BYTES} bytes`, 'a config is a few KB: is this really a config file?'),
});
const cannotRead = (file: string, error: unknown): { result: ConfigLoadResult } => ({
  result: { ok: false, file, problems: [{ file, path: '$', message: `cannot read file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }] },
});
/** The checks on a file's stat before it is opened, and on the opened descriptor's after. */
const refusal = (file: string, info: Stats): { result: ConfigLoadResult } | undefined =>
  !info.isFile() ? notRegular(file, info) : info.size > MAX_CONFIG_BYTES ? tooLarge(file) : undefined;

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * Reads one config file safely: only regular files (a FIFO would block the open forever), no symbolic link
 * that leads out of `root` (its contents would end up in error messages), at most MAX_CONFIG_BYTES, within
 * CONFIG_READ_TIMEOUT_MS. The open is non-blocking and the opened descriptor is checked again, so a file
 * swapped for a pipe between the check and the open is still refused.
 */
async function readConfigText(file: string, root: string, known?: Stats): Promise<{ text: string } | { result: ConfigLoadResult }> {
  let target = file;
  try {
    let info = known ?? (await lstat(file));
    if (info.isSymbolicLink()) {
      target = await realpath(file);
      if (!isInside(await realpath(root).catch(() => root), target)) return linkOutside(file);
      info = await stat(target);
    }
    const refused = refusal(file, info);
    if (refused) return refused;
  } catch (error) {
    return cannotRead(file, error);
  }
  let handle: FileHandle | undefined;
  try {
    handle = await open(target, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const opened = await handle.stat();
    if (!opened.isFile()) return notRegular(file, opened);
    const buffer = Buffer.alloc(Math.min(opened.size, MAX_CONFIG_BYTES) + 1);
    const read = handle.read(buffer, 0, buffer.length, 0);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('read timed out'), { code: 'ETIMEDOUT' })), CONFIG_READ_TIMEOUT_MS);
    });
    const { bytesRead } = await Promise.race([read, timeout]).finally(() => clearTimeout(timer));
    if (bytesRead > MAX_CONFIG_BYTES) return tooLarge(file);
    return { text: buffer.subarray(0, bytesRead).toString('utf8') };
  } catch (error) {
    return cannotRead(file, error);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * readConfigText with blocking calls, for the daemon's first load only: before it serves, nothing waits on
 * its event loop, and with 10,000 configs the thread-pool round trips of five calls per file were most of
 * its start time. The same checks in the same order; what it cannot have is the read timeout, so a file on a
 * filesystem that hangs holds the start (a FIFO never does: it is opened non-blocking and refused unread).
 */
function readConfigTextSync(file: string, root: string, known?: Stats): { text: string } | { result: ConfigLoadResult } {
  let target = file;
  let fd: number | undefined;
  try {
    let info = known ?? lstatSync(file);
    if (info.isSymbolicLink()) {
      target = realpathSync(file);
      let realRoot = root;
      try {
        realRoot = realpathSync(root);
      } catch {
        /* the folder as given */
      }
      if (!isInside(realRoot, target)) return linkOutside(file);
      info = statSync(target);
    }
    const refused = refusal(file, info);
    if (refused) return refused;
    fd = openSync(target, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const opened = fstatSync(fd);
    if (!opened.isFile()) return notRegular(file, opened);
    const buffer = Buffer.alloc(Math.min(opened.size, MAX_CONFIG_BYTES) + 1);
    const bytesRead = readSync(fd, buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_CONFIG_BYTES) return tooLarge(file);
    return { text: buffer.subarray(0, bytesRead).toString('utf8') };
  } catch (error) {
    return cannotRead(file, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** loadConfigFile with blocking reads: only for a load that nothing else waits on (see readConfigTextSync). */
export function loadConfigFileSync(file: string, root: string, known?: Stats): ConfigLoadResult {
  const read = readConfigTextSync(file, root, known);
  if ('result' in read) return read.result;
  return parseConfigText(read.text, file);
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
  return names
    // Published schemas and repair proposals (`<apiId>.proposed.json`, see health/proposals.ts) are not configs.
    .filter((name) => name.endsWith('.json') && !name.endsWith('.schema.json') && !name.endsWith('.proposed.json') && !name.startsWith('.'))
    .sort()
    .map((name) => join(dir, name));
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
      set.problems.push({ file, path: '$.apiId', message: `duplicate apiId "${result.config.apiId}", also in ${basename(previous)}`, hint: 'give each config its own apiId' });
      continue;
    }
    set.configs.set(result.config.apiId, result.config);
    set.files.set(result.config.apiId, file);
  }
  return set;
}
