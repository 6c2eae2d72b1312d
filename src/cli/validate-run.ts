import { basename, resolve } from 'node:path';
import { loadConfigDir, loadConfigFile, readConfigFileText } from '../core/registry/load.js';
import { formatZodIssues, type ConfigProblem } from '../core/config/problems.js';
import { checkConfigAgainstProject } from '../core/registry/validate.js';
import { webhookSecretProblems } from '../core/config/webhook-secret.js';
import { jsonSyntaxProblems, locateProblems } from '../core/config/locate.js';
import {
  findProjectRoot,
  placementProblems,
  PROJECT_FILE,
  projectFromSettings,
  readProjectFileText,
  type Project,
} from '../core/config/project.js';
import { ProjectSettingsSchema, type ApiConfig, type ProjectSettings } from '../core/config/schema.js';
import { isPagejsonError, PagejsonError } from '../core/shared/errors.js';
import { displayPath } from './config-files.js';
import { accessOf } from '../core/fetch/net/access-of.js';
import { loginOf } from '../core/fetch/login/login-of.js';
import { cliLogins } from './login-sessions.js';
import { writeJson, writeLine, type CliContext } from './context.js';
import { colors } from './output.js';
import { escapeData, escapeProperty } from './github-annotations.js';
import { configSecretNames } from '../core/config/secret-uses.js';
import { allowedSecretNames } from '../core/config/secret-allow-list.js';
import { secretNames } from '../core/config/secrets.js';

type Format = 'text' | 'json' | 'github';

interface Checked {
  /** Every file looked at, valid or not, in order; `secrets`: the environment variables it reads as `${NAME}`. */
  files: Array<{ file: string; apiId?: string; secrets?: string[] }>;
  problems: ConfigProblem[];
}

/** The whole of `pagejson validate`, loaded only when the command runs. */
export async function runValidate(
  files: string[],
  formatOption: string,
  projectDir: string | undefined,
  ctx: CliContext,
  options: { live?: boolean } = {},
): Promise<void> {
  const format = parseFormat(formatOption);
  const checked = files.length > 0 ? await checkFiles(files.map((f) => resolve(ctx.cwd, f))) : await checkProject(ctx, projectDir);
  if (options.live) checked.problems.push(...(await checkLive(checked, projectDir, ctx)));
  // Errors first: a config that fails must not be buried under the warnings of optional fields.
  checked.problems = (await withPositions(checked.problems)).sort(
    (a, b) => Number(a.severity === 'warning') - Number(b.severity === 'warning'),
  );
  // Warnings are told, not failed on: an optional field may well be absent on the page as it is today.
  if (checked.problems.some((problem) => problem.severity !== 'warning')) ctx.exitCode = 1;
  report(checked, format, ctx);
}

