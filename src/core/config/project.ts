import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { PagejsonError } from '../shared/index.js';
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
  /** Environment, passed in rather than read here: `PAGEJSON_DATA_DIR` overrides `dataDir`. */
  env?: Record<string, string | undefined>;
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
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(settingsPath, 'utf8'));
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

export function projectFromSettings(root: string, settings: ProjectSettings, env: Record<string, string | undefined> = {}): Project {
  const dataDirSetting = env.PAGEJSON_DATA_DIR || settings.dataDir;
  return {
    root,
    settingsPath: join(root, PROJECT_FILE),
    settings,
    configsDir: isAbsolute(settings.configs) ? settings.configs : join(root, settings.configs),
    dataDir: isAbsolute(dataDirSetting) ? dataDirSetting : join(root, dataDirSetting),
  };
}
