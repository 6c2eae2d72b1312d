import { basename } from 'node:path';
import { scraperByNumber } from '../fetch/index.js';
import { selectorCostProblem, validateSelector, validateTransform } from '../extract/index.js';
import {
  actionVariableNames,
  callerVariableNames,
  jsonPath,
  monitorProblems,
  placeholderNames,
  safePatternProblem,
  templateProblems,
  type ApiConfig,
  type ConfigProblem,
  type Field,
  type ProjectSettings,
} from '../config/index.js';
import { closest } from '../shared/index.js';
import { actionProblems } from './actions-rules.js';
import { paginationProblems } from './pagination-rules.js';
import { loginProblems } from './login-rules.js';

/**
 * Rules that span fields and that JSON Schema cannot express. They return problems rather than throwing,
 * so `pagejson validate` reports all of them at once, each with its JSON path and what to do.
 */
export function checkConfigRules(config: ApiConfig, file: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const add = (path: Array<string | number>, message: string, hint: string) => problems.push({ file, path: jsonPath(path), message, hint });

  const stem = basename(file).replace(/\.json$/, '');
  if (stem !== config.apiId) {
    add(
      ['apiId'],
      `apiId "${config.apiId}" does not match the file name "${stem}.json"`,
      `rename the file to ${config.apiId}.json or set apiId to "${stem}"`,
    );
  }

  const scraper = scraperByNumber(config.scraper);
  if (config.session && !scraper.supportsSession) {
    add(
      ['session'],
      `use session is only available with scraper 1, not scraper ${config.scraper} (${scraper.name})`,
      'set "session": false or "scraper": 1',
    );
  }

  for (const message of templateProblems(config.url))
    add(['url'], message, 'placeholders {{ name }} may stand only in path segments and query parameter values');
  const names = [...placeholderNames(config.url), ...actionVariableNames(config.actions)];
  for (const name of callerVariableNames(config)) {
    // Own entries only: `{{ constructor }}` must not find Object.prototype.constructor.
    if (!Object.hasOwn(config.variables, name))
      add(['variables'], `placeholder {{ ${name} }} has no entry in variables`, `add "variables": { "${name}": { "example": "…" } }`);
  }
  for (const [name, variable] of Object.entries(config.variables)) {
    if (!names.includes(name))
      add(
        ['variables', name],
        `variable "${name}" has no {{ ${name} }} placeholder in the url`,
        'remove the variable or put its placeholder in the url',
      );
    // Refused here and so at load: a pattern that could run slowly never reaches a request (safe-pattern.ts).
    const problem = variable.pattern === undefined ? null : safePatternProblem(variable.pattern, 'variable');
    if (problem) add(['variables', name, 'pattern'], `pattern ${problem.message}`, problem.hint);
  }

  const sectionProblem = validateSelector(config.selector);
  if (sectionProblem)
    add(['selector'], `CSS selector does not parse: ${sectionProblem}`, 'fix the selector, or leave it out for the default "body"');
  else checkSelectorCost(config.selector, ['selector'], add);

  checkFields(config.structure, ['structure'], add);
  for (const problem of monitorProblems(config)) add(problem.path, problem.message, problem.hint);
  for (const problem of actionProblems(config)) add(problem.path, problem.message, problem.hint);
  for (const problem of paginationProblems(config)) add(problem.path, problem.message, problem.hint);
  for (const problem of loginProblems(config)) add(problem.path, problem.message, problem.hint);
  return problems;
}

type AddProblem = (path: Array<string | number>, message: string, hint: string) => void;