/** `--live`: every config that passed the static checks, against its page as fetched now (four at a time). */
async function checkLive(checked: Checked, projectDir: string | undefined, ctx: CliContext): Promise<ConfigProblem[]> {
  const root = projectDir ? resolve(ctx.cwd, projectDir) : findProjectRoot(ctx.cwd);
  const settings = root ? (await checkProjectFile(resolve(root, PROJECT_FILE))).settings : undefined;
  const project = usableProject(root ?? ctx.cwd, settings, ctx.env);
  const invalid = new Set(checked.problems.map((problem) => problem.file));
  const targets: Array<{ file: string; config: ApiConfig }> = [];
  for (const entry of checked.files) {
    if (!entry.apiId || invalid.has(entry.file)) continue;
    const loaded = await loadConfigFile(entry.file);
    if (loaded.ok) targets.push({ file: entry.file, config: loaded.config });
  }
  const [{ createScraperPool, scraperOptionsFromSettings }, { liveCheckIsolated }, { exampleValues, resolveSourceUrl }, { actionSteps }] =
    await Promise.all([
      import('../core/fetch/scrapers/index.js'),
      import('./isolated.js'),
      import('../core/config/url-template.js'),
      import('../core/config/action-text.js'),
    ]);
  const pool = createScraperPool({
    ...scraperOptionsFromSettings(project.settings.fetch, ctx.env, project.settings.browser),
    logins: await cliLogins(project, ctx.env),
  });
  const problems: ConfigProblem[] = [];
  const progress = ctx.stderr.isTTY && ctx.interactive;
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < targets.length) {
      const { file, config } = targets[next++]!;
      try {
        const page = await pool.get(config.scraper).fetch({
          url: resolveSourceUrl(config, exampleValues(config)),
          session: config.session,
          ...accessOf(config),
          ...loginOf(config),
          ...actionSteps(config, exampleValues(config)),
        });
        // In a thread with the daemon's extraction budget and limits (issue 40): a costly page ends its check only.
        problems.push(...(await liveCheckIsolated(config, page, file, project.settings.extraction)));
      } catch (error) {
        const url = isPagejsonError(error) && typeof error.context.fetchUrl === 'string' ? error.context.fetchUrl : config.url;
        problems.push({
          file,
          path: '$.url',
          message: `could not fetch ${url} with scraper ${config.scraper}: ${(error as Error).message}`,
          ...(isPagejsonError(error) && error.hint ? { hint: error.hint } : {}),
        });
      } finally {
        done += 1;
        if (progress) ctx.stderr.write(`\rchecking pages ${done}/${targets.length} `);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(4, targets.length) }, worker));
  } finally {
    if (progress) ctx.stderr.write('\r\x1b[K');
    await pool.close();
  }
  return problems;
}

/** Line and column for the problems found without the file's text at hand (project rules, duplicates). */
async function withPositions(problems: ConfigProblem[]): Promise<ConfigProblem[]> {
  const texts = new Map<string, string | undefined>();
  for (const problem of problems) {
    if (problem.line !== undefined || texts.has(problem.file)) continue;
    // Read as the loader reads (a FIFO or a link out of the folder is never opened): the file may be one it refused.
    texts.set(
      problem.file,
      basename(problem.file) === PROJECT_FILE
        ? await readProjectFileText(problem.file).then((read) => ('text' in read ? read.text : undefined))
        : await readConfigFileText(problem.file).then((read) => ('text' in read ? read.text : undefined)),
    );
  }
  return problems.map((problem) => {
    const text = texts.get(problem.file);
    return problem.line === undefined && text !== undefined ? locateProblems(text, [problem])[0]! : problem;
  });
}

function parseFormat(value: string): Format {
  if (value === 'text' || value === 'json' || value === 'github') return value;
  throw new PagejsonError('USAGE', `--format must be text, json or github, not "${value}"`, {
    hint: 'use --format github in GitHub Actions, --format json in scripts',
  });
}

async function checkProject(ctx: CliContext, projectDir: string | undefined): Promise<Checked> {
  const root = projectDir ? resolve(ctx.cwd, projectDir) : findProjectRoot(ctx.cwd);
  const settingsPath = root ? resolve(root, PROJECT_FILE) : undefined;
  if (!root || !settingsPath) {
    throw new PagejsonError('PROJECT_NOT_FOUND', `no ${PROJECT_FILE} found in this folder or any parent`, {
      hint: 'run `pagejson init`, pass --project DIR, or name the config files to check',
    });
  }
  const { settings, problems } = await checkProjectFile(settingsPath);
  const checked: Checked = {
    files: [{ file: settingsPath, ...(settings ? { secrets: projectSecretNames(settings) } : {}) }],
    problems: [],
  };
  checked.problems.push(...problems);
  // A configs folder outside the project is reported, never read (docs/decisions.md, "Files and folders from outside").
  if (settings) checked.problems.push(...placementProblems(root, settings, ctx.env).map((problem) => ({ file: settingsPath, ...problem })));
  // A signing secret too short to trust (the daemon will not sign with it either).
  if (settings) checked.problems.push(...webhookSecretProblems(settings, ctx.env).map((problem) => ({ file: settingsPath, ...problem })));
  // With broken settings the configs folder is still checked, at its default place.
  const project = usableProject(root, settings, ctx.env);
  const set = await loadConfigDir(project.configsDir);
  const invalidFiles = new Set(set.problems.map((p) => p.file));
  for (const [apiId, file] of set.files) {
    const config = set.configs.get(apiId);
    checked.files.push({ file, apiId, ...(config ? { secrets: configSecretNames(config) } : {}) });
  }
  for (const file of invalidFiles) if (![...set.files.values()].includes(file)) checked.files.push({ file });
  checked.problems.push(...set.problems);
  if (settings)
    for (const [apiId, config] of set.configs) checked.problems.push(...checkConfigAgainstProject(config, set.files.get(apiId)!, settings));
  checked.files.sort((a, b) => a.file.localeCompare(b.file));
  return checked;
}

