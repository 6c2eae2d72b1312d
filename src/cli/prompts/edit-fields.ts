import { FIELD_NAME_PATTERN, FIELD_TYPES, type FieldType } from '../../core/config/constants.js';
import type { ApiConfig, Field } from '../../core/config/schema.js';
import type { EditOperation } from '../../core/edit/operations.js';
import { isCleanAmount, validateSelector } from '../../core/extract/engine/index.js';
import type { MatchSummary } from '../../core/extract/workers/page-probe-types.js';
import { writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import { backChoice, checkbox, confirm, input, select } from './ask.js';
import type { SamplePage } from './edit-sample.js';

/**
 * The field screens of `pagejson edit`: adding a field asks for its selector first and shows, live, how many
 * elements it matches where the field will be read (inside the section, or inside each item of its array)
 * and their first values; then it offers the attributes those elements really have, a type suggested by the
 * values, and the transforms. The attribute and the transforms of an existing field can be changed the same
 * way. Escape in any prompt goes back (ask.ts).
 */
export interface FieldPath {
  path: string;
  field: Field;
}

export function fieldPaths(fields: Field[], prefix = ''): FieldPath[] {
  return fields.flatMap((field) => [{ path: prefix + field.name, field }, ...fieldPaths(field.fields ?? [], `${prefix}${field.name}.`)]);
}

export async function pickField(
  config: ApiConfig,
  message: string,
  filter: (entry: FieldPath) => boolean = () => true,
): Promise<string | undefined> {
  const paths = fieldPaths(config.structure).filter(filter);
  if (paths.length === 0) return undefined;
  return select({
    message,
    pageSize: 15,
    choices: [
      ...paths.map((p) => ({ value: p.path, name: `${p.path}  (${p.field.type}${p.field.attribute ? `, @${p.field.attribute}` : ''})` })),
      backChoice,
    ],
  });
}

export function validName(value: string): true | string {
  return FIELD_NAME_PATTERN.test(value) || 'start with a letter, _ or $; then letters, digits, _, $ or -';
}

const TRANSFORMS = [
  { value: 'trim', description: 'remove spaces around the value' },
  { value: 'number', description: 'read a number: "£1,234.50" → 1234.5' },
  { value: 'integer', description: 'read a whole number' },
  { value: 'boolean', description: 'yes/no, in stock/out of stock → true/false' },
  { value: 'absoluteUrl', description: 'resolve a relative link against the page' },
  { value: 'date', description: 'read a date as ISO 8601' },
  { value: 'availability', description: 'a product\'s availability as its schema.org name: "Auf Lager" → InStock' },
  { value: 'plainText', description: 'HTML in a value as its text: "<p>Tea &amp; cake</p>" → Tea & cake' },
];

function describeMatches(matches: MatchSummary, parent: string, c: ReturnType<typeof colors>): string {
  const where = parent
    ? `${matches.matchedContexts} of ${matches.contexts} ${parent} item${matches.contexts === 1 ? '' : 's'}`
    : `${matches.count} element${matches.count === 1 ? '' : 's'} in the section`;
  const values = matches.values.length > 0 ? `: ${matches.values.map((value) => JSON.stringify(value)).join(', ')}` : '';
  return `${c.cyan(`matches ${where}`)}${values}`;
}

/**
 * A selector's matches where a field of `parent` is read, tried in the page's thread with the extraction
 * budget (edit-sample.ts); undefined without a page, the error's text when the try failed (past the budget).
 */
async function matchesOf(
  config: ApiConfig,
  page: SamplePage,
  parent: string,
  selector: string,
  all = false,
): Promise<MatchSummary | { error: string } | undefined> {
  if (!page.probe) return undefined;
  try {
    return await page.probe.matches(config, parent ? parent.split('.') : [], selector, { all });
  } catch (error) {
    return { error: `the selector could not be tried on the page: ${(error as Error).message}` };
  }
}

/** A selector, tried live where the field will be read; '' for a model field. */
async function askFieldSelector(
  config: ApiConfig,
  page: SamplePage,
  parent: string,
  ctx: CliContext,
  initial?: string,
): Promise<{ selector: string; matches?: MatchSummary }> {
  const c = colors(ctx.stdout, ctx.env);
  for (;;) {
    const selector = (
      await input({
        message: 'CSS selector (empty = a model field, filled by the model at retrieval)',
        ...(initial ? { default: initial } : {}),
      })
    ).trim();
    if (!selector) return { selector: '' };
    const problem = validateSelector(selector);
    if (problem) {
      writeLine(ctx.stdout, c.red(`the selector does not parse: ${problem}`));
      continue;
    }
    const matches = await matchesOf(config, page, parent, selector);
    if (!matches) return { selector };
    if ('error' in matches) {
      writeLine(ctx.stdout, c.red(matches.error));
      if (await confirm({ message: 'Use it anyway?', default: false })) return { selector };
      continue;
    }
    writeLine(ctx.stdout, describeMatches(matches, parent, c));
    if (matches.count > 0) return { selector, matches };
    if (await confirm({ message: 'It matches nothing on this page. Use it anyway?', default: false })) return { selector, matches };
  }
}

/** The element's text, or one of the attributes the matched elements carry (with how many carry it). */
async function askAttribute(matches: MatchSummary | undefined, current?: string): Promise<string> {
  const offered = matches?.attributes.filter((entry) => entry.name !== 'style') ?? [];
  const total = matches?.count ?? 0;
  const choices = [
    { value: '', name: "the element's text" },
    ...offered.map((entry) => ({
      value: entry.name,
      name: `@${entry.name}  (on ${entry.count} of ${total})`,
      description: entry.example ? `e.g. ${JSON.stringify(entry.example)}` : '',
    })),
    ...(current && !offered.some((entry) => entry.name === current) ? [{ value: current, name: `@${current}  (on none of them)` }] : []),
    { value: '\u0000other', name: 'another attribute…' },
    backChoice,
  ];
  const picked = await select({ message: 'Read', choices, default: current ?? '' });
  if (picked !== '\u0000other') return picked;
  return (
    await input({
      message: 'Attribute name',
      validate: (value) => /^[A-Za-z_:][A-Za-z0-9_.:-]*$/.test(value.trim()) || 'an attribute name, e.g. data-id',
    })
  ).trim();
}

/**
 * The type the values suggest: a number only when every value is a clean number (a price with its currency
 * sign is one); a name holding a number ("Model 1250") or a padded code ("007") stays a string.
 */
export function suggestedType(matches: Pick<MatchSummary, 'values'> | undefined, attribute: string): FieldType {
  if (['href', 'src', 'data-src'].includes(attribute)) return 'url';
  if (attribute === 'datetime') return 'date';
  const values = matches?.values ?? [];
  if (values.length > 0 && values.every(isCleanAmount)) return 'number';
  return 'string';
}

async function askTransforms(current: string[] = []): Promise<string[]> {
  const picked = await checkbox({
    message: 'Transforms (space to pick, enter when done)',
    choices: TRANSFORMS.map((transform) => ({ ...transform, checked: current.includes(transform.value) })),
  });
  const custom = current.filter((transform) => !TRANSFORMS.some((known) => known.value === transform));
  const more = (await input({ message: 'regex:… or json:… transforms, comma-separated (empty for none)', default: custom.join(', ') }))
    .split(',')
    .map((transform) => transform.trim())
    .filter(Boolean);
  return [...picked, ...more];
}

export async function addField(config: ApiConfig, page: SamplePage, ctx: CliContext): Promise<EditOperation> {
  const containers = fieldPaths(config.structure).filter((p) => p.field.type === 'object' || (p.field.type === 'array' && !p.field.items));
  const parent =
    containers.length === 0
      ? ''
      : await select({
          message: 'Add where?',
          choices: [{ value: '', name: 'top level' }, ...containers.map((p) => ({ value: p.path, name: `inside ${p.path}` })), backChoice],
        });
  const name = (await input({ message: 'Field name', validate: validName })).trim();
  const { selector, matches } = await askFieldSelector(config, page, parent, ctx);
  const attribute = selector ? await askAttribute(matches) : '';
  const type = (await select({
    message: 'Type',
    default: suggestedType(matches, attribute),
    choices: FIELD_TYPES.map((t) => ({ value: t })),
  })) as FieldType;
  const transform = selector ? await askTransforms() : [];
  return {
    kind: 'add',
    path: parent ? `${parent}.${name}` : name,
    type,
    ...(selector ? { selector } : {}),
    ...(attribute ? { attribute } : {}),
    ...(transform.length ? { transform } : {}),
  };
}

/** The parent path of a field path: `books.price` → `books`. */
const parentOf = (path: string): string => (path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '');

export async function changeAttribute(config: ApiConfig, page: SamplePage, ctx: CliContext): Promise<EditOperation[]> {
  const path = await pickField(
    config,
    'Change what which field reads?',
    (entry) => entry.field.selector !== undefined && !entry.field.fields,
  );
  if (!path) return [];
  const field = fieldPaths(config.structure).find((entry) => entry.path === path)!.field;
  const c = colors(ctx.stdout, ctx.env);
  const tried = await matchesOf(config, page, parentOf(path), field.selector!, field.type === 'array');
  const matches = tried && !('error' in tried) ? tried : undefined;
  if (tried) writeLine(ctx.stdout, 'error' in tried ? c.red(tried.error) : describeMatches(tried, parentOf(path), c));
  const current = field.type === 'array' ? field.items?.attribute : field.attribute;
  const attribute = await askAttribute(matches, current);
  return [{ kind: 'set', key: `${path}.attribute`, value: attribute }];
}

/** A field's selector, tried where that field is read (the same screen as adding one). */
export async function changeSelector(config: ApiConfig, page: SamplePage, ctx: CliContext): Promise<EditOperation[]> {
  const path = await pickField(config, 'Change the selector of which field?');
  if (!path) return [];
  const field = fieldPaths(config.structure).find((entry) => entry.path === path)!.field;
  const { selector } = await askFieldSelector(config, page, parentOf(path), ctx, field.selector);
  return [{ kind: 'set', key: `${path}.selector`, value: selector }];
}

export async function changeTransforms(config: ApiConfig): Promise<EditOperation[]> {
  const path = await pickField(
    config,
    'Change the transforms of which field?',
    (entry) => entry.field.selector !== undefined && !entry.field.fields,
  );
  if (!path) return [];
  const field = fieldPaths(config.structure).find((entry) => entry.path === path)!.field;
  const transform = await askTransforms(field.transform ?? []);
  return [{ kind: 'set', key: `${path}.transform`, value: transform.join(',') }];
}
