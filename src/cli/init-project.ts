import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { PROJECT_FILE, projectFromSettings, readProjectFileText } from '../core/config/project.js';
import { ProjectSettingsSchema, type ProjectSettings } from '../core/config/schema.js';
import { PagejsonError } from '../core/shared/errors.js';
import { writeFileAtomic } from '../core/shared/fs/atomic-write.js';
import { displayPath, packageRoot } from './config-files.js';
import type { CliContext } from './context.js';

/** The JSON Schemas published with pagejson; init copies them next to the user's configs for editor support. */
export const PUBLISHED_SCHEMAS = ['pagejson.config.schema.json', 'pagejson.project.schema.json'] as const;

export interface InitReport {
  root: string;
  created: string[];
  updated: string[];
  kept: string[];
}

export async function initProject(rootDir: string, yes: boolean, ctx: CliContext): Promise<InitReport> {
  const report: InitReport = { root: rootDir, created: [], updated: [], kept: [] };
  const settingsPath = join(rootDir, PROJECT_FILE);
  const show = (path: string) => displayPath(path, ctx.cwd);

  let settings: ProjectSettings;
  if (existsSync(settingsPath)) {
    if (!yes) {
      throw new PagejsonError('CONFIG_EXISTS', `${show(settingsPath)} already exists`, {
        context: { file: settingsPath },
        hint: 'pass --yes to keep its settings and refresh the JSON Schemas, configs/ and .gitignore',
      });
    }
    settings = await readExistingSettings(settingsPath);
    report.kept.push(show(settingsPath));
  } else {
    await mkdir(rootDir, { recursive: true });
    settings = ProjectSettingsSchema.parse({});
    await writeFileAtomic(settingsPath, `${JSON.stringify(defaultProjectFile(settings), null, 2)}\n`);
    report.created.push(show(settingsPath));
  }

  // Throws when pagejson.json sends configs or dataDir out of the project (docs/decisions.md, "Files and folders from outside").
  const { configsDir } = projectFromSettings(rootDir, settings, ctx.env);
  if (existsSync(configsDir)) report.kept.push(`${show(configsDir)}/`);
  else {
    await mkdir(configsDir, { recursive: true });
    report.created.push(`${show(configsDir)}/`);
  }

  for (const name of PUBLISHED_SCHEMAS) {
    const source = join(packageRoot(), 'configs', name);
    if (!existsSync(source)) {
      throw new PagejsonError('INTERNAL', `the published schema ${name} is missing from the pagejson package`, {
        hint: 'reinstall pagejson (developers: run `npm run schemas`)',
      });
    }
    const target = join(configsDir, name);
    const existed = existsSync(target);
    // Written beside and renamed over: a link left at the target is replaced, never written through.
    await writeFileAtomic(target, await readFile(source));
    (existed ? report.updated : report.created).push(show(target));
  }

  const gitignoreChange = await ensureGitignoreLine(rootDir, settings.dataDir);
  if (gitignoreChange) report[gitignoreChange].push(show(join(rootDir, '.gitignore')));
  return report;
}

/** pagejson.json as init writes it: the `$schema` for editors, then every setting with its default. */
function defaultProjectFile(settings: ProjectSettings): Record<string, unknown> {
  return { $schema: `./${settings.configs}/pagejson.project.schema.json`, ...settings };
}

async function readExistingSettings(settingsPath: string): Promise<ProjectSettings> {
  const read = await readProjectFileText(settingsPath);
  if ('error' in read)
    throw new PagejsonError('PROJECT_INVALID', `${PROJECT_FILE}: ${read.error}`, {
      hint: `make ${PROJECT_FILE} a regular file, or delete it and run \`pagejson init\` again`,
    });
  let raw: unknown;
  try {
    raw = JSON.parse(read.text);
  } catch (error) {
    throw new PagejsonError('PROJECT_INVALID', `${PROJECT_FILE} is not valid JSON: ${(error as Error).message}`, {
      hint: `fix ${PROJECT_FILE}, or delete it and run \`pagejson init\` again`,
    });
  }
  const parsed = ProjectSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    throw new PagejsonError('PROJECT_INVALID', `${PROJECT_FILE} is invalid`, { hint: 'run `pagejson validate` to see every problem' });
  }
  return parsed.data;
}

/** Append `<dataDir>/` to .gitignore unless a line already ignores it. */
async function ensureGitignoreLine(rootDir: string, dataDir: string): Promise<'created' | 'updated' | undefined> {
  if (isAbsolute(dataDir)) return undefined;
  const line = `${dataDir.replace(/\/+$/, '')}/`;
  const path = join(rootDir, '.gitignore');
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch {
    await writeFile(path, `${line}\n`);
    return 'created';
  }
  const present = text.split(/\r?\n/).some((l) => [line, line.slice(0, -1), `/${line}`, `/${line.slice(0, -1)}`].includes(l.trim()));
  if (present) return undefined;
  await writeFile(path, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`);
  return 'updated';
}
