import type { Action } from './action-text.js';
import type { LoginSettings } from './login.js';
import { CREDENTIAL_FIELD, isTemplateOnly } from './template-only.js';

/**
 * How a config's `login` is shown (`show`, `show --json`, `diff`, `edit`'s changes, the dashboard;
 * docs/security.md): as written, `${NAME}` templates included (a template holds no secret), with a credential
 * written in literally — a password field's value, the text a step types into a password field — masked, so
 * none of these screens repeats it. Resolved values are never at hand here: only the login resolves them.
 */
export const LOGIN_MASK = '••••';

function shown(name: string, value: string): string {
  return CREDENTIAL_FIELD.test(name) && !isTemplateOnly(value) ? LOGIN_MASK : value;
}

function shownSteps(steps: readonly Action[]): Action[] {
  return steps.map((step) => ({
    ...step,
    ...(step.type !== undefined && step.text !== undefined ? { text: shown(step.type, step.text) } : {}),
    ...(step.then ? { then: shownSteps(step.then) } : {}),
  }));
}

/** The `login` block as shown. */
export function displayLogin(login: LoginSettings): LoginSettings {
  return {
    ...login,
    ...(login.form ? { form: Object.fromEntries(Object.entries(login.form).map(([name, value]) => [name, shown(name, value)])) } : {}),
    ...(login.steps ? { steps: shownSteps(login.steps) } : {}),
  };
}

/** A config (or any object with `login`) with its login as shown. */
export function withLoginShown<T extends { login?: LoginSettings | undefined }>(config: T): T {
  return config.login ? { ...config, login: displayLogin(config.login) } : config;
}

/** The login in words, never with a value: `form login at <url> (fields username, password), loggedIn a.logout`. */
export function describeLogin(login: LoginSettings): string {
  const how = login.form
    ? `form login at ${login.url} (fields ${Object.keys(login.form).join(', ')})`
    : `browser login at ${login.url} (${login.steps?.length ?? 0} steps)`;
  return login.loggedIn ? `${how}, signed in while ${login.loggedIn} is on the page` : how;
}

/** `show`'s rows of a login: how it signs in, its fields as shown (credentials masked), loggedIn. */
export function loginRows(config: { login?: LoginSettings | undefined }): Array<[string, string]> {
  const login = config.login;
  if (!login) return [];
  const rows: Array<[string, string]> = [['login', login.form ? `form at ${login.url}` : `browser steps at ${login.url}`]];
  const shownLogin = displayLogin(login);
  if (shownLogin.form)
    rows.push([
      'login form',
      Object.entries(shownLogin.form)
        .map(([name, value]) => `${name}=${value}`)
        .join(', '),
    ]);
  if (shownLogin.steps)
    rows.push([
      'login steps',
      shownLogin.steps
        .map(
          (step, index) =>
            `${index + 1}. ${step.type !== undefined ? `type ${JSON.stringify(step.text)} into ${JSON.stringify(step.type)}` : JSON.stringify(step)}`,
        )
        .join('; '),
    ]);
  if (login.loggedIn) rows.push(['logged in', `while ${login.loggedIn} is on the page`]);
  return rows;
}
