import { createTwoFilesPatch } from 'diff';
import type { Project } from '../../core/config/project.js';
import { FIELD_TYPES } from '../../core/config/constants.js';
import { countActions } from '../../core/config/action-text.js';
import { describePagination } from '../../core/config/pagination.js';
import type { ApiConfig } from '../../core/config/schema.js';
import { describeChanges } from '../../core/edit/describe-changes.js';
import { problemsOf, saveEditedConfig, textOf, type EditableConfig } from '../../core/edit/config-file.js';
import { applyEdit, type EditOperation } from '../../core/edit/operations.js';
import { scheduleProblem } from '../../core/config/schedule.js';
import { writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import { renderStructureTree } from '../tree.js';
import { backChoice, confirm, GoBack, input, select } from './ask.js';
import { addField, changeAttribute, changeSelector, changeTransforms, fieldPaths, pickField, validName } from './edit-fields.js';
import { askSelector, loadSamplePage, sampleData, type SamplePage } from './edit-sample.js';
import { editActions, editPagination } from './edit-pages.js';
import { editUrlVariables } from './edit-url.js';

/**
 * The interactive editor of `pagejson edit <apiId>` (and of `generate`'s "edit before saving"): a menu loop
 * over the config that shows the structure with a live sample from the page (fetched once per session),
 * applies each change through the same operations as the flags, and on save validates, bumps the revision,
 * writes atomically and shows the diff. Escape in a sub-menu returns to the menu; Escape or Quit at the menu
 * with unsaved changes asks whether to save or discard them; Ctrl-C leaves at once, writing nothing.
 *
 * `draft`: the config is not on disk yet (generate). Save then validates and hands the config back without
 * writing or bumping the revision: the caller charges and writes it, once.
 */
export interface EditSessionOptions {
  /** The page already fetched (generate): not fetched again. */
  page?: SamplePage;
  draft?: boolean;
}

export type EditOutcome = { outcome: 'saved'; config: ApiConfig } | { outcome: 'quit' };

export async function runInteractiveEdit(
  editable: EditableConfig,
  project: Project,
  ctx: CliContext,
  options: EditSessionOptions = {},
): Promise<EditOutcome> {
  const page = options.page ?? (await loadSamplePage(editable.original, project, ctx));
  try {
    return await editLoop(editable, project, ctx, options, page);
  } finally {
    // The page's thread (edit-sample.ts) goes with the session.
    await page.probe?.close();
  }
}

async function editLoop(
  editable: EditableConfig,
  project: Project,
  ctx: CliContext,
  options: EditSessionOptions,
  page: SamplePage,
): Promise<EditOutcome> {
  const c = colors(ctx.stdout, ctx.env);
  let config = editable.original;
  if (page.error) writeLine(ctx.stdout, c.yellow(`no live sample: ${page.error}`));
  const dirty = () => options.draft === true || textOf(editable, config) !== textOf(editable, editable.original);

  const apply = (operation: EditOperation): void => {
    try {
      config = applyEdit(config, operation);
    } catch (error) {
      writeLine(ctx.stdout, c.red(`not changed: ${(error as Error).message}`));
    }
  };
  const trySave = async (): Promise<EditOutcome | undefined> => {
    const saved = options.draft ? await confirmDraft(editable, config, ctx) : await save(editable, config, ctx, project.dataDir);
    return saved ? { outcome: 'saved', config: saved } : undefined;
  };

  for (;;) {
    writeLine(ctx.stdout);
    writeLine(ctx.stdout, c.bold(`${config.apiId}  ${config.url}`));
    const sample = await sampleData(config, page);
    writeLine(
      ctx.stdout,
      renderStructureTree(config.structure, sample.data, { name: (t) => c.bold(t), dim: (t) => c.dim(t), value: (t) => c.green(t) }),
    );
    if (sample.error) writeLine(ctx.stdout, c.yellow(`no live sample: ${sample.error}`));
    let action: string;
    try {
      action = await select({
        message: dirty() ? 'What next? (unsaved changes; Esc to leave)' : 'What next? (Esc to leave)',
        pageSize: 22,
        choices: menu(config, options.draft === true),
      });
    } catch (error) {
      if (!(error instanceof GoBack)) throw error;
      action = 'quit';
    }
    try {
      switch (action) {
        case 'add':
          apply(await addField(config, page, ctx));
          break;
        case 'remove': {
          const path = await pickField(config, 'Remove which field?');
          if (path && (await confirm({ message: `Remove ${path}?`, default: false }))) apply({ kind: 'remove', path });
          break;
        }
        case 'rename': {
          const path = await pickField(config, 'Rename which field?');
          if (path) apply({ kind: 'rename', path, name: (await input({ message: 'New name', validate: validName })).trim() });
          break;
        }
        case 'move': {
          const path = await pickField(config, 'Move which field?');
          if (path) apply(await chooseMove(config, path));
          break;
        }
        case 'type': {
          const path = await pickField(config, 'Change the type of which field?');
          if (path)
            apply({
              kind: 'set',
              key: `${path}.type`,
              value: await select({ message: 'Type', choices: [...FIELD_TYPES.map((t) => ({ value: t })), backChoice] }),
            });
          break;
        }
        case 'selector':
          for (const op of await changeSelector(config, page, ctx)) apply(op);
          break;
        case 'attribute':
          for (const op of await changeAttribute(config, page, ctx)) apply(op);
          break;
        case 'transform':
          for (const op of await changeTransforms(config)) apply(op);
          break;
        case 'nest': {
          const path = await pickField(config, 'Nest which field?');
          const containers = fieldPaths(config.structure).filter(
            (p) => p.field.type === 'object' || (p.field.type === 'array' && !p.field.items),
          );
          if (path && containers.length > 0) {
            apply({
              kind: 'nest',
              path,
              into: await select({
                message: 'Into which object or array field?',
                choices: [...containers.map((p) => ({ value: p.path })), backChoice],
              }),
            });
          } else if (path) writeLine(ctx.stdout, c.yellow('there is no object or array-of-objects field to nest into: add one first'));
          break;
        }
        case 'url':
          for (const op of await editUrlVariables(config)) apply(op);
          break;
        case 'caching':
        case 'session':
          apply({ kind: 'set', key: action, value: String(!config[action]) });
          break;
        case 'status':
          apply({ kind: 'set', key: 'status', value: config.status === 'active' ? 'inactive' : 'active' });
          break;
        case 'scraper': {
          const scraper = await select<string>({
            message: 'Scraper',
            default: String(config.scraper),
            choices: [
              { value: '1', name: '1  plain HTTP (session capable)' },
              { value: '2', name: '2  Crawlee HTTP with browser fingerprints' },
              { value: '3', name: '3  headless Chromium (renders JavaScript)' },
              backChoice,
            ],
          });
          if (scraper !== '1' && config.session) apply({ kind: 'set', key: 'session', value: 'false' });
          apply({ kind: 'set', key: 'scraper', value: scraper });
          break;
        }
        case 'model':
          apply({
            kind: 'set',
            key: 'model',
            value: await input({
              message: 'Model (heuristic, a name from pagejson.json models, or openai:<model>)',
              default: config.model,
            }),
          });
          break;
        case 'section':
          apply({
            kind: 'set',
            key: 'selector',
            value: await askSelector(page, ctx, { message: 'Section CSS selector', default: config.selector }),
          });
          break;
        case 'rule':
          apply({
            kind: 'set',
            key: 'rule',
            value: await input({ message: 'Data extraction rule (empty for none)', default: config.rule ?? '' }),
          });
          break;
        case 'monitor': {
          const every = await input({
            message: 'Refresh every (e.g. 15m, 1h, or a cron expression in UTC; empty = no monitor)',
            default: config.monitor?.every ?? '',
          });
          apply({ kind: 'set', key: 'monitor.every', value: every });
          const problem = every.trim() ? scheduleProblem(every) : undefined;
          if (problem) writeLine(ctx.stdout, c.yellow(`validate will refuse this schedule: ${problem}`));
          break;
        }
        case 'pagination':
          for (const op of await editPagination(config, page, ctx)) apply(op);
          break;
        case 'actions':
          for (const op of await editActions(config, page, ctx)) apply(op);
          break;
        case 'save': {
          const saved = await trySave();
          if (saved) return saved;
          break;
        }
        case 'quit': {
          if (!dirty()) return { outcome: 'quit' };
          const leave = await select({
            message: options.draft ? 'Leave without saving this new endpoint?' : 'You have unsaved changes',
            choices: [
              { value: 'save', name: options.draft ? 'Save it' : 'Save them' },
              { value: 'discard', name: options.draft ? 'Discard it (nothing is written or charged)' : 'Discard them' },
              { value: 'stay', name: 'Keep editing' },
            ],
          });
          if (leave === 'discard') return { outcome: 'quit' };
          if (leave === 'save') {
            const saved = await trySave();
            if (saved) return saved;
          }
          break;
        }
      }
    } catch (error) {
      // Escape in a sub-menu: back to the menu, nothing changed by the step left.
      if (!(error instanceof GoBack)) throw error;
    }
  }
}

function menu(config: ApiConfig, draft: boolean): Array<{ value: string; name: string }> {
  return [
    { value: 'add', name: 'Add a field' },
    { value: 'remove', name: 'Remove a field' },
    { value: 'rename', name: 'Rename a field' },
    { value: 'move', name: 'Move a field' },
    { value: 'type', name: "Change a field's type" },
    { value: 'selector', name: "Change a field's selector" },
    { value: 'attribute', name: 'Change what a field reads (text or an attribute)' },
    { value: 'transform', name: "Change a field's transforms" },
    { value: 'nest', name: 'Nest a field into an object or array' },
    { value: 'url', name: 'Dynamic variables: path segments and query parameters' },
    { value: 'caching', name: `Caching: ${config.caching ? 'enabled' : 'disabled'} (toggle)` },
    ...(config.scraper === 1 ? [{ value: 'session', name: `Use session: ${config.session ? 'on' : 'off'} (toggle)` }] : []),
    { value: 'status', name: `Status: ${config.status} (toggle)` },
    { value: 'scraper', name: `Scraper: ${config.scraper}` },
    { value: 'model', name: `Model: ${config.model}` },
    { value: 'section', name: `Section selector: ${config.selector}` },
    { value: 'rule', name: `Rule: ${config.rule ?? '(none)'}` },
    { value: 'monitor', name: `Monitor: ${config.monitor ? `every ${config.monitor.every}` : 'off'}` },
    { value: 'pagination', name: `Pagination: ${config.pagination ? describePagination(config.pagination) : 'off'}` },
    { value: 'actions', name: `Browser actions: ${config.actions?.length ? `${countActions(config.actions)} steps` : 'none'}` },
    { value: 'save', name: draft ? 'Save this endpoint' : 'Save' },
    { value: 'quit', name: draft ? 'Cancel' : 'Quit' },
  ];
}

async function chooseMove(config: ApiConfig, path: string): Promise<EditOperation> {
  const parent = path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '';
  const siblings = parent ? (fieldPaths(config.structure).find((p) => p.path === parent)?.field.fields ?? []) : config.structure;
  const current = siblings.findIndex((f) => f.name === path.split('.').pop()) + 1;
  const choice = await select({
    message: `Move ${path} (now ${current} of ${siblings.length})`,
    choices: [{ value: 'up', name: 'Up one' }, { value: 'down', name: 'Down one' }, { value: 'to', name: 'To a position…' }, backChoice],
  });
  const position =
    choice === 'up'
      ? Math.max(1, current - 1)
      : choice === 'down'
        ? Math.min(siblings.length, current + 1)
        : Number(
            await input({
              message: `Position (1-${siblings.length})`,
              validate: (v) =>
                (/^[0-9]+$/.test(v) && Number(v) >= 1 && Number(v) <= siblings.length) || `a number from 1 to ${siblings.length}`,
            }),
          );
  return { kind: 'move', path, position };
}

/** generate's draft: checked as `validate` would, then handed back to be charged and written once. */
async function confirmDraft(editable: EditableConfig, config: ApiConfig, ctx: CliContext): Promise<ApiConfig | undefined> {
  const c = colors(ctx.stdout, ctx.env);
  const problems = problemsOf(editable.file, config, editable.settings);
  if (problems.length > 0) {
    for (const p of problems) writeLine(ctx.stdout, c.red(`${p.path}: ${p.message}${p.hint ? ` (${p.hint})` : ''}`));
    return undefined;
  }
  return config;
}

/** `keepIn`: the data dir, where the revision being replaced is kept (the dashboard lists them). */
async function save(editable: EditableConfig, config: ApiConfig, ctx: CliContext, keepIn: string): Promise<ApiConfig | undefined> {
  const c = colors(ctx.stdout, ctx.env);
  const before = editable.original;
  const next = { ...config, revision: before.revision + 1 };
  if (textOf(editable, config) === textOf(editable, before)) {
    writeLine(ctx.stdout, 'nothing to save');
    return undefined;
  }
  const problems = problemsOf(editable.file, next, editable.settings);
  if (problems.length > 0) {
    for (const p of problems) writeLine(ctx.stdout, c.red(`${p.path}: ${p.message}${p.hint ? ` (${p.hint})` : ''}`));
    return undefined;
  }
  for (const change of describeChanges(before, next)) writeLine(ctx.stdout, `  ${c.cyan('•')} ${change.text}`);
  const patch = createTwoFilesPatch(
    `${config.apiId}.json (revision ${before.revision})`,
    `${config.apiId}.json (revision ${next.revision})`,
    editable.text,
    textOf(editable, next),
    undefined,
    undefined,
    { context: 2 },
  );
  for (const line of patch.split('\n').slice(2)) {
    writeLine(ctx.stdout, line.startsWith('+') ? c.green(line) : line.startsWith('-') ? c.red(line) : line);
  }
  if (!(await confirm({ message: `Save revision ${next.revision}?`, default: true }))) return undefined;
  await saveEditedConfig(editable, next, keepIn);
  writeLine(ctx.stdout, c.green(`saved ${editable.file} (revision ${next.revision})`));
  return next;
}
