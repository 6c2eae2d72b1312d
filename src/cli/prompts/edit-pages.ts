import { actionVariableNames, describeActions, type Action, type ActionVerb } from '../../core/config/action-text.js';
import { DEFAULT_MAX_PAGES, describePagination, MAX_PAGES, MAX_ITEMS, type PaginationSettings } from '../../core/config/pagination.js';
import { MAX_ACTIONS, MAX_WAIT_MS, PRESS_KEY_PATTERN } from '../../core/config/actions.js';
import type { ApiConfig } from '../../core/config/schema.js';
import { placeholderNames } from '../../core/config/url-template.js';
import type { EditOperation } from '../../core/edit/operations.js';
import { writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import { backChoice, confirm, input, select } from './ask.js';
import { askSelector, type SamplePage } from './edit-sample.js';

/**
 * The interactive editor's pagination and browser-action menus (docs/pagination.md, docs/actions.md). They
 * only gather answers: each returns the same `--set` operations the flags take (pagination.next=…,
 * actions=[…]), so the checks, the messages and the edit summary are the flags' own. Selectors are tried on
 * the session's page before they are accepted, as the field editors do.
 */

const SCRAPER_3_ONLY = 'validate will refuse this until the scraper is 3 (Scraper in the menu): only a browser can click and scroll';

function set(key: string, value: string): EditOperation {
  return { kind: 'set', key, value };
}

function wholeNumber(min: number, max: number, optional: boolean): (value: string) => true | string {
  return (value) =>
    (optional && value.trim() === '') ||
    (/^[0-9]+$/.test(value.trim()) && Number(value) >= min && Number(value) <= max) ||
    `a whole number from ${min} to ${max}${optional ? ', or empty for none' : ''}`;
}

/** Pagination: its kind and what the kind needs, then its limits; or off. */
export async function editPagination(config: ApiConfig, page: SamplePage, ctx: CliContext): Promise<EditOperation[]> {
  const current = config.pagination;
  const kind = await select<string>({
    message: `Pagination (now: ${current ? describePagination(current) : 'off, one page'})`,
    choices: [
      { value: 'next', name: 'Follow the next-page link (scrapers 1, 2 and 3)' },
      { value: 'variable', name: 'Count a URL variable up, such as {{ page }} (scrapers 1, 2 and 3)' },
      { value: 'loadMore', name: 'Click a "Load more" button until nothing new appears (scraper 3)' },
      { value: 'scroll', name: 'Scroll to the end until nothing new appears (scraper 3)' },
      ...(current ? [{ value: 'limits', name: 'Change its limits (pages, items)' }] : []),
      ...(current ? [{ value: 'off', name: 'Off: read one page' }] : []),
      backChoice,
    ],
  });
  if (kind === 'off') return [set('pagination', 'off')];
  const kindOps = kind === 'limits' ? [] : await paginationKind(config, kind, page, ctx);
  if (kindOps === undefined) return [];
  if ((kind === 'loadMore' || kind === 'scroll') && config.scraper !== 3)
    writeLine(ctx.stdout, colors(ctx.stdout, ctx.env).yellow(SCRAPER_3_ONLY));
  return [...kindOps, ...(await paginationLimits(current))];
}

async function paginationKind(config: ApiConfig, kind: string, page: SamplePage, ctx: CliContext): Promise<EditOperation[] | undefined> {
  const current = config.pagination;
  switch (kind) {
    case 'next':
      return [
        set(
          'pagination.next',
          await askSelector(page, ctx, { message: 'CSS selector of the next-page link', default: current?.next ?? 'a[rel=next]' }),
        ),
      ];
    case 'loadMore':
      return [
        set(
          'pagination.loadMore',
          await askSelector(page, ctx, {
            message: 'CSS selector of the "Load more" button',
            ...(current?.loadMore ? { default: current.loadMore } : {}),
          }),
        ),
      ];
    case 'scroll':
      return [set('pagination.scroll', 'true')];
    default:
      return pageVariable(config, ctx);
  }
}

/** The page variable must already be in the URL: it is one of the URL's variables that pagination fills. */
async function pageVariable(config: ApiConfig, ctx: CliContext): Promise<EditOperation[] | undefined> {
  const names = placeholderNames(config.url);
  if (names.length === 0) {
    writeLine(
      ctx.stdout,
      colors(ctx.stdout, ctx.env).yellow(
        'the URL has no variable to count: make the page number a variable first (Dynamic variables in the menu)',
      ),
    );
    return undefined;
  }
  const variable = await select<string>({
    message: 'Which URL variable is the page number?',
    choices: [...names.map((name) => ({ value: name })), backChoice],
  });
  const start = await input({
    message: 'First page number',
    default: String(config.pagination?.start ?? 1),
    validate: wholeNumber(0, 1_000_000, false),
  });
  return [set('pagination.variable', variable), set('pagination.start', start.trim())];
}

async function paginationLimits(current: PaginationSettings | undefined): Promise<EditOperation[]> {
  const maxPages = await input({
    message: `Pages (or rounds of click/scroll) at most, 1-${MAX_PAGES}`,
    default: String(current?.maxPages ?? DEFAULT_MAX_PAGES),
    validate: wholeNumber(1, MAX_PAGES, false),
  });
  const maxItems = await input({
    message: `Stop at this many items (empty for no item limit)`,
    default: current?.maxItems === undefined ? '' : String(current.maxItems),
    validate: wholeNumber(1, MAX_ITEMS, true),
  });
  return [set('pagination.maxPages', maxPages.trim()), set('pagination.maxItems', maxItems.trim() === '' ? 'off' : maxItems.trim())];
}

const VERB_CHOICES: Array<{ value: ActionVerb; name: string }> = [
  { value: 'click', name: 'click: click an element' },
  { value: 'wait', name: 'wait: wait until an element is there' },
  { value: 'waitMs', name: 'waitMs: wait a number of milliseconds' },
  { value: 'type', name: 'type: type text into a field (may use {{ variable }})' },
  { value: 'press', name: 'press: press a key (Enter, Tab, ArrowDown…)' },
  { value: 'select', name: 'select: choose an option of a <select>' },
  { value: 'scroll', name: 'scroll: scroll to the bottom' },
  { value: 'ifExists', name: 'ifExists: steps run only if an element is there (consent walls)' },
];

/** Browser actions: the list shown as steps, then add, remove or clear, until Done; one `actions=[…]` operation. */
export async function editActions(config: ApiConfig, page: SamplePage, ctx: CliContext): Promise<EditOperation[]> {
  const c = colors(ctx.stdout, ctx.env);
  if (config.scraper !== 3) writeLine(ctx.stdout, c.yellow(SCRAPER_3_ONLY));
  let steps: Action[] = [...(config.actions ?? [])];
  for (;;) {
    writeLine(ctx.stdout, steps.length === 0 ? c.dim('no actions: the page is read as it loads') : '');
    for (const { step, text } of describeActions(steps)) writeLine(ctx.stdout, `  ${c.cyan(step)}  ${text}`);
    const choice = await select<string>({
      message: `Actions (${steps.length} of at most ${MAX_ACTIONS})`,
      choices: [
        { value: 'add', name: 'Add a step at the end' },
        ...(steps.length > 0 ? [{ value: 'remove', name: 'Remove a step' }] : []),
        ...(steps.length > 0 ? [{ value: 'clear', name: 'Remove them all' }] : []),
        { value: 'done', name: 'Done' },
      ],
    });
    if (choice === 'done') break;
    if (choice === 'clear') steps = [];
    if (choice === 'add') steps = [...steps, await askStep(page, ctx, true)];
    if (choice === 'remove') {
      const index = await select<number>({
        message: 'Remove which step?',
        // One choice per top-level step (a step inside an ifExists goes with it): the choice's index is the step's.
        choices: describeActions(steps)
          .filter((entry) => !entry.step.includes('.'))
          .map((entry, index) => ({ value: index, name: `${entry.step}  ${entry.text}` })),
      });
      steps = steps.filter((_step, position) => position !== index);
    }
  }
  const unchanged = JSON.stringify(steps) === JSON.stringify(config.actions ?? []);
  if (unchanged) return [];
  return [...(await declareVariables(config, steps)), set('actions', steps.length === 0 ? 'off' : JSON.stringify(steps))];
}

/** A `{{ name }}` typed into a step needs an entry in `variables`: its example is asked for here, once. */
async function declareVariables(config: ApiConfig, steps: readonly Action[]): Promise<EditOperation[]> {
  const operations: EditOperation[] = [];
  for (const name of actionVariableNames(steps)) {
    if (Object.hasOwn(config.variables, name)) continue;
    const example = await input({ message: `Example value of {{ ${name} }} (callers send ${name}; run, test and the samples use this)` });
    operations.push(set(`variables.${name}.example`, example));
  }
  return operations;
}

async function askStep(page: SamplePage, ctx: CliContext, allowCondition: boolean): Promise<Action> {
  const verb = await select<ActionVerb>({
    message: 'Which step?',
    choices: [...VERB_CHOICES.filter((choice) => allowCondition || choice.value !== 'ifExists'), backChoice] as Array<{
      value: ActionVerb;
      name: string;
    }>,
  });
  const target = (message: string): Promise<string> => askSelector(page, ctx, { message });
  switch (verb) {
    case 'click':
      return { click: await target('CSS selector of the element to click') };
    case 'wait':
      return { wait: await target('CSS selector to wait for') };
    case 'waitMs':
      return {
        waitMs: Number((await input({ message: 'Milliseconds', default: '1000', validate: wholeNumber(0, MAX_WAIT_MS, false) })).trim()),
      };
    case 'type':
      return {
        type: await target('CSS selector of the field'),
        text: await input({ message: 'Text to type (a request variable is written {{ q }})' }),
      };
    case 'press':
      return {
        press: (
          await input({
            message: 'Key',
            default: 'Enter',
            validate: (v) => PRESS_KEY_PATTERN.test(v.trim()) || 'a key as Playwright names it: Enter, Tab, ArrowDown, a, Control+A',
          })
        ).trim(),
      };
    case 'select':
      return { select: await target('CSS selector of the <select>'), value: await input({ message: 'Option value to choose' }) };
    case 'scroll':
      return { scroll: 'bottom' };
    case 'ifExists': {
      const when = await target('CSS selector that must be there (such as a consent banner)');
      const then: Action[] = [await askStep(page, ctx, false)];
      while (await confirm({ message: `Another step if ${JSON.stringify(when)} is there?`, default: false }))
        then.push(await askStep(page, ctx, false));
      return { ifExists: when, then };
    }
  }
}
