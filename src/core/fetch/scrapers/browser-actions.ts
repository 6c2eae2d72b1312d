import type { Locator, Page } from 'playwright-core';
import { actionVerb, describeAction, fillActionText, type Action } from '../../config/index.js';
import { PagejsonError } from '../../shared/index.js';
import { SCROLL_TO_END } from './browser-rounds.js';

/**
 * The runner of a config's `actions` (docs/actions.md; the vocabulary is config/actions.ts) on a Playwright
 * page: each step in order, each given what is left of one time bound, so a step that never succeeds fails in
 * bounded time with an error naming its number and selector. Standalone: any feature that drives a page with
 * these steps (a login's) calls `runActions` with its own page, bound and values.
 */
export interface ActionRunOptions {
  /** Epoch ms by which every step must be done. */
  deadlineAt: number;
  /** The setting the bound comes from, named when a step runs out of it (`fetch.actionsTimeoutMs`). */
  boundSetting: string;
  /** Request values for `{{ name }}` in step text (checked before; filled only as each step runs). */
  values?: Readonly<Record<string, unknown>> | undefined;
  /** Aborted when the fetch is settled from outside: the step's own error then stands as it is. */
  signal?: AbortSignal | undefined;
}

/** Steps that may start a navigation: the next one waits for the new document to be parsed. */
const MAY_NAVIGATE = new Set(['click', 'press', 'select']);

export function actionError(number: string, step: Action, reason: string, hint: string): PagejsonError {
  return new PagejsonError('ACTION_FAILED', `step ${number} (${describeAction(step)}): ${reason}`, {
    context: { step: number, action: describeAction(step) },
    hint,
  });
}

/** Playwright's CSS engine, never its text or XPath engines: selectors mean what they mean in `structure`. */
function css(page: Page, selector: string): Locator {
  return page.locator(`css=${selector}`).first();
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/** Playwright's first line, without its `locator.click: ` prefix or call log. */
function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? text).replace(/^[A-Za-z.]+: /, '').slice(0, 300);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** What a timed-out step found wanting, in words. */
function missed(step: Action): string {
  switch (actionVerb(step)) {
    case 'wait':
      return 'nothing matched';
    case 'click':
      return 'no element it could click matched';
    case 'type':
      return 'no field it could fill matched';
    case 'select':
      return 'no <select> with that option matched';
    default:
      return 'the step did not finish';
  }
}

/** A key pressed on the focused element (waiting for a navigation it starts), or on the page when none is. */
async function press(page: Page, key: string, timeout: number): Promise<void> {
  const focused = page.locator('*:focus');
  if ((await focused.count()) > 0) await focused.first().press(key, { timeout });
  else await page.keyboard.press(key);
}

async function runStep(page: Page, step: Action, timeout: number, options: ActionRunOptions, number: string): Promise<void> {
  const values = options.values ?? {};
  switch (actionVerb(step)) {
    case 'click':
      return css(page, step.click!).click({ timeout });
    case 'wait':
      return css(page, step.wait!).waitFor({ state: 'attached', timeout });
    case 'waitMs':
      return sleep(step.waitMs!, options.signal);
    case 'type':
      return css(page, step.type!).fill(fillActionText(step.text ?? '', values), { timeout });
    case 'press':
      return press(page, step.press!, timeout);
    case 'select':
      await css(page, step.select!).selectOption(fillActionText(step.value ?? '', values), { timeout });
      return;
    case 'scroll':
      await page.evaluate(SCROLL_TO_END);
      return;
    case 'ifExists':
      if ((await page.locator(`css=${step.ifExists!}`).count()) > 0) await runSteps(page, step.then ?? [], options, `${number}.`);
      return;
  }
}

async function runOne(page: Page, step: Action, options: ActionRunOptions, number: string): Promise<void> {
  const left = options.deadlineAt - Date.now();
  const bound = `the ${Math.max(0, left)} ms left of ${options.boundSetting}`;
  const hint = `check the selector on the page (an earlier step may be missing, such as a click on a consent button), or raise ${options.boundSetting} in pagejson.json`;
  if (left <= 0)
    throw actionError(
      number,
      step,
      `no time was left for it (${options.boundSetting})`,
      `raise ${options.boundSetting} in pagejson.json, or remove steps (waitMs) before it`,
    );
  if (step.waitMs !== undefined && step.waitMs > left)
    throw actionError(number, step, `it does not fit in ${bound}`, `shorten the wait, or raise ${options.boundSetting} in pagejson.json`);
  try {
    await runStep(page, step, left, options, number);
    if (MAY_NAVIGATE.has(actionVerb(step)))
      await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, options.deadlineAt - Date.now()) });
  } catch (error) {
    if (options.signal?.aborted || (error instanceof PagejsonError && error.code === 'ACTION_FAILED')) throw error;
    if (isTimeout(error)) throw actionError(number, step, `${missed(step)} within ${bound}`, hint);
    throw actionError(number, step, firstLine(error), 'check that the selector picks the element the step is meant for');
  }
}

async function runSteps(page: Page, steps: readonly Action[], options: ActionRunOptions, prefix: string): Promise<void> {
  for (let index = 0; index < steps.length; index += 1) await runOne(page, steps[index]!, options, `${prefix}${index + 1}`);
}

/** Runs the steps in order on the page; the first that fails ends the run with ACTION_FAILED naming it. */
export function runActions(page: Page, actions: readonly Action[], options: ActionRunOptions): Promise<void> {
  return runSteps(page, actions, options, '');
}
