import { describe, expect, it } from 'vitest';
import { LoginSchema } from '../../src/core/config/login.js';
import { describeLogin, displayLogin, loginRows } from '../../src/core/config/login-display.js';
import { ApiConfigSchema, type ApiConfig } from '../../src/core/config/schema.js';
import { loginChanges, refuseLiteralLoginCredentials } from '../../src/core/edit/login-edit.js';
import { applyEdit } from '../../src/core/edit/operations.js';
import { loginKey } from '../../src/core/fetch/login/login-manager.js';
import { chooseLoginForm, formPayload, parseForms } from '../../src/core/fetch/login/form-parse.js';
import { checkConfigRules } from '../../src/core/registry/validate.js';

/** A config's `login` (docs/access.md, "Logins"): the schema, validate's rules, edit --set, how it is shown, the form reader. */
const base = { apiId: 'members', url: 'https://example.com/members', structure: [{ name: 'title', type: 'string', selector: 'h1' }] };
const form = { url: 'https://example.com/login', form: { username: '${SITE_USER}', password: '${SITE_PASSWORD}' } };

function issues(value: unknown): string[] {
  const parsed = LoginSchema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

function config(extra: Record<string, unknown>): ApiConfig {
  return ApiConfigSchema.parse({ ...base, ...extra });
}

describe('login in a config', () => {
  it('takes a form or browser steps, loggedIn optional, ${NAME} kept as written', () => {
    expect(config({ login: { ...form, loggedIn: 'a.logout' } }).login).toEqual({ ...form, loggedIn: 'a.logout' });
    expect(issues({ url: 'https://example.com/login', steps: [{ type: '#user', text: '${SITE_USER}' }, { click: 'button' }] })).toEqual([]);
  });

  it('refuses in words: neither or both of form and steps, a bad URL, credentials in it, a malformed placeholder, an empty form, unknown keys', () => {
    expect(issues({ url: 'https://example.com/login' })).toEqual([
      ': login needs form (fields posted over HTTP) or steps (browser steps, scraper 3)',
    ]);
    expect(issues({ ...form, steps: [{ click: 'button' }] })).toEqual(['steps: login takes form or steps, not both: keep one of them']);
    expect(issues({ ...form, url: 'ftp://example.com' })).toEqual(['url: the login url starts with http:// or https://']);
    expect(issues({ ...form, url: 'https://ada:pw@example.com/login' })).toEqual([
      'url: put credentials in form (or steps), not in the login url',
    ]);
    expect(issues({ ...form, form: { password: '${site_password}' } })[0]).toMatch(
      /^form\.password: "\$\{site_password\}" is not an environment variable name/,
    );
    expect(issues({ ...form, form: {} })[0]).toMatch(/^form: name at least one field/);
    expect(issues({ ...form, logedIn: 'a' })[0]).toMatch(/logedIn/);
  });

  it('never makes "__proto__" a form field', () => {
    const parsed = LoginSchema.parse(JSON.parse('{"url": "https://example.com/login", "form": {"__proto__": "x", "user": "${U}"}}'));
    expect(Object.keys(parsed.form ?? {})).toEqual(['user']);
  });

  it('validate refuses steps on scrapers 1 and 2, session beside a login, selectors that do not parse, and request variables in a login', () => {
    const problems = (extra: Record<string, unknown>) =>
      checkConfigRules(config(extra), 'configs/members.json').map((problem) => `${problem.path}: ${problem.message}`);
    expect(problems({ login: form })).toEqual([]);
    expect(problems({ login: { url: form.url, steps: [{ click: 'button' }] } })).toEqual([
      '$.login.steps: login steps run in the browser, and this endpoint uses scraper 1',
    ]);
    expect(problems({ scraper: 3, login: { url: form.url, steps: [{ click: 'button[' }] } })[0]).toMatch(
      /^\$\.login\.steps\[0\]\.click: CSS selector is refused/,
    );
    expect(problems({ session: true, login: form })).toEqual([
      "$.session: session and login together: the login's session is what the fetches send",
    ]);
    expect(problems({ login: { ...form, loggedIn: 'a[' } })[0]).toMatch(/^\$\.login\.loggedIn: CSS selector is refused/);
    expect(problems({ login: { ...form, form: { user: '{{ who }}' } } })[0]).toMatch(/^\$\.login\.form\.user: a login is the endpoint's/);
  });

  it('edit --set sets the whole login or a part, removes it, and says what changed without a value', () => {
    const plain = config({});
    const withLogin = applyEdit(plain, { kind: 'set', key: 'login', value: JSON.stringify(form) });
    expect(withLogin.login).toEqual(form);
    const field = applyEdit(withLogin, { kind: 'set', key: 'login.form.otp', value: '${SITE_OTP}' });
    expect(field.login?.form).toEqual({ ...form.form, otp: '${SITE_OTP}' });
    expect(applyEdit(field, { kind: 'set', key: 'login.form.otp', value: '' }).login?.form).toEqual(form.form);
    expect(applyEdit(withLogin, { kind: 'set', key: 'login.loggedIn', value: 'a.logout' }).login?.loggedIn).toBe('a.logout');
    expect(applyEdit(withLogin, { kind: 'set', key: 'login', value: 'off' }).login).toBeUndefined();
    expect(() => applyEdit(plain, { kind: 'set', key: 'login.url', value: 'https://x.example' })).toThrow(
      'login.url: the endpoint has no login yet',
    );
    expect(() => applyEdit(withLogin, { kind: 'set', key: 'login.url', value: 'nope' })).toThrow(
      'login.url: the login url starts with http:// or https://',
    );
    expect(loginChanges(plain, withLogin)).toEqual([
      { kind: 'setting', subject: 'login', text: 'login added: form login at https://example.com/login (fields username, password)' },
    ]);
    const literal = applyEdit(withLogin, { kind: 'set', key: 'login.form.password', value: 'hunter2' });
    expect(JSON.stringify(loginChanges(withLogin, literal))).not.toContain('hunter2');
    expect(loginChanges(withLogin, literal)[0]?.text).toContain('values of password changed');
  });

  it('is shown with templates as written and a literal credential masked', () => {
    const shown = displayLogin({
      url: form.url,
      form: { username: 'ada', password: 'hunter2', token: '${SITE_TOKEN}' },
      loggedIn: 'a.logout',
    });
    expect(shown.form).toEqual({ username: 'ada', password: '••••', token: '${SITE_TOKEN}' });
    const steps = displayLogin({
      url: form.url,
      steps: [
        { type: '#password', text: 'hunter2' },
        { type: '#user', text: 'ada' },
      ],
    });
    expect(steps.steps).toEqual([
      { type: '#password', text: '••••' },
      { type: '#user', text: 'ada' },
    ]);
    expect(JSON.stringify(loginRows({ login: { url: form.url, form: { password: 'hunter2' } } }))).not.toContain('hunter2');
    expect(describeLogin({ ...form, loggedIn: 'a.logout' })).toBe(
      'form login at https://example.com/login (fields username, password), signed in while a.logout is on the page',
    );
  });

  it('the dashboard refuses a literal password, and takes a template', () => {
    expect(() => refuseLiteralLoginCredentials([{ kind: 'set', key: 'login.form.password', value: 'hunter2' }])).toThrow(
      'login.form.password: write the credential as ${NAME}',
    );
    expect(() =>
      refuseLiteralLoginCredentials([{ kind: 'set', key: 'login', value: JSON.stringify({ url: form.url, form: { pass: 'x' } }) }]),
    ).toThrow();
    expect(() =>
      refuseLiteralLoginCredentials([
        { kind: 'set', key: 'login.form.password', value: '${SITE_PASSWORD}' },
        { kind: 'set', key: 'login.form.username', value: 'ada' },
      ]),
    ).not.toThrow();
  });

  it('a changed login is another session: the key follows the login as written', () => {
    expect(loginKey(form)).toBe(loginKey({ ...form }));
    expect(loginKey(form)).not.toBe(loginKey({ ...form, form: { ...form.form, username: 'bob' } }));
  });
});

describe('reading a login form', () => {
  const page = `<form action="/search"><input name="q"></form>
<form id="login" method="POST" action="/session">
  <input type="hidden" name="authenticity_token" value="abc&amp;123">
  <input name="user"><input type="password" name="pass">
  <input type="checkbox" name="remember" value="1" checked><input type="checkbox" name="spam" value="1">
  <select name="lang"><option value="en">English</option><option value="fr" selected>Français</option></select>
  <textarea name="note">hi</textarea>
  <button type="submit" name="commit" value="Sign in">Sign in</button><button type="submit" name="other" value="x">Other</button>
</form>`;

  it('picks the form holding the fields, keeps what a browser sends (hidden, checked, selected, the first submit) and puts the values over them', () => {
    const forms = parseForms(page);
    expect(forms).toHaveLength(2);
    const chosen = chooseLoginForm(forms, ['user', 'pass']);
    expect(chosen?.action).toBe('/session');
    expect(chosen?.method).toBe('post');
    expect(formPayload(chosen!, { user: 'ada', pass: 'pw' })).toEqual([
      ['authenticity_token', 'abc&123'],
      ['remember', '1'],
      ['lang', 'fr'],
      ['note', 'hi'],
      ['commit', 'Sign in'],
      ['user', 'ada'],
      ['pass', 'pw'],
    ]);
    // Without the fields named, the one with a password field.
    expect(chooseLoginForm(forms, ['login'])?.action).toBe('/session');
  });
});
