import { selectorCostProblem, validateSelector } from '../extract/index.js';
import { malformedPlaceholder, type Action, type ApiConfig } from '../config/index.js';

type Problem = { path: Array<string | number>; message: string; hint: string };

const SELECTOR_KEYS = ['click', 'wait', 'type', 'select', 'ifExists'] as const;

/**
 * Why a config's `login` cannot work (docs/access.md, "Logins"), in words. The schema (config/login.ts) has
 * checked its shape and the `${NAME}` placeholders; here: browser steps need scraper 3, selectors must parse
 * (and be cheap, as the structure's), and a login is the endpoint's, made once for every request, so a
 * request variable (`{{ name }}`) cannot stand in it.
 */
export function loginProblems(config: ApiConfig): Problem[] {
  const login = config.login;
  if (!login) return [];
  const problems: Problem[] = [];
  if (login.steps && config.scraper !== 3) {
    problems.push({
      path: ['login', 'steps'],
      message: `login steps run in the browser, and this endpoint uses scraper ${config.scraper}`,
      hint: 'set "scraper": 3, or sign in with login.form (a form posted over HTTP)',
    });
  }
  if (config.session) {
    problems.push({
      path: ['session'],
      message: "session and login together: the login's session is what the fetches send",
      hint: 'remove "session": true',
    });
  }
  if (login.loggedIn !== undefined) checkSelector(login.loggedIn, ['login', 'loggedIn'], problems);
  if (login.steps) checkSteps(login.steps, ['login', 'steps'], problems);
  const texts = [['url', login.url], ...Object.entries(login.form ?? {}).map(([name, value]) => [`form.${name}`, value])] as Array<
    [string, string]
  >;
  for (const [where, text] of texts) {
    if (/\{\{/.test(text))
      problems.push({
        path: ['login', ...where.split('.')],
        message: "a login is the endpoint's, made once for every request: it cannot use request variables ({{ }})",
        hint: 'write the value, or ${NAME} to read it from the environment',
      });
  }
  return problems;
}

function checkSelector(selector: string, path: Array<string | number>, problems: Problem[]): void {
  const problem = validateSelector(selector) ?? selectorCostProblem(selector);
  if (problem)
    problems.push({
      path,
      message: `CSS selector is refused: ${problem}`,
      hint: 'write a CSS selector such as a.logout, #account or [data-user]',
    });
}

function checkSteps(steps: readonly Action[], at: Array<string | number>, problems: Problem[]): void {
  steps.forEach((step, index) => {
    const path = [...at, index];
    for (const key of SELECTOR_KEYS) {
      const selector = step[key];
      if (selector !== undefined) checkSelector(selector, [...path, key], problems);
    }
    for (const key of ['text', 'value'] as const) {
      const text = step[key];
      if (text !== undefined && (malformedPlaceholder(text) || /\{\{/.test(text))) {
        problems.push({
          path: [...path, key],
          message: 'a login step cannot use request variables ({{ }}): the login is made once for every request',
          hint: 'write the text, or ${NAME} to read it from the environment',
        });
      }
    }
    if (step.then) checkSteps(step.then, [...path, 'then'], problems);
  });
}
