import type { Command } from 'commander';
import { join } from 'node:path';
import type { ApiConfig, ProjectSettings } from '../../core/config/schema.js';
import type * as EditModel from '../../core/edit/operations.js';
import type { EditOperation } from '../../core/edit/operations.js';
import { isPagejsonError, PagejsonError } from '../../core/shared/errors.js';
import { displayPath, loadProjectConfigs, requireConfig } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';

/**
 * `pagejson edit <apiId>` with change flags: every flag is one edit, applied in the order given on the
 * command line (commander's option events keep that order across different flags), validated as a whole
 * before anything is written. Without change flags on a terminal, the interactive editor opens.
 */
type FlagParsers = Record<(typeof CHANGE_FLAGS)[number], (value: string) => EditOperation>;
const CHANGE_FLAGS = ['add', 'remove', 'rename', 'move', 'set', 'var', 'unvar'] as const;

// The edit model (the config schema behind it) loads only when an edit runs, not on every CLI start.
const flagParsers = ({ parseAddSpec, splitAssignment }: typeof EditModel): FlagParsers => ({
  add: parseAddSpec,
  remove: (value) => ({ kind: 'remove', path: value }),
  rename: (value) => {
    const [path, name] = splitAssignment('--rename', value, 'PATH=NEW, e.g. --rename books.name=title');
    return { kind: 'rename', path, name };
  },
  move: (value) => {
    const [path, position] = splitAssignment('--move', value, 'PATH=POSITION, e.g. --move books.price=1');
    if (!/^[0-9]+$/.test(position))
      throw new PagejsonError('USAGE', `--move position "${position}" is not a number`, {
        hint: "positions count from 1 within the field's level",
      });
    return { kind: 'move', path, position: Number(position) };
  },
  set: (value) => {
    const [key, setting] = splitAssignment('--set', value, 'KEY=VALUE, e.g. --set caching=false or --set books.price.selector=.amount');
    return { kind: 'set', key, value: setting };
  },
  var: (value) => {
    const [spec, name] = splitAssignment('--var', value, 'path:N=NAME or query:PARAM=NAME');
    return { kind: 'var', spec, name };
  },
  unvar: (value) => ({ kind: 'unvar', name: value }),
});

