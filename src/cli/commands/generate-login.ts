import { LoginSchema, type LoginSettings } from '../../core/config/login.js';
import { formatZodIssues } from '../../core/config/problems.js';
import { PagejsonError } from '../../core/shared/errors.js';

/**
 * `generate --login URL --login-field name=value… [--logged-in SELECTOR]`, or `--login '{json}'` for a whole
 * login (browser steps): for pages behind a login (docs/access.md, "Logins"). Checked like a config's `login`
 * (a usage error says what is wrong), used for the generation's fetch, and written into the config as typed:
 * `${NAME}` stays a template (single quotes keep it from the shell), so no password is written.
 */
export interface LoginFlags {
  login?: string;
  loginField?: string[];
  loggedIn?: string;
}

const HINT = "e.g. --login https://example.com/login --login-field 'username=${SITE_USER}' --login-field 'password=${SITE_PASSWORD}'";

function fieldsOf(lines: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const line of lines) {
    const equals = line.indexOf('=');
    if (equals <= 0)
      throw new PagejsonError('USAGE', `--login-field takes name=value, not "${line.length > 60 ? `${line.slice(0, 60)}…` : line}"`, {
        hint: HINT,
      });
    fields[line.slice(0, equals)] = line.slice(equals + 1);
  }
  return { ...fields };
}

function given(flags: LoginFlags): Record<string, unknown> {
  const text = flags.login?.trim() ?? '';
  if (text.startsWith('{')) {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new PagejsonError('USAGE', '--login is neither a URL nor a JSON object', { hint: HINT });
    }
  }
  return { url: text, form: fieldsOf(flags.loginField ?? []) };
}

/** The `login` of a generation from its flags, or nothing when none is given. */
export function loginFromFlags(flags: LoginFlags): { login?: LoginSettings } {
  if (flags.login === undefined) {
    if ((flags.loginField?.length ?? 0) > 0 || flags.loggedIn !== undefined)
      throw new PagejsonError('USAGE', '--login-field and --logged-in need --login (the login page)', { hint: HINT });
    return {};
  }
  const candidate = given(flags);
  if (flags.loggedIn !== undefined) candidate.loggedIn = flags.loggedIn;
  const parsed = LoginSchema.safeParse(candidate);
  if (!parsed.success) {
    const [first] = formatZodIssues(parsed.error.issues);
    throw new PagejsonError('USAGE', `--login: ${first?.message ?? 'not valid'}`, { hint: first?.hint ?? HINT });
  }
  return { login: parsed.data };
}
