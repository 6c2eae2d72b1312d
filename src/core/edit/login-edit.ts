import { CREDENTIAL_FIELD, describeLogin, isTemplateOnly, LoginSchema, type ApiConfig, type LoginSettings } from '../config/index.js';
import { PagejsonError } from '../shared/index.js';

/**
 * `pagejson edit <apiId> --set login…` (docs/access.md, "Logins"): the whole login as JSON (`login={…}`,
 * `login=off` removes it), or one part: `login.url`, `login.loggedIn` (empty removes it), `login.form.<field>`
 * (empty removes the field). Each result is checked against the login schema at once, so a mistake is refused
 * with its place; rules across the config (scraper 3 for steps) are validate's, run before any save. Changes
 * are said in words without a value (login-display.ts).
 */
const OFF = ['', 'null', 'off', 'none'];
const EXAMPLE = '--set \'login={"url":"https://example.com/login","form":{"username":"${SITE_USER}","password":"${SITE_PASSWORD}"}}\'';

function usage(message: string, hint: string): PagejsonError {
  return new PagejsonError('USAGE', message, { hint });
}

function checked(config: ApiConfig, candidate: unknown): ApiConfig {
  const parsed = LoginSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`)).join('');
    throw usage(
      `login${at}: ${issue.message}`,
      `a login is {"url", "form": {field: value}} or {"url", "steps": [...]}, with "loggedIn" optional (docs/access.md); e.g. ${EXAMPLE}`,
    );
  }
  return { ...config, login: parsed.data };
}

function setLogin(config: ApiConfig, value: string): ApiConfig {
  if (OFF.includes(value.trim().toLowerCase())) {
    const { login: _old, ...rest } = config;
    return rest;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw usage(`login must be a JSON object, got ${value.slice(0, 80)}`, `write ${EXAMPLE}`);
  }
  return checked(config, parsed);
}

function existing(config: ApiConfig, key: string): LoginSettings {
  if (!config.login) throw usage(`${key}: the endpoint has no login yet`, `add one first: ${EXAMPLE}`);
  return config.login;
}

export const LOGIN_SETTERS: Record<string, (config: ApiConfig, value: string) => ApiConfig> = {
  login: setLogin,
  'login.url': (config, value) => checked(config, { ...existing(config, 'login.url'), url: value }),
  'login.loggedIn': (config, value) => {
    const { loggedIn: _old, ...rest } = existing(config, 'login.loggedIn');
    return checked(config, value.trim() === '' ? rest : { ...rest, loggedIn: value });
  },
};

/** `login.form.<field>`: a key with a name in it. */
export function loginSetter(key: string): ((config: ApiConfig, value: string) => ApiConfig) | undefined {
  const match = /^login\.form\.(.+)$/.exec(key);
  if (!match) return undefined;
  const name = match[1]!;
  return (config, value) => {
    const login = existing(config, key);
    const form: Record<string, string> = { ...login.form };
    if (value === '') delete form[name];
    else Object.defineProperty(form, name, { value, enumerable: true, writable: true, configurable: true });
    return checked(config, { ...login, form });
  };
}

/** What an edit changed in `login`, in words, never with a value. */
export function loginChanges(before: ApiConfig, after: ApiConfig): Array<{ kind: 'setting'; subject: string; text: string }> {
  if (JSON.stringify(before.login) === JSON.stringify(after.login)) return [];
  if (!after.login) return [{ kind: 'setting', subject: 'login', text: 'login removed' }];
  if (!before.login) return [{ kind: 'setting', subject: 'login', text: `login added: ${describeLogin(after.login)}` }];
  const changed = Object.keys(after.login.form ?? {}).filter((name) => before.login?.form?.[name] !== after.login?.form?.[name]);
  const values = changed.length > 0 ? ` (values of ${changed.join(', ')} changed)` : '';
  return [{ kind: 'setting', subject: 'login', text: `login changed: ${describeLogin(after.login)}${values}` }];
}

function literalIn(form: Readonly<Record<string, unknown>>): boolean {
  return Object.entries(form).some(
    ([name, value]) => typeof value === 'string' && value !== '' && CREDENTIAL_FIELD.test(name) && !isTemplateOnly(value),
  );
}

/**
 * The dashboard takes a login's credentials as `${NAME}` templates only (docs/security.md): an operation that
 * would write a password into a config file is refused, naming what to write instead.
 */
export function refuseLiteralLoginCredentials(operations: ReadonlyArray<{ kind: string; key?: string; value?: string }>): void {
  for (const operation of operations) {
    if (operation.kind !== 'set' || operation.key === undefined || operation.value === undefined) continue;
    const field = /^login\.form\.(.+)$/.exec(operation.key)?.[1];
    let literal = field !== undefined && literalIn({ [field]: operation.value });
    if (operation.key === 'login') {
      try {
        const parsed = JSON.parse(operation.value) as { form?: Record<string, unknown>; steps?: unknown };
        literal =
          (parsed.form !== undefined && literalIn(parsed.form)) ||
          (parsed.steps !== undefined &&
            /"text"\s*:\s*"(?![^"]*\$\{)[^"]+"/.test(JSON.stringify(parsed.steps)) &&
            /pass/i.test(JSON.stringify(parsed.steps)));
      } catch {
        literal = false;
      }
    }
    if (literal)
      throw usage(
        `${operation.key}: write the credential as \${NAME}, not as its value`,
        "set NAME in the daemon's environment and write ${NAME} here: the dashboard writes no secret into a config file (docs/access.md)",
      );
  }
}
