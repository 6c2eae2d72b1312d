/**
 * The light half of `actions` (actions.ts holds the zod schema): the step type, the variables in step text,
 * rendering them, and a step in words. No zod here, so URL templates and the CLI's start path can use it.
 */

export const ACTION_VERBS = ['click', 'wait', 'waitMs', 'type', 'press', 'select', 'scroll', 'ifExists'] as const;
export type ActionVerb = (typeof ACTION_VERBS)[number];

/** Steps in all, nested ones included: a page is driven, not scripted (docs/actions.md, limits). */
export const MAX_ACTIONS = 50;

/** One step as checked by ActionSchema (actions.ts): exactly one verb, with its companion key. */
export interface Action {
  click?: string | undefined;
  wait?: string | undefined;
  waitMs?: number | undefined;
  type?: string | undefined;
  text?: string | undefined;
  press?: string | undefined;
  select?: string | undefined;
  value?: string | undefined;
  scroll?: 'bottom' | undefined;
  ifExists?: string | undefined;
  then?: Action[] | undefined;
}

/** `{{ name }}` in step text: the URL template's placeholder syntax (url-template.ts), kept here to avoid a cycle. */
const TEXT_PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Steps in all, nested ones included. */
export function countActions(actions: readonly Action[]): number {
  let count = 0;
  for (const step of actions) count += 1 + (step.then ? countActions(step.then) : 0);
  return count;
}

/** The verb of a checked step. */
export function actionVerb(step: Action): ActionVerb {
  return ACTION_VERBS.find((verb) => step[verb] !== undefined) ?? 'wait';
}

/** The texts of a step that may hold variables. */
function templatedTexts(step: Action): string[] {
  return [step.text, step.value].filter((text): text is string => text !== undefined);
}

/** Names of the request variables the steps' text uses, in order of first appearance (nested steps included). */
export function actionVariableNames(actions: readonly Action[] | undefined): string[] {
  const names: string[] = [];
  const visit = (steps: readonly Action[]): void => {
    for (const step of steps) {
      for (const text of templatedTexts(step))
        for (const match of text.matchAll(TEXT_PLACEHOLDER)) if (!names.includes(match[1]!)) names.push(match[1]!);
      if (step.then) visit(step.then);
    }
  };
  if (actions) visit(actions);
  return names;
}

/** A `{{` or `}}` that is not part of a well-formed placeholder (validate reports it). */
export function malformedPlaceholder(text: string): boolean {
  return /\{\{|\}\}/.test(text.replace(TEXT_PLACEHOLDER, ''));
}

/**
 * A step's text with the request's values in it, filled when the step runs (so errors and logs keep showing
 * the text as written). Values are checked before (checkVariableValues: strings, pattern, length); they are
 * typed into the page as they are, never interpreted.
 */
export function fillActionText(text: string, values: Readonly<Record<string, unknown>>): string {
  return text.replace(TEXT_PLACEHOLDER, (_whole, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    return typeof value === 'string' ? value : '';
  });
}

/**
 * The part of a cache key the steps' variables make: two requests that type different text into the same
 * page are two answers. Empty when the steps use no variable, so a static endpoint keeps its one key.
 */
export function actionValuesKey(actions: readonly Action[] | undefined, values: Readonly<Record<string, unknown>>): string {
  const names = actionVariableNames(actions);
  if (names.length === 0) return '';
  return `\n${JSON.stringify(names.map((name) => [name, Object.hasOwn(values, name) ? values[name] : null]))}`;
}

/**
 * A step in words, as errors, `show` and the dashboard name it. Text is shown as written in the config (its
 * `{{ q }}`), never with a request's values: those may be secrets (a login's password).
 */
export function describeAction(step: Action): string {
  const q = (text: string): string => JSON.stringify(text);
  switch (actionVerb(step)) {
    case 'click':
      return `click ${q(step.click!)}`;
    case 'wait':
      return `wait for ${q(step.wait!)}`;
    case 'waitMs':
      return `wait ${step.waitMs} ms`;
    case 'type':
      return `type ${q(step.text ?? '')} into ${q(step.type!)}`;
    case 'press':
      return `press ${step.press}`;
    case 'select':
      return `select ${q(step.value ?? '')} in ${q(step.select!)}`;
    case 'scroll':
      return 'scroll to the bottom';
    case 'ifExists':
      return `if ${q(step.ifExists!)} is there: ${(step.then ?? []).map(describeAction).join(', then ')}`;
  }
}

/** Every step in words with its number (`2.1` inside the second step's `then`), for `show` and the dashboard. */
export function describeActions(actions: readonly Action[], prefix = ''): Array<{ step: string; text: string }> {
  return actions.flatMap((step, index) => {
    const number = `${prefix}${index + 1}`;
    const own = { step: number, text: step.then ? `if ${JSON.stringify(step.ifExists)} is there:` : describeAction(step) };
    return step.then ? [own, ...describeActions(step.then, `${number}.`)] : [own];
  });
}

/**
 * The `steps` of a fetch that reads a config's page as its endpoint sees it (validate --live, the editors'
 * live samples, heal): its actions, with these values, on scraper 3. The retrieval's own fetch also runs the
 * rounds of pagination (retrieval/browser-rounds.ts).
 */
export function actionSteps(
  config: { scraper: number; actions?: readonly Action[] | undefined },
  values: Readonly<Record<string, unknown>>,
): { steps?: { actions: readonly Action[]; values: Readonly<Record<string, unknown>> } } {
  if (config.scraper !== 3 || !config.actions || config.actions.length === 0) return {};
  return { steps: { actions: config.actions, values } };
}
