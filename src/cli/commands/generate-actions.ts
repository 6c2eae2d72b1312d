import { readFile } from 'node:fs/promises';
import { ActionsSchema } from '../../core/config/actions.js';
import { actionVariableNames, type Action } from '../../core/config/action-text.js';
import { VARIABLE_NAME_PATTERN } from '../../core/config/constants.js';
import { formatZodIssues } from '../../core/config/problems.js';
import { ApiConfigSchema, type ApiConfig } from '../../core/config/schema.js';
import { readConfigFileText } from '../../core/registry/load.js';
import { PagejsonError } from '../../core/shared/errors.js';

/**
 * `generate --actions '<json>' | --actions-file FILE` and `--var-example name=value` (docs/actions.md): the
 * page is read after the steps, as a config's `actions` would leave it, and the config keeps them. And what
 * `--force` keeps of the config it replaces when no flag gives it anew: actions (with the variables they type),
 * login, request headers and cookies, proxies, pagination.
 */
export interface ActionFlags {
  actions?: string;
  actionsFile?: string;
  varExample?: string[];
}

const HINT = `e.g. --actions '[{"type":"#q","text":"{{ q }}"},{"press":"Enter"},{"wait":".results li"}]' --var-example q=shoes`;
/** An actions file is a list of at most 50 short steps: a megabyte is far past any real one. */
const MAX_ACTIONS_FILE_BYTES = 1024 * 1024;

async function actionsText(flags: ActionFlags): Promise<{ text: string; flag: string } | undefined> {
  if (flags.actions !== undefined && flags.actionsFile !== undefined)
    throw new PagejsonError('USAGE', '--actions and --actions-file give the same steps: use one of them', { hint: HINT });
  if (flags.actions !== undefined) return { text: flags.actions, flag: '--actions' };
  if (flags.actionsFile === undefined) return undefined;
  const text = await readFile(flags.actionsFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new PagejsonError('USAGE', `--actions-file ${flags.actionsFile}: cannot be read (${error.code ?? error.message})`, {
      hint: 'give a JSON file holding the list of steps',
    });
  });
  if (Buffer.byteLength(text) > MAX_ACTIONS_FILE_BYTES)
    throw new PagejsonError('USAGE', `--actions-file ${flags.actionsFile}: larger than 1 MiB`, { hint: 'at most 50 steps' });
  return { text, flag: '--actions-file' };
}

function examplesOf(lines: readonly string[]): Record<string, string> | undefined {
  if (lines.length === 0) return undefined;
  const examples = Object.create(null) as Record<string, string>;
  for (const line of lines) {
    const equals = line.indexOf('=');
    const name = equals > 0 ? line.slice(0, equals) : '';
    if (!VARIABLE_NAME_PATTERN.test(name))
      throw new PagejsonError('USAGE', `--var-example takes name=value, not "${line.length > 60 ? `${line.slice(0, 60)}…` : line}"`, {
        hint: 'e.g. --var-example q=shoes for an action that types "{{ q }}"',
      });
    examples[name] = line.slice(equals + 1);
  }
  return { ...examples };
}

/** The actions and examples of a generation from its flags, checked as a config's `actions` are. */
export async function actionsFromFlags(flags: ActionFlags): Promise<{ actions?: Action[]; actionExamples?: Record<string, string> }> {
  const given = await actionsText(flags);
  const actionExamples = examplesOf(flags.varExample ?? []);
  if (!given) {
    if (actionExamples)
      throw new PagejsonError('USAGE', '--var-example needs --actions (the steps that type the variable)', { hint: HINT });
    return {};
  }
  let json: unknown;
  try {
    json = JSON.parse(given.text);
  } catch {
    throw new PagejsonError('USAGE', `${given.flag} is not JSON: give a list of steps`, { hint: HINT });
  }
  const parsed = ActionsSchema.safeParse(json);
  if (!parsed.success) {
    const [first] = formatZodIssues(parsed.error.issues, { raw: json, schema: ActionsSchema });
    const where = first?.path ? ` at ${first.path}` : '';
    throw new PagejsonError('USAGE', `${given.flag}${where}: ${first?.message ?? 'not valid'}`, { hint: first?.hint ?? HINT });
  }
  return { actions: parsed.data ?? [], ...(actionExamples ? { actionExamples } : {}) };
}

/** What `--force` keeps of the config it replaces, as generation inputs. */
export interface KeptSettings {
  actions?: Action[];
  actionExamples?: Record<string, string>;
  scraper?: ApiConfig['scraper'];
  login?: ApiConfig['login'];
  access?: { request?: ApiConfig['request']; proxy?: ApiConfig['proxy'] };
  pagination?: ApiConfig['pagination'];
}

/** The settings of the config at `file` that a new generation keeps; nothing when it does not read. */
export async function keptSettings(file: string): Promise<KeptSettings> {
  const read = await readConfigFileText(file).catch(() => undefined);
  if (!read || !('text' in read)) return {};
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch {
    return {};
  }
  const parsed = ApiConfigSchema.safeParse(json);
  if (!parsed.success) return {};
  const config = parsed.data;
  const kept: KeptSettings = {};
  if (config.actions && config.actions.length > 0) {
    kept.actions = config.actions;
    kept.scraper = config.scraper;
    const typed = actionVariableNames(config.actions).filter((name) => Object.hasOwn(config.variables, name));
    kept.actionExamples = Object.fromEntries(typed.map((name) => [name, config.variables[name]!.example]));
  }
  if (config.login) kept.login = config.login;
  if (config.request || config.proxy)
    kept.access = {
      ...(config.request ? { request: config.request } : {}),
      ...(config.proxy !== undefined ? { proxy: config.proxy } : {}),
    };
  if (config.pagination) kept.pagination = config.pagination;
  return kept;
}