async function checkFiles(files: string[]): Promise<Checked> {
  const checked: Checked = { files: [], problems: [] };
  const seen = new Map<string, string>();
  for (const file of files) {
    if (basename(file) === PROJECT_FILE) {
      const { settings, problems } = await checkProjectFile(file);
      checked.files.push({ file, ...(settings ? { secrets: projectSecretNames(settings) } : {}) });
      checked.problems.push(...problems);
      continue;
    }
    const result = await loadConfigFile(file);
    if (!result.ok) {
      checked.files.push({ file });
      checked.problems.push(...result.problems);
      continue;
    }
    const apiId = result.config.apiId;
    checked.files.push({ file, apiId, secrets: configSecretNames(result.config) });
    const previous = seen.get(apiId);
    if (previous)
      checked.problems.push({
        file,
        path: '$.apiId',
        message: `duplicate apiId "${apiId}", also in ${previous}`,
        hint: 'give each config its own apiId',
      });
    else seen.set(apiId, file);
  }
  return checked;
}

/** The variables pagejson.json reads: its models' headers and API keys (apiKeyEnv, allow-listed too) and its fetch.proxy. */
function projectSecretNames(settings: ProjectSettings): string[] {
  const texts = [
    ...Object.values(settings.models).flatMap((model) => Object.values(model.headers ?? {})),
    ...(settings.fetch.proxy ? settings.fetch.proxy.urls : []),
  ];
  const apiKeys = Object.values(settings.models).flatMap((model) => (model.apiKeyEnv ? [model.apiKeyEnv] : []));
  return [...new Set([...texts.flatMap((text) => secretNames(text)), ...apiKeys])];
}

/** The project as validate uses it: settings pagejson.json got wrong (or sent out of the project) at their defaults. */
function usableProject(root: string, settings: ProjectSettings | undefined, env: Record<string, string | undefined>): Project {
  const defaults = ProjectSettingsSchema.parse({});
  if (!settings) return projectFromSettings(root, defaults, env);
  const outside = new Set(placementProblems(root, settings, env).map((problem) => problem.path));
  return projectFromSettings(
    root,
    {
      ...settings,
      ...(outside.has('$.configs') ? { configs: defaults.configs } : {}),
      ...(outside.has('$.dataDir') ? { dataDir: defaults.dataDir } : {}),
    },
    env,
  );
}

export async function checkProjectFile(path: string): Promise<{ settings?: ProjectSettings; problems: ConfigProblem[] }> {
  const read = await readProjectFileText(path);
  if ('error' in read)
    return { problems: [{ file: path, path: '$', message: read.error, hint: `fix ${PROJECT_FILE}, or run \`pagejson init\`` }] };
  const { text } = read;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { problems: jsonSyntaxProblems(text, path) };
  }
  const parsed = ProjectSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = formatZodIssues(parsed.error.issues, { raw, schema: ProjectSettingsSchema }).map((p) => ({
      file: path,
      hint: 'see configs/pagejson.project.schema.json for the format',
      ...p,
    }));
    return { problems: locateProblems(text, problems) };
  }
  return { settings: parsed.data, problems: [] };
}