export function register(program: Command, ctx: CliContext): void {
  const command = program
    .command('edit')
    .description('change a config: fields, settings and dynamic variables (interactive without change flags)')
    .argument('<apiId>', 'the endpoint to edit')
    .option('--add <PATH:TYPE[=SELECTOR]>', 'add a field, e.g. books.rating:number=.star-rating (repeatable)')
    .option('--remove <PATH>', 'remove a field (repeatable)')
    .option('--rename <PATH=NEW>', 'rename a field (repeatable)')
    .option('--move <PATH=POSITION>', 'move a field to a 1-based position in its level (repeatable)')
    .option(
      '--set <KEY=VALUE>',
      'set url, scraper, session, caching, status, model, selector, rule, description, monitor.every (off removes the schedule), monitor.variables, or PATH.selector|attribute|type|transform|description|required (repeatable)',
    )
    .option('--var <path:N=NAME|query:PARAM=NAME>', 'make a path segment or query value a named variable (repeatable)')
    .option('--unvar <NAME>', 'turn a variable back into its example value (repeatable)')
    .option('--dry-run', 'show what would change without writing')
    .option('--json', 'print {apiId, file, revision, changed, changes} as JSON');

  // Commander's option events keep the order of the flags across different flags.
  const flags: Array<[(typeof CHANGE_FLAGS)[number], string]> = [];
  for (const flag of CHANGE_FLAGS) command.on(`option:${flag}`, (value: string) => flags.push([flag, value]));

  command.action(async (apiId: string, options: { dryRun?: boolean; json?: boolean }, cmd: Command) => {
    const [editModel, { describeChanges }] = await Promise.all([
      import('../../core/edit/operations.js'),
      import('../../core/edit/describe-changes.js'),
    ]);
    const parsers = flagParsers(editModel);
    const operations = flags.map(([flag, value]) => parsers[flag](value));
    const { project, set } = await loadProjectConfigs(cmd, ctx);
    requireConfig(project, set, apiId, ctx.cwd);
    const file = set.files.get(apiId) ?? join(project.configsDir, `${apiId}.json`);
    // The config model (zod, validation) loads only when an edit runs, not on every CLI start.
    const { openConfigForEdit, problemsOf, saveEditedConfig } = await import('../../core/edit/config-file.js');
    const editable = await openConfigForEdit(file, project.settings);

    if (operations.length === 0) {
      if (!ctx.interactive) {
        throw new PagejsonError('USAGE', 'no change given and no terminal to edit interactively', {
          hint: 'pass change flags such as --add, --remove, --rename, --move, --set, --var, --unvar (see `pagejson edit --help`)',
        });
      }
      const { runInteractiveEdit } = await import('../prompts/edit-session.js');
      await runInteractiveEdit(editable, project, ctx);
      return;
    }

    const { config, changed } = applyChangeFlags(editModel, editable.original, operations);
    const changes = describeChanges(editable.original, config);
    if (changed) {
      await requireKnownModel(editable.original, config, file, project.settings);
      // Checked in a dry run too: a dry run answers "would this work?".
      const invalid = problemsOf(file, config, project.settings);
      if (invalid.length > 0) {
        throw new PagejsonError(
          'CONFIG_INVALID',
          `the change would make the config invalid: ${invalid.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
          {
            context: { problems: invalid },
            hint: 'nothing was written; adjust the change and try again',
          },
        );
      }
      if (!options.dryRun) await saveEditedConfig(editable, config, project.dataDir);
    }
    if (options.json) {
      writeJson(ctx.stdout, {
        apiId,
        file: displayPath(file, ctx.cwd),
        revision: config.revision,
        changed,
        written: changed && !options.dryRun,
        changes,
      });
      return;
    }
    const c = colors(ctx.stdout, ctx.env);
    if (!changed) {
      writeLine(ctx.stdout, `${apiId}: nothing changed (revision ${editable.original.revision})`);
      return;
    }
    for (const change of changes) writeLine(ctx.stdout, `  ${c.cyan('•')} ${change.text}`);
    writeLine(
      ctx.stdout,
      options.dryRun
        ? c.yellow(`dry run: ${displayPath(file, ctx.cwd)} not written`)
        : c.green(`saved ${displayPath(file, ctx.cwd)} (revision ${config.revision})`),
    );
  });
}

/**
 * A change flag that names nothing in the config (a field, a query parameter, a path segment, a variable) or
 * cannot apply to it is a usage error: exit 2, as for every argument naming nothing (README, "CLI reference").
 */
function applyChangeFlags(
  editModel: typeof EditModel,
  original: ApiConfig,
  operations: EditOperation[],
): { config: ApiConfig; changed: boolean } {
  try {
    return editModel.applyEdits(original, operations);
  } catch (error) {
    if (isPagejsonError(error) && (error.code === 'CONFIG_INVALID' || error.code === 'TEMPLATE_INVALID')) {
      throw new PagejsonError('USAGE', error.message, {
        context: error.context,
        cause: error,
        ...(error.hint ? { hint: error.hint } : {}),
      });
    }
    throw error;
  }
}

/** `--set model=NAME` naming a model the project does not define is a usage error (exit 2), as in generate. */
async function requireKnownModel(
  original: ApiConfig,
  config: ApiConfig,
  file: string,
  settings: Pick<ProjectSettings, 'models'>,
): Promise<void> {
  if (config.model === original.model) return;
  const { checkConfigAgainstProject } = await import('../../core/registry/index.js');
  const [unknown] = checkConfigAgainstProject(config, file, settings);
  if (unknown) throw new PagejsonError('USAGE', unknown.message, unknown.hint ? { hint: unknown.hint } : {});
}