function checkFields(fields: Field[], at: Array<string | number>, add: AddProblem): void {
  const seen = new Map<string, number>();
  fields.forEach((field, index) => {
    const path = [...at, index];
    const earlier = seen.get(field.name);
    if (earlier !== undefined)
      add(
        [...path, 'name'],
        `duplicate field name "${field.name}" (also at index ${earlier})`,
        'give each field at one level its own name',
      );
    else seen.set(field.name, index);

    if (field.selector !== undefined) {
      const problem = validateSelector(field.selector);
      if (problem)
        add([...path, 'selector'], `CSS selector does not parse: ${problem}`, 'fix the selector; `pagejson edit` tries it on the page');
      else checkSelectorCost(field.selector, [...path, 'selector'], add);
    }
    checkTransforms(field.transform, [...path, 'transform'], add);
    if (field.attribute !== undefined) checkAttribute(field.attribute, [...path, 'attribute'], add);
    if (field.items?.attribute !== undefined) checkAttribute(field.items.attribute, [...path, 'items', 'attribute'], add);

    if (field.type === 'array') {
      if (field.fields && field.items)
        add(
          path,
          `array field "${field.name}" has both fields and items`,
          'use fields for an array of objects, items for an array of scalars',
        );
      if (!field.fields && !field.items)
        add(
          path,
          `array field "${field.name}" needs fields (objects) or items (scalars)`,
          'add "items": { "type": "string" } or a "fields" list',
        );
      if (field.items) checkTransforms(field.items.transform, [...path, 'items', 'transform'], add);
    } else if (field.type === 'object') {
      if (!field.fields || field.fields.length === 0)
        add(path, `object field "${field.name}" needs a non-empty fields list`, 'add the fields of the object');
      if (field.items) add([...path, 'items'], `object field "${field.name}" cannot have items`, 'items belong to array fields');
    } else if (field.fields || field.items) {
      add(path, `${field.type} field "${field.name}" cannot have fields or items`, 'only object and array fields nest');
    }
    if (field.fields) checkFields(field.fields, [...path, 'fields'], add);
  });
}

/** An attribute is a name as HTML writes it (`href`, `data-id`, `xlink:href`), never a selector or an expression. */
const ATTRIBUTE_NAME = /^[A-Za-z_:][A-Za-z0-9_.:-]{0,99}$/;

function checkAttribute(attribute: string, at: Array<string | number>, add: AddProblem): void {
  if (ATTRIBUTE_NAME.test(attribute)) return;
  const bare = attribute.replace(/^[@[\s]+|[\]\s]+$/g, '').split('=')[0] ?? '';
  add(
    at,
    `"${attribute.slice(0, 60)}" is not an attribute name`,
    ATTRIBUTE_NAME.test(bare)
      ? `write just the name: "${bare}"`
      : "write the attribute's name, e.g. href, src, content or datetime; leave attribute out to read the element's text",
  );
}

function checkSelectorCost(selector: string, at: Array<string | number>, add: AddProblem): void {
  const problem = selectorCostProblem(selector);
  if (problem)
    add(
      at,
      `CSS selector is refused: ${problem}`,
      'select the items themselves (e.g. "li") and narrow them with fields, or use :nth-child() instead of :has() over siblings',
    );
}

function checkTransforms(transforms: string[] | undefined, at: Array<string | number>, add: AddProblem): void {
  transforms?.forEach((transform, index) => {
    const problem = validateTransform(transform);
    if (!problem) return;
    // A refused regex says what to write instead (safe-pattern.ts); other problems get the general hint.
    const refused = transform.startsWith('regex:') ? safePatternProblem(transform.slice('regex:'.length), 'transform') : null;
    add(
      [...at, index],
      `transform "${transform}" is invalid: ${problem}`,
      refused?.hint ?? 'regex transforms need exactly one capture group; json paths are dotted names',
    );
  });
}

/** Rules that need the project's settings: a config's model must be one the project can reach. */
export function checkConfigAgainstProject(config: ApiConfig, file: string, settings: Pick<ProjectSettings, 'models'>): ConfigProblem[] {
  const model = config.model;
  if (model === 'heuristic' || model.startsWith('openai:') || Object.hasOwn(settings.models, model)) return [];
  const known = ['heuristic', ...Object.keys(settings.models)];
  const near = closest(model, known);
  return [
    {
      file,
      path: '$.model',
      message: `model "${model}" is not defined in pagejson.json${near ? ` (did you mean "${near}"?)` : ''}`,
      hint: `use one of ${known.join(', ')} or openai:<model>, or add "${model}" under "models" in pagejson.json`,
    },
  ];
}