function report(checked: Checked, format: Format, ctx: CliContext): void {
  const show = (file: string) => displayPath(file, ctx.cwd);
  const allowed = allowedSecretNames(ctx.env);
  const invalid = new Set(checked.problems.filter((p) => p.severity !== 'warning').map((p) => p.file));
  if (format === 'json') {
    writeJson(ctx.stdout, {
      ok: invalid.size === 0,
      files: checked.files.map((f) => ({
        file: show(f.file),
        ...(f.apiId ? { apiId: f.apiId } : {}),
        ok: !invalid.has(f.file),
        ...(f.secrets ? { secrets: f.secrets } : {}),
      })),
      secretsAllowed: [...allowed],
      problems: checked.problems.map((p) => ({
        file: show(p.file),
        path: p.path,
        ...(p.line !== undefined ? { line: p.line, column: p.column } : {}),
        severity: p.severity ?? 'error',
        message: p.message,
        ...(p.hint ? { hint: p.hint } : {}),
      })),
    });
    return;
  }
  if (format === 'github') {
    for (const p of checked.problems) {
      const message = p.hint ? `${p.path}: ${p.message} (${p.hint})` : `${p.path}: ${p.message}`;
      const position = p.line !== undefined ? `,line=${p.line},col=${p.column ?? 1}` : '';
      writeLine(
        ctx.stdout,
        `::${p.severity === 'warning' ? 'warning' : 'error'} file=${escapeProperty(show(p.file))}${position},title=${escapeProperty(`pagejson ${p.path}`)}::${escapeData(message)}`,
      );
    }
    for (const line of secretLines(checked, allowed, show))
      writeLine(ctx.stdout, `::notice file=${escapeProperty(line.file)},title=pagejson secrets::${escapeData(line.text)}`);
    writeLine(ctx.stdout, summary(checked, invalid.size));
    return;
  }
  const c = colors(ctx.stdout, ctx.env);
  for (const p of checked.problems) {
    const at = p.line !== undefined ? `:${p.line}:${p.column ?? 1}` : '';
    writeLine(
      ctx.stdout,
      `${c.bold(`${show(p.file)}${at}`)} ${c.cyan(p.path)}: ${p.severity === 'warning' ? c.yellow(`warning: ${p.message}`) : c.red(p.message)}`,
    );
    if (p.hint) writeLine(ctx.stdout, `  ${c.dim('hint:')} ${p.hint}`);
  }
  for (const line of secretLines(checked, allowed, show)) writeLine(ctx.stdout, `${c.bold(line.file)} ${line.text}`);
  const line = summary(checked, invalid.size);
  writeLine(ctx.stdout, invalid.size === 0 ? c.green(`✓ ${line}`) : c.red(`✗ ${line}`));
}

/**
 * Which environment variables each file reads (issue 45): a reviewer sees a pull request that adds one, and
 * whoever runs pagejson what to allow (PAGEJSON_SECRETS or --allow-secret).
 */
function secretLines(checked: Checked, allowed: Set<string>, show: (file: string) => string): Array<{ file: string; text: string }> {
  return checked.files
    .filter((f) => f.secrets && f.secrets.length > 0)
    .map((f) => {
      const names = f.secrets!.map((name) => (allowed.has(name) ? name : `${name} (not allowed)`)).join(', ');
      return { file: show(f.file), text: `reads the environment variables ${names}` };
    });
}

function summary(checked: Checked, invalidFiles: number): string {
  const files = `${checked.files.length} file${checked.files.length === 1 ? '' : 's'}`;
  const warnings = checked.problems.filter((problem) => problem.severity === 'warning').length;
  const errors = checked.problems.length - warnings;
  const warned = warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : '';
  if (errors === 0) return `${files} valid${warned}`;
  return `${errors} problem${errors === 1 ? '' : 's'} in ${invalidFiles} of ${files}${warned}`;
}
