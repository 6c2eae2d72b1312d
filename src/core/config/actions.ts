import { z } from 'zod';
import { ACTION_VERBS, countActions, MAX_ACTIONS, type Action, type ActionVerb } from './action-text.js';

export { ACTION_VERBS, MAX_ACTIONS } from './action-text.js';

/**
 * `actions` of a config (docs/actions.md): browser steps scraper 3 runs, in order, after the page loaded and
 * before it is read. The vocabulary is the public contract of issue 34 and is meant to be reused by other
 * features that drive a page (a login's steps), so it stands alone: this module holds the schema,
 * action-text.ts the step type, the variables in step text and the words a step is shown with (zod-free), and
 * the runner is `runActions` in src/core/fetch/scrapers/browser-actions.ts.
 *
 * - `{ "click": sel }`, `{ "wait": sel }` (until present), `{ "waitMs": n }`, `{ "type": sel, "text": s }`,
 *   `{ "press": key }`, `{ "select": sel, "value": v }`, `{ "scroll": "bottom" }`,
 *   `{ "ifExists": sel, "then": [...] }` (only when `sel` matches at that moment: consent walls).
 * - `text` and `value` may hold request variables (`"{{ q }}"`), checked like URL variables.
 * - At most MAX_ACTIONS steps in all (those inside `then` included).
 *
 * One object with every key optional rather than a union of eight: a typo then gets "unknown key" with the
 * nearest name (a union only says nothing matched). "Exactly one verb" is a refinement here and a `oneOf` in
 * the published JSON Schema, as for `pagination` (pagination.ts).
 */

/** Longest single `waitMs`; the total time bound (fetch.actionsTimeoutMs) applies on top. */
export const MAX_WAIT_MS = 60_000;
export const MAX_SELECTOR_LENGTH = 1_000;
export const MAX_TEXT_LENGTH = 2_000;

/**
 * Keys Playwright's `keyboard.press` understands: a key name (`Enter`, `ArrowDown`, `a`) after optional
 * modifiers (`Control+A`, `Shift+Tab`). Anything else would fail on the page with a less helpful message.
 */
export const PRESS_KEY_PATTERN = /^(?:(?:Shift|Control|Alt|Meta|ControlOrMeta)\+){0,3}(?:[A-Za-z][A-Za-z0-9]{0,24}|[!-~])$/;

const Selector = z.string().min(1).max(MAX_SELECTOR_LENGTH);
const Text = z.string().max(MAX_TEXT_LENGTH);

/** The keys each verb needs beside it, and which keys belong to which verb. */
const COMPANIONS: Readonly<Record<string, ActionVerb>> = { text: 'type', value: 'select', then: 'ifExists' };
const NEEDS: Partial<Record<ActionVerb, string>> = { type: 'text', select: 'value', ifExists: 'then' };

const ActionObject = z
  .object({
    click: Selector.optional().describe('CSS selector of an element to click (waited for until the time bound)'),
    wait: Selector.optional().describe('CSS selector to wait for until it is present in the page'),
    waitMs: z.number().int().min(0).max(MAX_WAIT_MS).optional().describe('Milliseconds to wait'),
    type: Selector.optional().describe('CSS selector of a field to fill with text'),
    text: Text.optional().describe('The text typed into the field; may hold request variables ({{ q }})'),
    press: z
      .string()
      .regex(PRESS_KEY_PATTERN, 'write a key as Playwright names it: Enter, Tab, ArrowDown, a, Control+A')
      .optional()
      .describe('A key pressed on the focused element (Enter, Tab, ArrowDown…)'),
    select: Selector.optional().describe('CSS selector of a <select> whose option is chosen'),
    value: Text.optional().describe('The option value chosen; may hold request variables ({{ sort }})'),
    scroll: z.literal('bottom').optional().describe('Scroll to the bottom of the page'),
    ifExists: Selector.optional().describe(
      'CSS selector: run `then` only if it matches at this moment (consent walls that only sometimes appear)',
    ),
    get then(): z.ZodOptional<z.ZodArray<z.ZodType<Action, Action>>> {
      return z.array(ActionSchema).min(1).max(MAX_ACTIONS).optional().describe('Steps run when ifExists matches');
    },
  })
  .strict();

/** One step. Typed by hand (action-text.ts): a recursive schema cannot infer its own type. */
export const ActionSchema: z.ZodType<Action, Action> = ActionObject.superRefine((step, ctx) => {
  const verbs = ACTION_VERBS.filter((verb) => step[verb] !== undefined);
  if (verbs.length === 0) ctx.addIssue({ code: 'custom', path: [], message: `a step needs one of ${ACTION_VERBS.join(', ')}` });
  if (verbs.length > 1)
    ctx.addIssue({
      code: 'custom',
      path: [verbs[1]!],
      message: `a step does one thing, not ${verbs.join(' and ')}: split it into two steps`,
    });
  const keys = step as Record<string, unknown>;
  for (const verb of verbs) {
    const needed = NEEDS[verb];
    if (needed !== undefined && keys[needed] === undefined)
      ctx.addIssue({ code: 'custom', path: [needed], message: `"${verb}" needs "${needed}" beside it` });
  }
  for (const [key, verb] of Object.entries(COMPANIONS)) {
    if (keys[key] !== undefined && step[verb] === undefined)
      ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" belongs to "${verb}"` });
  }
}).meta({
  oneOf: ACTION_VERBS.map((verb) => ({ required: [verb] })),
  dependentRequired: { type: ['text'], text: ['type'], select: ['value'], value: ['select'], ifExists: ['then'], then: ['ifExists'] },
});

// The hand-written type of action-text.ts (zod-free, for light code) must be what the object schema gives.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameType: Same<z.output<typeof ActionObject>, Action> = true;
void sameType;

export const ActionsSchema = z
  .array(ActionSchema)
  .superRefine((actions, ctx) => {
    const count = countActions(actions);
    if (count > MAX_ACTIONS)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `at most ${MAX_ACTIONS} actions in all (those inside "then" included), not ${count}`,
      });
  })
  // The count is the refinement's (nested steps included, said in words); maxItems is for editors.
  .meta({ maxItems: MAX_ACTIONS })
  .describe(`Browser steps run in order after the page loaded and before it is read (scraper 3, at most ${MAX_ACTIONS}, docs/actions.md)`);
