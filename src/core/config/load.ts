import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { formatZodIssues, type ConfigProblem } from './problems.js';
import { ApiConfigSchema, type ApiConfig } from './schema.js';
import { checkConfigRules } from './validate.js';

export type ConfigLoadResult = { ok: true; config: ApiConfig; file: string } | { ok: false; file: string; problems: ConfigProblem[] };

/** Parse and validate one config from its text. `file` names it in problems; its stem must equal the apiId. */
export function parseConfigText(text: string, file: string): ConfigLoadResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, file, problems: [{ file, path: '$', message: `not valid JSON: ${(error as Error).message}`, hint: 'fix the JSON syntax' }] };
  }
  const parsed = ApiConfigSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      file,
      problems: formatZodIssues(parsed.error.issues).map((p) => ({ file, ...p, hint: 'see configs/pagejson.config.schema.json for the format' })),
    };
  }
  const problems = checkConfigRules(parsed.data, file);
  if (problems.length > 0) return { ok: false, file, problems };
  return { ok: true, config: parsed.data, file };
}

export async function loadConfigFile(file: string): Promise<ConfigLoadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { ok: false, file, problems: [{ file, path: '$', message: `cannot read file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }] };
  }
  return parseConfigText(text, file);
}

/** The config files of a folder: `*.json` except the published `*.schema.json`. */
export async function listConfigFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((name) => name.endsWith('.json') && !name.endsWith('.schema.json') && !name.startsWith('.'))
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
    const result = await loadConfigFile(file);
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
