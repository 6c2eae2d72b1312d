import { isDeepStrictEqual } from 'node:util';
import { PagejsonError } from '../shared/index.js';
import { checkConfigAgainstProject, checkConfigRules, parseConfigText, readConfigFileText } from '../registry/index.js';
import {
  ApiConfigSchema,
  CONFIG_SCHEMA_REF,
  formatZodIssues,
  serializeConfig,
  writeConfigFile,
  type ApiConfig,
  type ConfigProblem,
  type ProjectSettings,
} from '../config/index.js';
import { keepRevision } from './revisions.js';

/**
 * A config file opened for editing. Keeps what the file held so that a save writes back only what the user
 * wrote or changed: a key the file left out that still holds its default stays out, and git diffs stay small.
 */
export interface EditableConfig {
  file: string;
  original: ApiConfig;
  /** Top-level keys present in the file as written. */
  writtenKeys: Set<string>;
  text: string;
  /** The project's settings, when known: a save is checked against them too (a model it does not define). */
  settings?: Pick<ProjectSettings, 'models'>;
}

export async function openConfigForEdit(file: string, settings?: Pick<ProjectSettings, 'models'>): Promise<EditableConfig> {
  // Read as the loader reads: a FIFO or a link out of the folder is refused, never opened.
  const read = await readConfigFileText(file);
  const text = 'text' in read ? read.text : '';
  const result = 'text' in read ? parseConfigText(text, file) : { ok: false as const, problems: read.problems };
  if (!result.ok) {
    const first = result.problems[0]!;
    throw new PagejsonError('CONFIG_INVALID', `${file} at ${first.path}: ${first.message}`, {
      context: { problems: result.problems },
      hint: 'fix the file first (`pagejson validate` lists every problem); edit works on valid configs',
    });
  }
  return {
    file,
    original: result.config,
    writtenKeys: new Set(Object.keys(JSON.parse(text) as object)),
    text,
    ...(settings ? { settings } : {}),
  };
}

const DEFAULTS = ApiConfigSchema.parse({ apiId: 'x', url: 'https://x.example/', structure: [{ name: 'x', type: 'string' }] });
const OMITTABLE = ['status', 'variables', 'scraper', 'session', 'caching', 'model', 'selector', 'rule'] as const;

/** The object to write: the config less the defaults the file did not spell out. */
export function fileShape(editable: EditableConfig, config: ApiConfig): Record<string, unknown> {
  // Editors complete and check a file that names its schema: an edited config gains it.
  const out: Record<string, unknown> = { $schema: CONFIG_SCHEMA_REF, ...config };
  for (const key of OMITTABLE) {
    if (!editable.writtenKeys.has(key) && isDeepStrictEqual(config[key], DEFAULTS[key])) delete out[key];
  }
  return out;
}

/** Every problem the edited config would have, checked before anything is written. */
export function problemsOf(file: string, candidate: ApiConfig, settings?: Pick<ProjectSettings, 'models'>): ConfigProblem[] {
  const parsed = ApiConfigSchema.safeParse(candidate);
  if (!parsed.success)
    return formatZodIssues(parsed.error.issues, { raw: candidate, schema: ApiConfigSchema }).map((p) => ({ file, ...p }));
  // What `pagejson validate` would refuse is never saved: the file rules and the project's models alike.
  return [...checkConfigRules(parsed.data, file), ...(settings ? checkConfigAgainstProject(parsed.data, file, settings) : [])];
}

export function textOf(editable: EditableConfig, config: ApiConfig): string {
  return serializeConfig(fileShape(editable, config) as ApiConfig);
}

/**
 * Validate, then write atomically. Throws CONFIG_INVALID (writing nothing) when the result is invalid. With
 * `keepIn` (the data dir), the revision being replaced is kept there first (see revisions.ts).
 */
export async function saveEditedConfig(editable: EditableConfig, config: ApiConfig, keepIn?: string): Promise<string> {
  const problems = problemsOf(editable.file, config, editable.settings);
  if (problems.length > 0) {
    throw new PagejsonError(
      'CONFIG_INVALID',
      `the change would make the config invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      {
        context: { problems },
        hint: 'nothing was written; adjust the change and try again',
      },
    );
  }
  const text = textOf(editable, config);
  if (keepIn !== undefined && config.revision !== editable.original.revision) await keepRevision(keepIn, editable.original);
  await writeConfigFile(editable.file, fileShape(editable, config) as ApiConfig);
  return text;
}
