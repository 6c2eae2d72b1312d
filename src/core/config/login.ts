import { z } from 'zod';
import { ActionsSchema } from './actions.js';
import type { Action } from './action-text.js';
import { secretTemplate } from './secrets.js';

/**
 * A config's `login` (docs/access.md, "Logins"): how pagejson signs in before it fetches the endpoint's page.
 *
 * - `{ "url", "form": { field: value } }`: the login page at `url` is fetched, its form (the one holding these
 *   fields, else the one with a password field) read with every hidden field it carries (CSRF tokens), and
 *   posted over HTTP with these values (scrapers 1 and 2, and 3 too: the cookies go into its browser).
 * - `{ "url", "steps": [ actions… ] }`: the login page opened in the browser and the steps run on it, the
 *   vocabulary of `actions` (config/actions.ts): scraper 3 only.
 * - `"loggedIn": "<selector>"`, optional: an element only a signed-in visitor sees; its absence on the
 *   endpoint's page means the site ended the session.
 *
 * Every text may hold `${NAME}`, read from the environment of the process that fetches (secrets.ts): a
 * password never has to be written into a config. The session a login yields is kept per endpoint
 * (src/core/fetch/login/).
 */
export const MAX_LOGIN_FIELDS = 50;
const MAX_FIELD_NAME = 200;
const MAX_FIELD_VALUE = 4_096;
const MAX_LOGIN_URL = 2_000;

/** A form field's name as HTML allows it: anything printable, bounded. */
function isFieldName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_FIELD_NAME) return false;
  for (let index = 0; index < name.length; index += 1) {
    const code = name.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

/** What is wrong with a login URL (a template or not), or undefined. */
export function loginUrlProblem(template: string): string | undefined {
  if (!/^https?:\/\//i.test(template)) return 'the login url starts with http:// or https://';
  try {
    const url = new URL(template.replace(/\$\{[A-Z_][A-Z0-9_]*\}/g, '1'));
    if (url.username || url.password) return 'put credentials in form (or steps), not in the login url';
  } catch {
    return 'the login url is not a URL';
  }
  return undefined;
}

const LoginUrl = secretTemplate(MAX_LOGIN_URL).superRefine((value, context) => {
  const problem = loginUrlProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

const FormFields = z.record(z.string(), secretTemplate(MAX_FIELD_VALUE)).superRefine((fields, context) => {
  const names = Object.keys(fields);
  if (names.length === 0)
    context.addIssue({
      code: 'custom',
      message: 'name at least one field of the form, e.g. {"username": "${SITE_USER}", "password": "${SITE_PASSWORD}"}',
    });
  if (names.length > MAX_LOGIN_FIELDS) context.addIssue({ code: 'custom', message: `at most ${MAX_LOGIN_FIELDS} fields` });
  for (const name of names) {
    if (!isFieldName(name))
      context.addIssue({
        code: 'custom',
        path: [name],
        message: `"${name.slice(0, 60)}" cannot be a form field name: 1 to ${MAX_FIELD_NAME} characters, no control characters`,
      });
  }
});

export const LOGIN_KINDS = ['form', 'steps'] as const;

export const LoginSchema = z
  .object({
    url: LoginUrl.describe(
      'The login page: its form is read (hidden fields such as CSRF tokens included) and posted, or the steps run on it',
    ),
    form: FormFields.optional().describe(
      'Form fields and their values, posted over HTTP with the form\'s hidden fields, e.g. {"username": "${SITE_USER}", "password": "${SITE_PASSWORD}"}; ${NAME} is read from the environment',
    ),
    steps: ActionsSchema.optional().describe(
      'Browser steps run on the login page instead of a form (scraper 3), the vocabulary of actions; ${NAME} in their text is read from the environment',
    ),
    loggedIn: z
      .string()
      .min(1)
      .max(1_000)
      .optional()
      .describe(
        "CSS selector of an element only a signed-in visitor sees: when the endpoint's page lacks it, the session has ended and pagejson signs in again",
      ),
  })
  .strict()
  .superRefine((value, context) => {
    const kinds = LOGIN_KINDS.filter((kind) => value[kind] !== undefined);
    if (kinds.length === 0)
      context.addIssue({
        code: 'custom',
        path: [],
        message: 'login needs form (fields posted over HTTP) or steps (browser steps, scraper 3)',
      });
    if (kinds.length > 1)
      context.addIssue({ code: 'custom', path: ['steps'], message: 'login takes form or steps, not both: keep one of them' });
  })
  .meta({ oneOf: LOGIN_KINDS.map((kind) => ({ required: [kind] })) })
  .describe(
    'Sign in before fetching (docs/access.md): a form posted over HTTP, or browser steps; the session is kept per endpoint and renewed when the site ends it',
  );

export type LoginSettings = z.output<typeof LoginSchema>;

/** Every text of a `login` block that may hold secrets, with where it stands (validate's checks, masking). */
export function loginTexts(login: LoginSettings | undefined): Array<{ path: Array<string | number>; value: string }> {
  if (!login) return [];
  const texts: Array<{ path: Array<string | number>; value: string }> = [{ path: ['login', 'url'], value: login.url }];
  for (const [name, value] of Object.entries(login.form ?? {})) texts.push({ path: ['login', 'form', name], value });
  const walk = (steps: readonly Action[], at: Array<string | number>): void => {
    steps.forEach((step, index) => {
      if (step.text !== undefined) texts.push({ path: [...at, index, 'text'], value: step.text });
      if (step.value !== undefined) texts.push({ path: [...at, index, 'value'], value: step.value });
      if (step.then) walk(step.then, [...at, index, 'then']);
    });
  };
  if (login.steps) walk(login.steps, ['login', 'steps']);
  return texts;
}
