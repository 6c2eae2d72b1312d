import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { describeRefusal, isInside, PagejsonError, readChecked } from '../shared/index.js';
import { formatZodIssues } from './problems.js';
import { ProjectSettingsSchema, type ProjectSettings } from './schema.js';

export const PROJECT_FILE = 'pagejson.json';

/** A located project: its settings with every default filled in, and absolute paths derived from them. */
export interface Project {
  root: string;
  settingsPath: string;
  settings: ProjectSettings;
  configsDir: string;
  dataDir: string;
}

export interface LocateOptions {
  cwd: string;
  /** `--project DIR`: use this folder instead of searching upward. */
  projectDir?: string | undefined;
  /**
   * Environment, passed in rather than read here: `PAGEJSON_DATA_DIR` overrides `dataDir`;
   * `PAGEJSON_ALLOW_OUTSIDE=1` lets `configs` and `dataDir` of pagejson.json leave the project.
   */
  env?: Record<string, string | undefined>;
}

/** The operator's switch that lets pagejson.json point `configs` and `dataDir` outside the project. */
export const ALLOW_OUTSIDE_ENV = 'PAGEJSON_ALLOW_OUTSIDE';
/** pagejson.json is a few KB, like a config. */
const MAX_PROJECT_FILE_BYTES = 1024 * 1024;
const PROJECT_READ_TIMEOUT_MS = 2_000;

/**
 * The text of pagejson.json, read as configs are (regular file, no link out of its folder, bounded size and
 * time): a FIFO there must not hang `validate`, nor a link leak what it points at. An error says why not.
 */
export async function readProjectFileText(path: string): Promise<{ text: string } | { error: string }> {
  const read = await readChecked(path, { root: dirname(path), maxBytes: MAX_PROJECT_FILE_BYTES, timeoutMs: PROJECT_READ_TIMEOUT_MS });
  if ('refused' in read) {
    const { refused } = read;
    if (refused.kind === 'unreadable') return { error: refused.code === 'ENOENT' ? 'file not found' : `cannot be read: ${refused.code}` };
    return { error: `not read: it is ${describeRefusal(refused, 'its folder')} (only a regular file is read)` };
  }
  return { text: read.bytes.toString('utf8') };
}

/** Search upward from cwd for pagejson.json, as git does for .git. */
export function findProjectRoot(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, PROJECT_FILE))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export async function loadProject(options: LocateOptions): Promise<Project> {
  const root = options.projectDir ? resolve(options.cwd, options.projectDir) : findProjectRoot(options.cwd);
  if (!root || !existsSync(join(root, PROJECT_FILE))) {
    throw new PagejsonError('PROJECT_NOT_FOUND', `no ${PROJECT_FILE} found in ${options.projectDir ?? 'this folder or any parent'}`, {
      hint: 'run `pagejson init` in your repository, or pass --project DIR',
    });
  }
  const settingsPath = join(root, PROJECT_FILE);
  const read = await readProjectFileText(settingsPath);
  if ('error' in read)
    throw new PagejsonError('PROJECT_INVALID', `${PROJECT_FILE}: ${read.error}`, {
      context: { file: settingsPath },
      hint: `make ${PROJECT_FILE} a regular file, or run \`pagejson init\``,
    });
  let raw: unknown;
  try {
    raw = JSON.parse(read.text);
  } catch (error) {
    throw new PagejsonError('PROJECT_INVALID', `${PROJECT_FILE} is not valid JSON: ${(error as Error).message}`, {
      context: { file: settingsPath },
      hint: `fix the JSON syntax in ${PROJECT_FILE}`,
    });
  }
  const parsed = ProjectSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = formatZodIssues(parsed.error.issues, { raw, schema: ProjectSettingsSchema });
    const first = problems[0];
    throw new PagejsonError('PROJECT_INVALID', `${PROJECT_FILE}${first ? ` at ${first.path}: ${first.message}` : ' is invalid'}`, {
      context: { file: settingsPath, problems },
      hint: `correct ${PROJECT_FILE}; run \`pagejson validate\` for every problem`,
    });
  }
  return projectFromSettings(root, parsed.data, options.env);
}

/** Where pagejson.json's `configs` or `dataDir` leaves the project, as problems at those keys. */
export interface PlacementProblem {
  path: '$.configs' | '$.dataDir';
  message: string;
  hint: string;
}

/**
 * pagejson.json comes with the repository, so it may not send pagejson to read (and `validate` to echo) a
 * folder elsewhere, or to keep its state there, unless the operator says so: PAGEJSON_ALLOW_OUTSIDE=1, or
 * PAGEJSON_DATA_DIR for the data dir. Links are resolved first: `configs` linked to /etc is outside.
 * docs/decisions.md, "Files and folders from outside".
 */
export function placementProblems(
  root: string,
  settings: ProjectSettings,
  env: Record<string, string | undefined> = {},
): PlacementProblem[] {
  if (env[ALLOW_OUTSIDE_ENV] === '1') return [];
  const entries: Array<['configs' | 'dataDir', string]> = [['configs', settings.configs]];
  if (!env.PAGEJSON_DATA_DIR) entries.push(['dataDir', settings.dataDir]);
  const realRoot = realOf(root);
  return entries
    .filter(([, value]) => {
      const real = realOf(resolve(root, value));
      return real !== realRoot && !isInside(realRoot, real);
    })
    .map(([key, value]) => ({
      path: `$.${key}`,
      message: `${key} "${value}" leads outside the project${isInside(resolve(root), resolve(root, value)) ? ' through a symbolic link' : ''}`,
      hint: `keep ${key} inside the project folder, or set ${ALLOW_OUTSIDE_ENV}=1 where pagejson runs if it is meant to be elsewhere${key === 'dataDir' ? ' (or name the data dir with PAGEJSON_DATA_DIR)' : ''}`,
    }));
}

/** The real path of `path`, resolving links through its deepest part that exists. */
function realOf(path: string): string {
  const rest: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      rest.push(basename(current));
      current = parent;
    }
  }
}

/** The project's absolute paths; throws PROJECT_INVALID when pagejson.json sends them out of it (above). */
export function projectFromSettings(root: string, settings: ProjectSettings, env: Record<string, string | undefined> = {}): Project {
  const [problem] = placementProblems(root, settings, env);
  if (problem)
    throw new PagejsonError('PROJECT_INVALID', `${PROJECT_FILE} at ${problem.path}: ${problem.message}`, {
      context: { file: join(root, PROJECT_FILE), path: problem.path },
      hint: problem.hint,
    });
  const dataDirSetting = env.PAGEJSON_DATA_DIR || settings.dataDir;
  return {
    root,
    settingsPath: join(root, PROJECT_FILE),
    settings,
    configsDir: isAbsolute(settings.configs) ? settings.configs : join(root, settings.configs),
    dataDir: isAbsolute(dataDirSetting) ? dataDirSetting : join(root, dataDirSetting),
  };
}
